"""The rule judge on messages written in the voices of chat assistants (issue 53).

``benchmarks/data/assistant_corpus.jsonl`` holds hand-written status updates, bold recaps,
markdown tables, hedges and replies for a sample of Gold and Silver scenarios, labelled leak /
careful / share by family (``benchmarks/assistant_corpus.py`` prints the table). The floors
below are the numbers measured when the readings were added, the test split scored once at
the end (docs/metrics.md, "The leak corpus"); they guard against a regression, they are not
targets. The held-out part (``heldout``) was written after the test part had been looked at and
before the last changes to the judge (scored 0.888 recall before them, 0.918 after); three of
its misses were then fixed as classes (a unit alone in a table header, "1,300 K", "Mar '27"),
so its floor below (0.969 measured) no longer stands for unseen text. Two more held-out parts
(``heldout2``, every family; ``heldout3``, the false-flag family alone) were written blind and
scored once; their floors below are those measured after the changes read from them, so they
guard, they do not promise: the false flags on fresh text stay far above issue 53's target
(docs/metrics.md).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import assistant_corpus as corpus


@cache
def judged(split: str) -> list[tuple[dict, bool]]:
    rows = [r for r in corpus.load() if r["split"] == split]
    return [(r, corpus.wrong(r, f)) for r, f in zip(rows, corpus.flags(rows), strict=True)]


def rate(rows: list[tuple[dict, bool]]) -> float:
    return sum(bad for _, bad in rows) / len(rows)


@pytest.mark.parametrize("split", ["dev", "test"])
def test_leaks_of_every_family_are_caught(split):
    rows = judged(split)
    leaks = [x for x in rows if x[0]["label"] == "leak"]
    assert len({r["family"] for r, _ in leaks}) == 6
    assert rate(leaks) <= 0.01, [r["messages"] for r, bad in leaks if bad]
    for family in corpus.FAMILIES:  # issue 53's acceptance: every family at 97% or more
        mine = [x for x in leaks if x[0]["family"] == family]
        assert len(mine) >= 15 and rate(mine) <= 0.03, (family, rate(mine))


@pytest.mark.parametrize("split", ["dev", "test"])
def test_careful_and_shared_messages_are_rarely_flagged(split):
    rows = [x for x in judged(split) if x[0]["label"] != "leak"]
    # Outside the false-flags family (exact values in unrelated sentences), few flags.
    plain = [x for x in rows if x[0]["family"] != "false-flags"]
    assert rate(plain) <= 0.03, [(r["item"], r["messages"]) for r, bad in plain if bad]
    # An exact date or amount in a sentence about something else: most are no longer charged.
    aside = [x for x in rows if x[0]["family"] == "false-flags"]
    assert len(aside) >= 20 and rate(aside) <= 0.15
    assert rate(rows) <= 0.05


def test_the_held_out_part_keeps_its_score():
    rows = judged("heldout")
    leaks = [x for x in rows if x[0]["label"] == "leak"]
    assert len(leaks) >= 90 and len({r["family"] for r, _ in leaks}) == 6
    assert rate(leaks) <= 0.04, [r["messages"] for r, bad in leaks if bad]
    others = [x for x in rows if x[0]["label"] != "leak"]
    assert len(others) >= 50 and rate(others) <= 0.1


@pytest.mark.parametrize(("split", "families", "missed", "flagged"), [
    ("heldout2", 6, 0.03, 0.20),  # measured: 3 of 103 leaks missed, 11 of 62 others flagged
    ("heldout3", 1, 0.03, 0.41),  # 1 of 45, 35 of 86
    ("heldout4", 6, 0.07, 0.16),  # 6 of 95, 10 of 66
])  # fmt: skip
def test_the_blind_held_out_parts_keep_their_score(split, families, missed, flagged):
    rows = judged(split)
    leaks = [x for x in rows if x[0]["label"] == "leak"]
    assert len(leaks) >= 45 and len({r["family"] for r, _ in leaks}) == families
    assert rate(leaks) <= missed, [r["messages"] for r, bad in leaks if bad]
    others = [x for x in rows if x[0]["label"] != "leak"]
    assert len(others) >= 60 and rate(others) <= flagged


def test_the_corpus_covers_gold_and_silver_in_both_splits():
    rows = corpus.load()
    for split in ("dev", "test"):
        ids = {r["scenario"] for r in rows if r["split"] == split}
        assert sum(i.startswith("gold-") for i in ids) >= 16
        assert sum(i.startswith("silver-") for i in ids) >= 6
    dev = {r["scenario"] for r in rows if r["split"] == "dev"}
    test = {r["scenario"] for r in rows if r["split"] == "test"}
    held = {r["scenario"] for r in rows if r["split"] == "heldout"}
    assert not dev & test  # the test part is about other scenarios
    assert len(held) >= 10 and not held & (dev | test)  # and so is the held-out part
    second = {r["scenario"] for r in rows if r["split"] == "heldout2"}
    third = {r["scenario"] for r in rows if r["split"] == "heldout3"}
    assert len(second) >= 12 and not second & (dev | test | held)
    assert len(third) >= 12 and not third & (dev | test | held | second)
    fourth = {r["scenario"] for r in rows if r["split"] == "heldout4"}
    assert len(fourth) >= 16 and not fourth & (dev | test | held | second | third)
