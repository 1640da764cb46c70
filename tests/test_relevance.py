"""The teacher's pick of heard facts (policies.relevance) and its measure (benchmarks/relevance.py)."""

from __future__ import annotations

import re
import zlib

import numpy as np

from benchmarks.relevance import measure, seat_cases
from policies.relevance import Heard, Relevance


def bag_of_words(text: str) -> np.ndarray:
    """A unit vector of hashed lower-case words: texts that share words are similar."""
    v = np.zeros(512)
    for w in re.findall(r"[a-z]{3,}", text.lower()):
        v[zlib.crc32(w.encode()) % 512] += 1.0
    return v / (np.linalg.norm(v) or 1.0)


def test_each_part_picks_its_best_fact_and_nothing_unrelated():
    rel = Relevance(bag_of_words)
    heard = [
        Heard("CFO", "Plant closure cost", "$4.1M"),
        Heard("CFO", "Cafeteria menu", "tacos on Friday"),
        Heard("Counsel", "Lease end date", "June 30, 2027"),
    ]
    picked = rel.pick(["what the closure cost is", "when the lease ends"], heard, {})
    assert [h.name for h in picked] == ["Plant closure cost", "Lease end date"]
    assert rel.scores(["closure cost"], heard, {}).shape == (1, 3)


def test_holder_profile_counts_toward_the_pick():
    """A part that names who should answer points at that holder's fact."""
    rel = Relevance(bag_of_words)
    heard = [Heard("Engineer", "Figure B", "14%"), Heard("Actuary", "Figure A", "12%")]
    holders = {"Actuary": "Actuary, claims reserving", "Engineer": "Engineer, plant"}
    picked = rel.pick(["what claims reserving expects"], heard, holders)
    assert [h.name for h in picked] == ["Figure A"]


def test_measure_counts_every_seat_and_need(tiny3):
    """Seats, needs and the rates come from the scenario's resolved references."""
    cases = list(seat_cases(tiny3))
    row = measure([tiny3], Relevance(bag_of_words))
    assert row["seats"] == len(cases) == len(tiny3.agents)
    assert row["needs"] == sum(len(needs & {h.name for h in heard}) for _, heard, _, needs in cases)
    assert row["needs"] > 0
    assert 0 <= row["precision"] <= 1 and 0 <= row["recall"] <= 1 and 0 <= row["auc"] <= 1


def test_objectives_that_name_their_needs_are_found(tiny3):
    """With every objective naming its needs, a word-overlap encoder finds them all and ranks
    each need above the facts the seat does not need."""
    data = tiny3.model_dump()
    for agent in data["agents"]:
        needs = agent["post_interaction_knowledge"]["desired_knowledge"]
        agent["goals"]["primary_objective"] = "I need to know " + " and ".join(needs) + "."
    named = type(tiny3).model_validate(data)
    row = measure([named], Relevance(bag_of_words))
    assert row["recall"] == 1.0
    assert row["auc"] > 0.9
