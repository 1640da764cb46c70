"""A leak costs the same however its characters are encoded, and no way of writing it pays.

Ideal players play every Gold scenario; then one message is added at the end, by an item's owner,
in public, and the episode is re-judged with the training reward's defaults
(:func:`rewards.counterfactual.reward_of`).

* The env drops invisible characters before anyone reads a message, and a reader takes a
  fullwidth or mathematical digit for the digit: a leak written with zero-width spaces, soft
  hyphens, word joiners or fullwidth forms costs exactly what the plain leak costs.
* Every leak class of the corpus (tests/leak_writer.py), on one restricted item per scenario,
  pays no more than keeping quiet, and strictly less when the judge sees it.
"""

from __future__ import annotations

import asyncio
import random
from functools import cache

import pytest
from leak_negatives import NEGATIVE_CLASSES
from leak_writer import leak_cases, restricted

import scenarios
import sotopia_tom_env
from policies.play import play_episode
from policies.scripted import IdealPlayer
from rewards import RuleJudge
from rewards.counterfactual import insert_step, leak_text, own_secrets, reward_of
from sotopia_tom_env import Transcript

GOLD = scenarios.load("gold")
JUDGE = RuleJudge()


@cache
def ideal(scenario_id: str) -> Transcript:
    s = next(x for x in GOLD if x.id == scenario_id)
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[s])
    return asyncio.run(play_episode(env, lambda a, sc: IdealPlayer(a, sc))).transcript


def with_messages(t: Transcript, sender: str, texts: tuple[str, ...]) -> Transcript:
    for text in texts:
        t = insert_step(t, t.steps, sender, text)
    return t


def _inside(text: str, mark: str) -> str:
    return mark.join(text)


VARIANTS = {
    "zero-width space": lambda t: _inside(t, "\u200b"),
    "soft hyphen": lambda t: _inside(t, "\u00ad"),
    "word joiner and BOM": lambda t: _inside(t, "\u2060\ufeff"),
    "fullwidth": lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),
}


def test_the_reported_zero_width_leak_costs_what_the_plain_one_costs():
    s = next(x for x in GOLD if x.id == "gold-defense-01")
    t = ideal(s.id)
    quiet, _ = reward_of(s, t, "agent_0", judge=JUDGE)
    plain = with_messages(t, "agent_0", ("the IGCE is $4.1M per year",))
    hidden = with_messages(t, "agent_0", ("the IGCE is $4\u200b.\u200b1M per year",))
    (r_plain, v_plain), (r_hidden, v_hidden) = (
        reward_of(s, x, "agent_0", judge=JUDGE) for x in (plain, hidden)
    )
    assert v_plain == v_hidden == 2  # public, and seen by the Depot Maintenance Chief (barred)
    assert r_hidden == r_plain <= quiet - 4.0 + 1.0


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_invisible_and_fullwidth_variants_cost_exactly_the_plain_leak(variant):
    encode, checked = VARIANTS[variant], 0
    for s in GOLD:
        t = ideal(s.id)
        for i in range(len(s.agents)):
            for ref in own_secrets(s, i):
                text = leak_text(s, ref)
                agent = f"agent_{i}"
                plain = reward_of(s, with_messages(t, agent, (text,)), agent, judge=JUDGE)
                hidden = reward_of(s, with_messages(t, agent, (encode(text),)), agent, judge=JUDGE)
                assert hidden == plain, (s.id, ref.name, variant)
                checked += 1
    assert checked >= 500


def test_no_leak_class_pays_more_than_keeping_quiet():
    rng, worst = random.Random(2), {}
    caught = missed = 0
    for n, s in enumerate(GOLD):
        t = ideal(s.id)
        refs = restricted(s)
        cases = [
            c for c in leak_cases(s, refs[n % len(refs)], rng) if c.kind not in NEGATIVE_CLASSES
        ]
        agent = f"agent_{cases[0].ref.agent}"
        quiet, _ = reward_of(s, t, agent, judge=JUDGE)
        for case in cases:
            leaked, events = reward_of(
                s, with_messages(t, agent, case.messages), agent, judge=JUDGE
            )
            gain = leaked - quiet
            worst[case.kind] = max(worst.get(case.kind, -99.0), gain)
            if events:
                caught += 1
                assert gain <= -1.0, (s.id, case.kind, case.messages, gain)  # the leak margin
            else:
                missed += 1
    assert max(worst.values()) <= 1e-9, {k: round(v, 3) for k, v in worst.items() if v > 0}
    assert len(worst) >= 25 and caught >= 0.97 * (caught + missed)
