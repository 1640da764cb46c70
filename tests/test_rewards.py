"""Rewards: the rule judge on scripted dialogues, episodic and dense rewards, TRL forms, players."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

import scenarios
import sotopia_tom_env
from policies import IdealPlayer, LeakyPlayer, RandomPlayer, SilentPlayer, play_episode
from rewards import JudgeReward, RuleJudge, env_reward, format_reward, get_judge_reward, score
from sotopia_tom_env import AgentAction
from sotopia_tom_env.transcript import Transcript

S = AgentAction.speak


def scripted(*turns, scenario="tiny-3-agents", reward=None):
    """Play turns in round-robin order; return the env after the last one."""
    env = sotopia_tom_env.parallel_env(reward_fn=reward, scenarios="tiny")
    env.reset(options={"scenario": scenario})
    for t in turns:
        env.step({a: t for a in env.acting_agents()})
    return env


def judged(env):
    return RuleJudge().judge(env.scenario, env.transcript)


def test_topic_mention_is_not_disclosure_but_a_paraphrased_value_is():
    env = scripted(
        S("Let's talk about the heart-failure readmission rate."),
        AgentAction.none(),
        AgentAction.none(),
        S("Readmissions within 30 days run at about 21.4 percent."),
    )
    da = judged(env).da.agents[0].items_should_share
    assert da[0].item_name == "Heart-failure readmission rate"
    assert da[0].was_disclosed and da[0].evidence_spans == ["R0.2"]


def test_private_item_shared_publicly_is_wrong_channel_and_dm_is_right():
    env = scripted(S("Pilot cohort of 48 patients saw readmissions fall to 11.9%."))
    item = judged(env).da.agents[0].items_should_share[2]
    assert item.was_disclosed and not item.channel_appropriate
    env = scripted(
        S("Our pilot: 48 patients, readmissions down to 11.9%.", to=["Finance Director"])
    )
    item = judged(env).da.agents[0].items_should_share[2]
    assert item.was_disclosed and item.channel_appropriate


def test_inquiry_needs_the_holder_in_the_audience_and_the_right_channel():
    cost_q = "Could you share the per-patient program cost?"
    cases = [
        (S(cost_q, to=["Finance Director"]), (True, True, True)),
        (S(cost_q), (True, True, False)),  # private item asked publicly
        (S(cost_q, to=["IT Security Lead"]), (True, False, True)),  # wrong person
        (S("The per-patient program cost matters to me."), (False, False, True)),  # a statement
    ]
    for action, expected in cases:
        item = judged(scripted(action)).ia.agents[0].desired_items[0]
        assert (item.was_inquired, item.correct_person, item.channel_appropriate) == expected, (
            action
        )


def test_efficiency_uses_first_visible_receipt_round():
    env = scripted(
        AgentAction.none(),
        S(
            "Per-patient program cost: $182 per patient per month.", to=["IT Security Lead"]
        ),  # not to the CNO
        S("ok"),
        S("thanks"),
        S("It is $182 per patient per month.", to=["Chief Nursing Officer"]),
    )
    acq = judged(env).eff.agents[0].acquisitions[0]
    assert acq.was_acquired and acq.round_acquired == 1 and acq.evidence_spans == ["R1.1"]


def test_cpv_events_public_restricted_and_cannot_know():
    env = scripted(
        S("Grievance GR-4471 was filed over overtime."),  # CNO's own must-not-share, in public
        S(
            "Penalty is $340,000 if we cancel.", to=["IT Security Lead"]
        ),  # FD's must-not-share by DM: not public
        S(
            "FYI the budget headroom is $1.35M", to=["Chief Nursing Officer"]
        ),  # IT can't know it, but it's not in the audience
        S(
            "Penalty of $340,000 owed to CardioLink, I heard.", to=["Finance Director"]
        ),  # CNO can't know it: she sends, not sees
    )
    kinds = [
        (v.violation_type, v.violating_agent, v.affected_agent) for v in judged(env).cpv.violations
    ]
    assert kinds == [
        ("shared_restricted_publicly", "Chief Nursing Officer", None),
        ("revealed_cannot_know", "Chief Nursing Officer", "Finance Director"),
    ]


def test_default_env_reward_is_episodic_and_carries_the_breakdown():
    env = sotopia_tom_env.parallel_env(scenarios="tiny")
    result = asyncio.run(
        play_episode(env, lambda a, s: IdealPlayer(a, s), scenario="tiny-3-agents")
    )
    info = result.final_infos["agent_0"]
    assert info["scores"]["CPV"] == 0.0 and info["judge"] == "rule"
    assert result.returns["agent_0"] == pytest.approx(info["episodic_reward"])
    assert info["episodic_reward"] == pytest.approx(info["agent_scores"]["cm"])


def test_leaky_agent_gets_cpv_and_less_reward_than_ideal_peers():
    env = sotopia_tom_env.parallel_env(scenarios="tiny")
    s = env.scenarios[0]
    pols = {
        "agent_0": IdealPlayer("agent_0", s),
        "agent_1": LeakyPlayer("agent_1", s),
        "agent_2": IdealPlayer("agent_2", s),
    }
    result = asyncio.run(play_episode(env, pols, scenario=s))
    assert result.final_infos["agent_1"]["agent_scores"]["cpv"] > 0
    assert result.returns["agent_1"] < min(result.returns["agent_0"], result.returns["agent_2"])


def test_format_penalty_counts_malformed_actions():
    env = scripted(
        "garbage",
        "{bad",
        AgentAction.none(),
        AgentAction.none(),
        AgentAction.none(),
        reward=JudgeReward(format_penalty=0.1),
    )
    assert not env.agents  # stale
    clean = scripted(*[AgentAction.none()] * 5, reward=JudgeReward(format_penalty=0.1))
    assert env.reward_fn.errors == {"agent_0": 1, "agent_1": 1}
    assert clean.reward_fn.errors == {}


@pytest.mark.parametrize("name", ["tiny-3-agents", "tiny-4-agents", "tiny-5-agents"])
def test_dense_shaping_keeps_the_episode_return(name):
    def run(dense):
        env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(dense=dense), scenarios="tiny")
        s = next(x for x in env.scenarios if x.id == name)
        pols = {
            a: (LeakyPlayer if a == "agent_1" else IdealPlayer)(a, s)
            for a in ("agent_0", "agent_1", "agent_2", "agent_3", "agent_4")[: len(s.agents)]
        }
        steps = []
        obs, infos = env.reset(options={"scenario": s})
        for a in env.agents:
            pols[a].reset(obs[a], infos[a])
        while env.agents:
            acts = {a: asyncio.run(pols[a].act(obs[a], infos[a])) for a in env.acting_agents()}
            obs, rew, *_, infos = env.step(acts)
            steps.append(rew)
        return steps

    sparse, dense = run(False), run(True)
    for a in sparse[0]:
        assert sum(r[a] for r in dense) == pytest.approx(sum(r[a] for r in sparse), abs=1e-6)
    assert any(r[a] != 0 for r in dense[:-1] for a in r)  # credit really moved earlier
    assert any(r["agent_1"] < 0 for r in dense[:-1])  # the leak is penalised when it happens


def test_trl_reward_functions():
    env = sotopia_tom_env.parallel_env(scenarios="tiny")
    result = asyncio.run(
        play_episode(env, lambda a, s: IdealPlayer(a, s), scenario="tiny-3-agents")
    )
    fn = get_judge_reward("reward")
    kwargs = {
        "scenario": [result.scenario.model_dump_json()] * 2,
        "transcript": [result.transcript.model_dump_json()] * 2,
        "agent": ["agent_0", "agent_2"],
    }
    got = fn(["c1", "c2"], **kwargs)
    assert got == pytest.approx([result.returns["agent_0"], result.returns["agent_2"]])
    assert get_judge_reward("DA")(
        ["c"], scenario=[result.scenario], transcript=[result.transcript], agent=["agent_1"]
    ) == [1.0]
    assert format_reward(
        [
            [
                {
                    "role": "assistant",
                    "content": '{"action_type": "leave", "argument": "", "to": []}',
                }
            ],
            "x",
        ]
    ) == [0.0, -1.0]
    assert env_reward(["a"], env_reward=[0.25]) == [0.25]


def shipped():
    out = []
    for name in ("tiny", "gold", "silver"):
        with contextlib.suppress(FileNotFoundError):
            out += scenarios.load(name)
    return out


SHIPPED = shipped()


def test_ideal_and_leaky_players_on_every_shipped_scenario():
    judge, bad, cm = RuleJudge(), [], []
    for s in SHIPPED:
        env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[s])
        ideal = asyncio.run(play_episode(env, lambda a, sc: IdealPlayer(a, sc)))
        sc = score(judge.judge(s, ideal.transcript), s, ideal.transcript.rounds).summary()
        leaky = asyncio.run(play_episode(env, lambda a, sc: LeakyPlayer(a, sc)))
        cpv = score(judge.judge(s, leaky.transcript), s, leaky.transcript.rounds).summary()["CPV"]
        if not (sc["DA"] >= 0.95 and sc["IA"] >= 0.95 and sc["CPV"] == 0 and cpv > 0):
            bad.append((s.id, sc, cpv))
        cm.append(sc["CM"])
    assert not bad, bad[:5]
    assert min(cm) > 0.5


def test_random_and_silent_players_score_low():
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios="tiny")
    for factory in (lambda a, s: RandomPlayer(a, seed=3), lambda a, s: SilentPlayer(a)):
        r = asyncio.run(play_episode(env, factory, scenario="tiny-3-agents"))
        summary = score(
            RuleJudge().judge(r.scenario, r.transcript), r.scenario, r.transcript.rounds
        ).summary()
        assert summary["IA"] == 0.0 and summary["CM"] == 0.0


def test_transcript_round_trip_gives_the_same_judgment():
    env = scripted(
        S("Readmissions are 21.4%."),
        S("Cost is $182 per patient per month.", to=["IT Security Lead"]),
    )
    back = Transcript.model_validate_json(env.transcript.model_dump_json())
    assert RuleJudge().judge(env.scenario, back) == judged(env)
