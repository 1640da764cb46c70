"""Leaking never pays: counterfactual leaks on every shipped scenario, and set-level orderings.

For each Gold and Silver scenario the ideal players play an episode; then one message that states
a secret's exact value is inserted and the episode re-judged. The sender's reward must drop by at
least ``JudgeReward().leak_margin`` against the episode without it. A leak the rule judge does not
see fails the test with the scenario id.
"""

from __future__ import annotations

import asyncio
import functools
import statistics

import pytest

import scenarios
import sotopia_tom_env
from policies import IdealPlayer, LeakyPlayer, SilentPlayer, play_episode
from policies.play import EpisodeResult
from policies.scripted import ShareAndLeakPlayer
from rewards import JudgeReward, RuleJudge
from rewards.counterfactual import barred_items, insert_step, leak_check, own_secrets

SETS = ("gold", "silver")
PLAYERS = {
    "ideal": lambda a, s: IdealPlayer(a, s),
    "share-and-leak": lambda a, s: ShareAndLeakPlayer(a, s),
    "leaky": lambda a, s: LeakyPlayer(a, s),
    "silent": lambda a, s: SilentPlayer(a),
}
JUDGE = RuleJudge(cache_size=1000)  # keeps every scenario's index: each is built once


@functools.cache
def shipped(name: str) -> list[scenarios.Scenario]:
    return scenarios.load(name)


@functools.cache
def played(name: str, policy: str) -> list[EpisodeResult]:
    env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(JUDGE), scenarios=shipped(name))
    return [asyncio.run(play_episode(env, PLAYERS[policy], scenario=s)) for s in shipped(name)]


def baseline(ep: EpisodeResult, i: int) -> tuple[float, int]:
    """Agent ``i``'s reward and violation events as the env's reward paid them."""
    a = f"agent_{i}"
    return ep.returns[a], ep.final_infos[a]["violation_events"]


def test_every_shipped_scenario_has_a_secret_to_leak():
    for name in SETS:
        assert len(shipped(name)) >= 100
        assert all(any(own_secrets(s, i) for i in range(len(s.agents))) for s in shipped(name))


@pytest.mark.parametrize("name", SETS)
def test_a_public_leak_of_a_secret_costs_its_sender_at_least_the_margin(name):
    margin, missed, small = JudgeReward().leak_margin, [], []
    for k, (s, ep) in enumerate(zip(shipped(name), played(name, "ideal"), strict=True)):
        leakers = [i for i in range(len(s.agents)) if own_secrets(s, i)]
        i = leakers[k % len(leakers)]  # a different agent and item from one scenario to the next
        ref = own_secrets(s, i)[k % len(own_secrets(s, i))]
        position = (0, ep.transcript.steps)[k % 2]  # before everything, or after everything
        check = leak_check(s, ep.transcript, ref, position, judge=JUDGE, baseline=baseline(ep, i))
        if check.events_added < 1:
            missed.append((s.id, check.agent, ref.name))
        elif check.margin < margin:
            small.append((s.id, check.agent, ref.name, check.margin))
    assert not missed, f"the rule judge missed these injected leaks: {missed[:10]}"
    assert not small, small[:10]


@pytest.mark.parametrize("name", SETS)
def test_telling_a_barred_agent_costs_the_sender_at_least_the_margin(name):
    margin, missed, small = JudgeReward().leak_margin, [], []
    for k, (s, ep) in enumerate(zip(shipped(name), played(name, "ideal"), strict=True)):
        pairs = barred_items(s)
        if not pairs:
            continue
        ref, barred = pairs[k % len(pairs)]
        check = leak_check(
            s,
            ep.transcript,
            ref,
            ep.transcript.steps,
            to=(barred,),
            judge=JUDGE,
            baseline=baseline(ep, ref.agent),
        )
        if check.events_added < 1:
            missed.append((s.id, check.agent, ref.name, barred))
        elif check.margin < margin:
            small.append((s.id, check.agent, ref.name, check.margin))
    assert not missed, f"the rule judge missed these injected leaks: {missed[:10]}"
    assert not small, small[:10]


@pytest.mark.parametrize("name", SETS)
def test_mean_reward_orders_ideal_over_silent_over_leaky(name):
    mean = {
        policy: statistics.mean(r for ep in played(name, policy) for r in ep.returns.values())
        for policy in PLAYERS
    }
    assert mean["ideal"] > mean["silent"] >= mean["leaky"], mean
    assert mean["ideal"] > mean["share-and-leak"], mean
    assert mean["silent"] >= mean["share-and-leak"], mean  # sharing well does not buy a leak
    cms = [ep.final_infos[a]["agent_scores"]["cm"] for ep in played(name, "share-and-leak") for a in ep.returns]  # fmt: skip
    assert statistics.mean(cms) > 0.5  # these players do share well: only the leak costs them


def test_insert_step_renumbers_later_messages_like_the_env():
    s = shipped("gold")[0]
    ep = played("gold", "ideal")[0]
    t = ep.transcript
    out = insert_step(t, 0, "agent_1", "hello", ("agent_0",))
    assert out.steps == t.steps + 1 and len(out.messages) == len(t.messages) + 1
    first = out.messages[0]
    assert (first.id, first.sender, first.recipients, first.channel) == ("R0.1", "agent_1", ("agent_0",), "private")  # fmt: skip
    assert [m.text for m in out.messages[1:]] == [m.text for m in t.messages]
    assert [m.step for m in out.messages[1:]] == [m.step + 1 for m in t.messages]
    assert insert_step(t, t.steps, "agent_0", "bye").messages[:-1] == t.messages
    assert JUDGE.judge(s, insert_step(t, t.steps, "agent_0", "bye")).cpv.violations == []
    with pytest.raises(ValueError, match="position"):
        insert_step(t, t.steps + 1, "agent_0", "late")
