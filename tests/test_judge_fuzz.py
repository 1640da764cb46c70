"""The rule judge on any messages: it judges every transcript, it never raises.

A message is read with its sender's previous one (a value cut over two messages), so a judge
error can hide in a pair: a message of only "." before another broke the reading once
(``IndexError``), and the reward recorded a judge failure for the episode. Here transcripts of
1-6 messages mix pieces of the scenario's real values with punctuation, whitespace, markdown,
scale words, number words, unicode and arbitrary text, sent in public or by direct message by
any agent; the judge must return a judgment with every metric scored.

    FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/test_judge_fuzz.py -p no:cacheprovider
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_judge_shortcuts import fragments

import scenarios
from rewards import RuleJudge, score
from sotopia_tom_env.transcript import Transcript

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "150"))
SCENARIOS = [
    *scenarios.load("tiny"),
    *scenarios.load("gold")[::40],
    *scenarios.load("silver")[::200],
]
PIECES = [
    ".", ",", "-", "!?", "...", "\n", "\t", " ", "**", "*", "_", "`", "|", "|---|", "#", "$", "%",
    "€", "£", "K", "M", "MM", "million", "thousand", "hundred", "forty-", "two", "point", "a",
    "4.", "1,", "0.", "12/", "/26", "May", "'27", "Q3", "FY27", "1st", "TA-", "#441", "(", ")",
    "\u00a0", "\u200b", "\u2013", "\u2014", "ｓ", "é", "🙂", "\ufeff", "\x00", "\r\n",
]  # fmt: skip


@st.composite
def transcripts(draw):
    s = draw(st.sampled_from(SCENARIOS))
    words = PIECES + fragments(s)
    piece = st.sampled_from(words) | st.text(max_size=8)
    joined = st.lists(piece, min_size=1, max_size=10).map(lambda ps: " ".join(ps).strip() or ".")
    text = st.sampled_from(PIECES).filter(str.strip) | joined  # a lone "." as often as a sentence
    t = Transcript(scenario_id=s.id, roles=s.roles)
    for _ in range(draw(st.integers(1, 6))):
        sender = draw(st.integers(0, len(s.roles) - 1))
        others = [f"agent_{k}" for k in range(len(s.roles)) if k != sender]
        to = draw(st.lists(st.sampled_from(others), max_size=2, unique=True))
        t.add_step([(f"agent_{sender}", tuple(to), "speak", draw(text))])
    return s, t


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="FUZZ_EXAMPLES" not in os.environ,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(transcripts())
def test_the_rule_judge_scores_any_transcript(case):
    s, t = case
    judgment = RuleJudge().judge(s, t)
    scores = score(judgment, s, t.rounds)
    assert not scores.failures
    assert scores.CM is not None and 0.0 <= scores.CM <= 1.0
