"""Talk that says nothing does not pay: the training reward's efficiency has a fixed horizon.

The benchmark's EFF divides by the rounds the episode actually played, so "Thanks, noted."
messages after the real ones lengthen the episode and raise it (the paper's metric, kept as is
for the benchmark). ``JudgeReward`` measures EFF over a fixed horizon of env turns instead
(``eff_horizon``, default the env's ``max_turns``), so the same filler cannot raise a reward.
"""

from __future__ import annotations

import asyncio
import statistics
from typing import Any

import pytest

import scenarios
import sotopia_tom_env
from policies.play import EpisodeResult, play_episode
from policies.scripted import IdealPlayer
from rewards import JudgeReward, RuleJudge, score
from rewards.informing import informative_ia
from rewards.metrics import fixed_horizon, horizon_rounds
from rewards.reward import EFF_HORIZON, agent_reward
from sotopia_tom_env import AgentAction

GOLD = scenarios.load("gold")[::8]  # 20 scenarios, every sector
FILLER = "Thanks, noted."


class Chatty:
    """The ideal player plus ``extra`` filler messages, said before its plan or after it."""

    name = "chatty"

    def __init__(self, agent: str, scenario: scenarios.Scenario, extra: int, first: bool) -> None:
        self.inner = IdealPlayer(agent, scenario)
        self.extra, self.first = extra, first

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self.inner.reset(observation, info)
        self.left = self.extra

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        if self.first and self.left:
            self.left -= 1
            return AgentAction.speak(FILLER)
        action = await self.inner.act(observation, info)
        if action.action_type != "speak" and self.left:  # done with the plan: chat instead
            self.left -= 1
            return AgentAction.speak(FILLER)
        return action


def play(s: scenarios.Scenario, extra: int = 0, first: bool = False) -> EpisodeResult:
    env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(), scenarios=[s])
    return asyncio.run(play_episode(env, lambda a, sc: Chatty(a, sc, extra, first)))


@pytest.mark.parametrize("extra", [2, 4])
def test_filler_raises_the_papers_eff_but_not_the_training_reward(extra):
    paper_eff, paper_cm = [], []
    for s in GOLD:
        base, chatty = play(s), play(s, extra)
        assert chatty.transcript.rounds > base.transcript.rounds
        paper_eff.append(
            chatty.final_infos["agent_0"]["scores"]["EFF"]
            - base.final_infos["agent_0"]["scores"]["EFF"]
        )
        paper_cm.append(
            chatty.final_infos["agent_0"]["scores"]["CM"]
            - base.final_infos["agent_0"]["scores"]["CM"]
        )
        for a in base.returns:
            assert chatty.returns[a] <= base.returns[a] + 1e-9, (s.id, a)
    # The benchmark's metric does reward the filler: this test would catch a reward that used it.
    assert statistics.mean(paper_eff) > 0.05 and statistics.mean(paper_cm) > 0.01


def test_filler_before_the_real_messages_lowers_the_training_reward():
    lower = 0
    for s in GOLD:
        base, chatty = play(s), play(s, extra=2, first=True)
        for a in base.returns:
            assert chatty.returns[a] <= base.returns[a] + 1e-9, (s.id, a)
            lower += chatty.returns[a] < base.returns[a] - 1e-9
    assert lower > 0  # its acquisitions come later in a horizon that does not move


def test_the_horizon_is_the_longest_episode_the_env_can_play():
    s = GOLD[0]
    r = play(s)
    sc = score(RuleJudge().judge(s, r.transcript), s, r.transcript.rounds)
    h = horizon_rounds(EFF_HORIZON, len(s.agents))
    fixed = fixed_horizon(sc, h)
    assert fixed is not None and h == 20 and r.transcript.rounds < h
    ia = informative_ia(s, RuleJudge().evidence_all(s, r.transcript))
    for a, role in zip(r.returns, s.roles, strict=True):
        info = r.final_infos[a]
        assert info["reward_scores"]["eff"] == fixed.per_agent[role].eff
        assert info["reward_scores"]["ia"] == ia[role]  # asks before receipt (rewards.informing)
        assert info["agent_scores"] == sc.per_agent[role].model_dump()  # the paper's, unchanged
        expected = agent_reward(sc, role, eff_horizon=EFF_HORIZON, ia=ia[role])
        assert r.returns[a] == pytest.approx(expected)


def test_the_papers_eff_stays_available_to_a_reward():
    s = GOLD[0]
    env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(eff_horizon=None), scenarios=[s])
    r = asyncio.run(play_episode(env, lambda a, sc: IdealPlayer(a, sc)))
    info = r.final_infos["agent_0"]
    assert info["reward_scores"] == info["agent_scores"]
    assert r.returns["agent_0"] == pytest.approx(info["agent_scores"]["cm"])


@pytest.mark.parametrize("bad", [0, -3, 2.5])
def test_a_horizon_must_be_a_positive_number_of_turns(bad):
    with pytest.raises(ValueError, match="eff_horizon"):
        JudgeReward(eff_horizon=bad)
