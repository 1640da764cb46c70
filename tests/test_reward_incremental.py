"""The reward's incremental judgment equals a judgment of the whole transcript from scratch.

``JudgeReward`` analyses each message as it arrives and the rule judge's last-step judgment
reuses that evidence. Random episodes (values, pieces of values, requests, fractions and time
words with and without what they need, direct messages, silence, leaving) are played with the
episodic and the dense reward; the final rewards, the scores in ``infos`` and the judgment must
be exactly those of a fresh judge given the finished transcript.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_judge_shortcuts import fragments  # the same mix of values, asks and filler words

import scenarios
import sotopia_tom_env
from rewards import JudgeReward, RuleJudge, agent_reward, score
from rewards.informing import informative_ia
from rewards.relay import relay_events
from rewards.reward import EFF_HORIZON

SCENARIOS = [*scenarios.load("tiny"), *scenarios.load("gold")[::16]]


def _action(rng: random.Random, s: scenarios.Scenario, me: str, words: list[str]) -> dict:
    kind = rng.choices(["speak", "none", "leave"], weights=[12, 3, 1])[0]
    if kind != "speak":
        return {"action_type": kind, "argument": "", "to": []}
    others = [r for r in s.roles if r != me]
    to = rng.sample(others, k=rng.choice([0, 0, 1, min(2, len(others))]))
    text = " ".join(rng.choices(words, k=rng.randint(1, 12)))
    return {"action_type": "speak", "argument": text, "to": to}


@settings(max_examples=40, deadline=None)
@given(
    which=st.integers(0, len(SCENARIOS) - 1),
    seed=st.integers(0, 2**32 - 1),
    dense=st.booleans(),
    simultaneous=st.booleans(),
)
def test_incremental_judgment_equals_a_judgment_from_scratch(which, seed, dense, simultaneous):
    s, rng = SCENARIOS[which], random.Random(seed)
    reward = JudgeReward(dense=dense)
    env = sotopia_tom_env.parallel_env(
        reward_fn=reward,
        scenarios=[s],
        max_turns=rng.randint(1, 30),
        turn_order="simultaneous" if simultaneous else "round-robin",
    )
    env.reset(seed=seed, options={"scenario": s})
    words, returns, infos = fragments(s), dict.fromkeys(env.agents, 0.0), {}
    while env.agents:
        roles = {a: s.roles[env.roster.index_of[a]] for a in env.acting_agents()}
        actions = {a: _action(rng, s, role, words) for a, role in roles.items()}
        _, rewards, _, _, infos = env.step(actions)
        for a, r in rewards.items():
            returns[a] += r

    fresh = RuleJudge().judge(s, env.transcript)
    assert reward.judge.judge(s, env.transcript, reward.evidence) == fresh
    scores = score(fresh, s, env.transcript.rounds)
    for a, role in zip(env.possible_agents, s.roles, strict=True):
        errors = infos[a]["malformed_actions"]
        evidence = RuleJudge().evidence_all(s, env.transcript)
        relayed, ia = relay_events(s, evidence)[a], informative_ia(s, evidence)[role]
        expected = agent_reward(
            scores, role, errors, eff_horizon=EFF_HORIZON, relays=relayed, ia=ia
        )
        assert infos[a]["judge_failed"] is False
        assert infos[a]["episodic_reward"] == expected
        assert infos[a]["scores"] == scores.summary()
        assert infos[a]["agent_scores"] == scores.per_agent[role].model_dump()
        assert abs(returns[a] - expected) < 1e-9
