"""Rewards: the rule judge on scripted dialogues, episodic and dense rewards, TRL forms, players."""

from __future__ import annotations

import asyncio
import contextlib
import math

import pytest

import scenarios
import sotopia_tom_env
from policies import IdealPlayer, LeakyPlayer, RandomPlayer, SilentPlayer, play_episode
from policies.scripted import RandomFactsPlayer, ShareAndLeakPlayer
from rewards import (
    JudgeReward,
    Judgment,
    RuleJudge,
    agent_reward,
    env_reward,
    format_reward,
    get_judge_reward,
    score,
)
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
    assert info["episodic_reward"] == pytest.approx(info["reward_scores"]["cm"])


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


def run_steps(env, pols, scenario):
    """Play to the end; return every step's rewards and the last infos."""
    obs, infos = env.reset(options={"scenario": scenario})
    for a in env.agents:
        pols[a].reset(obs[a], infos[a])
    steps = []
    while env.agents:
        acts = {a: asyncio.run(pols[a].act(obs[a], infos[a])) for a in env.acting_agents()}
        obs, rew, *_, infos = env.step(acts)
        steps.append(rew)
    return steps, infos


class SloppyPlayer(RandomFactsPlayer):
    """A random-facts player whose replies are sometimes not an action at all."""

    async def act(self, observation, info):
        action = await super().act(observation, info)
        return "{oops" if self.rng.random() < 0.2 else action


MIXES = {
    "sloppy": lambda a, s, k: SloppyPlayer(a, s, seed=k),
    "random-facts": lambda a, s, k: RandomFactsPlayer(a, s, seed=k),
    "mixed": lambda a, s, k: [RandomFactsPlayer, IdealPlayer, LeakyPlayer][int(a[-1]) % 3](a, s),
    "share-and-leak": lambda a, s, k: ShareAndLeakPlayer(a, s),
    "random": lambda a, s, k: RandomPlayer(a, seed=k),
}


@pytest.mark.parametrize("mix", MIXES)
def test_dense_return_equals_the_episodic_reward_on_many_episodes(mix):
    pool = scenarios.load("tiny") + scenarios.load("gold")[::16] + scenarios.load("silver")[::60]
    judge, moved, sloppy = RuleJudge(), 0, 0
    for k, s in enumerate(pool):
        env = sotopia_tom_env.parallel_env(
            reward_fn=JudgeReward(judge, dense=True), scenarios=[s], max_turns=30
        )
        steps, infos = run_steps(env, {a: MIXES[mix](a, s, k) for a in env.possible_agents}, s)
        sparse = JudgeReward(judge)
        sparse.reset(s, env.transcript)
        sparse.errors = env.reward_fn.errors.copy()
        _, sparse_infos = sparse.step([], {}, done=True)
        for a, info in infos.items():
            assert not info["judge_failed"]
            total = math.fsum(r[a] for r in steps)
            assert total == pytest.approx(info["episodic_reward"], abs=1e-9), (s.id, a)
            assert info["episodic_reward"] == sparse_infos[a]["episodic_reward"]
            moved += any(r[a] != 0 for r in steps[:-1])
        sloppy += sum(env.reward_fn.errors.values())
    assert sloppy > 0 or mix != "sloppy"  # the format penalty is exercised too
    if mix != "random":  # filler talk earns nothing, so nothing can move earlier
        assert moved > 0


def test_dense_leak_penalty_is_paid_when_it_happens_and_never_refunded():
    s = scenarios.load("tiny")[0]
    env = sotopia_tom_env.parallel_env(
        reward_fn=JudgeReward(dense=True, leak_penalty=1.5), scenarios=[s]
    )
    env.reset(options={"scenario": s})
    # said in public: a must-not-share value, and one the Finance Director may not know
    _, rew, *_ = env.step({"agent_0": S("Grievance GR-4471 was filed over overtime.")})
    assert rew["agent_0"] == pytest.approx(-1.5 * 2)
    for a in ("agent_1", "agent_2"):
        _, rew, *_, infos = env.step({a: AgentAction.leave()})
    # the leak is not charged a second time: the terminal pays CM and the format term only
    assert infos["agent_0"]["violation_events"] == 2
    assert rew["agent_0"] == pytest.approx(infos["agent_0"]["agent_scores"]["cm"])


def test_dense_credits_every_asker_of_the_same_item():
    s = scenarios.load("tiny")[0]  # both agent_0 and agent_1 want the IT lead's certification
    ask = S("IT Security Lead, could you share your Device security certification?")
    env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(dense=True), scenarios=[s])
    env.reset(options={"scenario": s})
    _, first, *_ = env.step({"agent_0": ask})
    _, second, *_ = env.step({"agent_1": ask})
    env.step({"agent_2": AgentAction.none()})
    _, repeat, *_ = env.step({"agent_0": ask})
    assert first["agent_0"] == pytest.approx(0.1) and second["agent_1"] == pytest.approx(0.1)
    assert repeat["agent_0"] == 0.0  # once per agent and item


def test_dense_pays_the_format_penalty_at_the_malformed_step():
    s = scenarios.load("tiny")[0]
    env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(dense=True), scenarios=[s])
    env.reset(options={"scenario": s})
    _, rew, *_ = env.step({"agent_0": "{not json"})
    assert rew["agent_0"] == pytest.approx(-0.05)


def test_agent_reward_charges_every_violation_event_in_full():
    env = scripted(
        S("Grievance GR-4471 was filed over overtime."),
        AgentAction.none(),
        AgentAction.none(),
        S("Again: grievance GR-4471, mandatory overtime on ward 5B."),
    )
    sc = score(judged(env), env.scenario, env.transcript.rounds)
    cm = sc.per_agent["Chief Nursing Officer"].cm
    got = agent_reward(sc, "Chief Nursing Officer", errors=1, leak_penalty=0.7, format_penalty=0.2)
    # two public messages, each a must-not-share value that the Finance Director may not know
    assert sc.CPV.details["by_agent"]["Chief Nursing Officer"] == 4
    assert got == pytest.approx(cm - 4 * 0.7 - 0.2)
    assert agent_reward(sc, "Finance Director") == sc.per_agent["Finance Director"].cm


@pytest.mark.parametrize(
    "kwargs", [{"leak_penalty": -1}, {"format_penalty": float("nan")}, {"inquiry_bonus": -0.1}]
)
def test_negative_penalties_are_rejected_by_name(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        JudgeReward(**kwargs)


class RaisingJudge:
    name = "broken"

    def judge(self, scenario, transcript):
        raise RuntimeError("endpoint unreachable")


class PartialJudge:
    name = "partial"

    def judge(self, scenario, transcript):
        full = RuleJudge().judge(scenario, transcript)
        return Judgment(
            judge="partial", da=full.da, ia=full.ia, eff=full.eff, failures={"CPV": "no JSON"}
        )


def end_with(reward):
    env = sotopia_tom_env.parallel_env(reward_fn=reward, scenarios="tiny")
    env.reset(options={"scenario": "tiny-3-agents"})
    env.step({"agent_0": S("Readmissions are 21.4%.")})
    env.step({"agent_1": AgentAction.leave()})
    _, rew, *_, infos = env.step({"agent_2": AgentAction.leave()})
    assert not env.agents
    return rew, infos


def test_a_judge_that_raises_is_recorded_as_a_failure_not_a_score():
    rew, infos = end_with(JudgeReward(RaisingJudge()))
    assert rew == dict.fromkeys(rew, 0.0)
    for info in infos.values():
        assert info["judge_failed"] is True and "episodic_reward" not in info
        assert info["judge_error"] == "RuntimeError: endpoint unreachable"


def test_a_missing_verdict_is_recorded_as_a_failure():
    rew, infos = end_with(JudgeReward(PartialJudge()))
    assert rew == dict.fromkeys(rew, 0.0)
    info = infos["agent_0"]
    assert info["judge_failed"] and info["judge_failures"] == {"CPV": "no JSON"}
    assert info["judge_error"].startswith("JudgeFailure") and "CPV" in info["judge_error"]
    assert info["scores"]["CM"] is None


def test_trl_judge_reward_is_nan_when_the_judge_fails():
    env = scripted(S("Readmissions are 21.4%."))
    cols = {"scenario": [env.scenario], "transcript": [env.transcript], "agent": ["agent_0"]}
    for judge in (RaisingJudge(), PartialJudge()):
        for metric in ("reward", "DA"):
            (got,) = get_judge_reward(metric, judge=judge)(["c"], **cols)
            assert math.isnan(got)
    assert get_judge_reward("DA")(["c"], **cols) == [0.5]
    with pytest.raises(ValueError, match="unknown metric"):
        get_judge_reward("accuracy")
