"""The rule judge's shortcuts never change a verdict.

``ScenarioIndex.disclosed`` skips atom extraction for messages without a digit, a number word,
a fraction, month or time-unit word the values need (a fraction word only with a numerator or
"half", a time unit only with "a", "an", "one" or "half"), or a word of some name or letter
code in the values, and checks in full only the items a key, a number or an approximation points to;
``requested`` only scores items sharing a word with the sentence. Here the same messages are
judged with the shortcuts disabled (every word a trigger, every item checked, every item near)
and the answers must be identical.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenarios
from rewards.judges.approx import heard
from rewards.judges.evidence import ScenarioIndex, _aliases, _subjects_of, discloses
from rewards.judges.inquiry import cues, focus, pieces, request_sentences, topic_score
from scenarios.values import stems

SCENARIOS = [*scenarios.load("tiny"), *scenarios.load("gold")[::16]]
FILLER = [
    "Thanks", "could you tell me", "what is the", "please share", "I think", "we should",
    "before Friday", "the Board", "one of the", "a hundred", "?", ".", "Harbor", "about",
    "nearly half", "a third of", "a year and a half", "in early March", "roughly", "and",
    "how many", "who knows", "when", ",", "one in five", "just under", "months",
    "quarter", "thirds", "weeks", "year", "days", "half", "an", "three quarters",
]  # fmt: skip


def fragments(s: scenarios.Scenario) -> list[str]:
    """Pieces of real values, item names and roles, for messages that may or may not disclose."""
    out = list(FILLER) + list(s.roles)
    for agent in s.agents:
        for name, item in agent.pre_interaction_knowledge.items():
            words = item.text.split()
            out += [name, item.text, *words, name.lower(), item.text.upper()]
    return out


class Everything(frozenset):
    """A trigger set that intersects every message."""

    def isdisjoint(self, other) -> bool:
        return False


def brute_disclosed(idx: ScenarioIndex, text: str) -> set:
    """``disclosed`` checking every item in full (no candidate lookup)."""
    s = idx.said(text) or heard(text)
    vague = tuple(
        x for x in s.numbers if x.derived or (x.value, x.money, x.percent) not in idx.values
    )
    found = {ref for ref, f in idx.items.items() if discloses(s, f, vague, idx.owns, idx.rival)}
    if found and not idx.everyday.isdisjoint(_subjects_of(text)):  # a date about something else
        found = {ref for ref in found if not idx._elsewhere(text, s, idx.items[ref])}
    return found


def brute_requested(idx: ScenarioIndex, text: str, sender: int, refs: list) -> set:
    """``requested`` scoring every other agent's item for every request sentence and clause."""
    out = set()
    others = [f for r, f in idx.items.items() if r.agent != sender]
    for sentence in request_sentences(text):
        for piece in pieces(sentence):
            words = stems(piece) - idx.role_words
            low = piece.lower()
            asked, wh = cues(low), focus(low)
            best = max((topic_score(words, asked, wh, f, f.topic) for f in others), default=0.0)
            for ref in refs:
                facts = idx.items[ref]
                aliases = _aliases(idx.scenario, sender).get(ref, ())
                topics = [facts.topic, *(idx._topic(t) for t in aliases)]
                score = max(topic_score(words, asked, wh, facts, t) for t in topics if t)
                if score > 0 and score >= best:
                    out.add(ref)
    return out


@settings(max_examples=300, deadline=None)
@given(which=st.integers(0, len(SCENARIOS) - 1), seed=st.integers(0, 2**32 - 1))
def test_shortcuts_give_the_same_verdicts(which: int, seed: int):
    s = SCENARIOS[which]
    rng = random.Random(seed)
    text = " ".join(rng.choices(fragments(s), k=rng.randint(1, 8)))
    fast = ScenarioIndex(s)
    full = ScenarioIndex(s)
    full.triggers = Everything()
    assert fast.disclosed(text) == full.disclosed(text) == brute_disclosed(full, text), text
    for sender in range(len(s.agents)):
        res = s.resolution
        refs = [r for r in res.desired[sender] + res.cannot_know[sender] if r is not None]
        assert fast.requested(text, sender) == brute_requested(full, text, sender, refs), text


@pytest.mark.parametrize(
    ("text", "may_state"),
    [
        ("quarter budget review", False),  # a fraction word without a numerator reads as nothing
        ("weeks of review, years of data", False),  # time units without "a", "one" or "half"
        ("a quarter of the patients", True),
        ("one in five quarters", True),
        ("half the weeks", True),
        ("about a year", True),
        ("quarter: vitals stay in the Ohio region", True),  # a name word triggers on its own
        ("three quarters", True),  # so does a number word
        ("weeks 7", True),
    ],
)
def test_approximation_words_alone_skip_extraction_and_change_nothing(text, may_state):
    s = scenarios.load("tiny")[0]
    fast, full = ScenarioIndex(s), ScenarioIndex(s)
    full.triggers = Everything()
    assert fast._may_state(text) is may_state
    assert fast.disclosed(text) == full.disclosed(text) == brute_disclosed(full, text)
