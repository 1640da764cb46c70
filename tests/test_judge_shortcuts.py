"""The rule judge's shortcuts never change a verdict.

``ScenarioIndex.disclosed`` skips atom extraction for messages without a digit, a number word or
a word of some name or letter code in the values; ``requested`` only scores items sharing a word
with the sentence. Here the same messages are judged with the shortcuts disabled (every word a
trigger, every item near) and the answers must be identical.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import scenarios
from rewards.judges.evidence import ScenarioIndex, _aliases, _topic_score

SCENARIOS = [*scenarios.load("tiny"), *scenarios.load("gold")[::16]]
FILLER = [
    "Thanks", "could you tell me", "what is the", "please share", "I think", "we should",
    "before Friday", "the Board", "one of the", "a hundred", "?", ".", "Harbor", "about",
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


def brute_requested(idx: ScenarioIndex, text: str, sender: int, refs: list) -> set:
    """``requested`` scoring every other agent's item for every request sentence."""
    from rewards.judges.evidence import _KIND_CUES, request_sentences
    from scenarios.values import stems

    out = set()
    others = [f for r, f in idx.items.items() if r.agent != sender]
    for sentence in request_sentences(text):
        words = stems(sentence) - idx.role_words
        low = sentence.lower()
        cues = frozenset(i for i, (cue, _) in enumerate(_KIND_CUES) if cue.search(low))
        best = max((_topic_score(words, cues, f, f.topic) for f in others), default=0.0)
        for ref in refs:
            facts = idx.items[ref]
            aliases = _aliases(idx.scenario, sender).get(ref, ())
            topics = [facts.topic, *(idx._topic(t) for t in aliases)]
            score = max(_topic_score(words, cues, facts, t) for t in topics if t)
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
    assert fast.disclosed(text) == full.disclosed(text), text
    for sender in range(len(s.agents)):
        res = s.resolution
        refs = [r for r in res.desired[sender] + res.cannot_know[sender] if r is not None]
        assert fast.requested(text, sender) == brute_requested(full, text, sender, refs), text
