"""The training reward charges every way a secret gets out and pays only for talk that informs.

Two policies that the paper's metrics pay for are played beside the observable teacher on Gold:
one that also sends its must-not-share facts by direct message to everyone (CPV charges nothing
when nobody is barred from them), and one that first asks to "confirm" every fact it has been
told before going on with its plan (the paper's IA credits an ask whenever it happens). Under
the training reward each earns less than the plain teacher.
"""

from __future__ import annotations

import asyncio
import statistics
from typing import Any

import pytest
from scripted_turns import play_turns

import scenarios
import sotopia_tom_env
from policies import ObservablePlayer, play_episode
from policies.observable import _named_facts
from rewards import JudgeReward
from rewards.informing import informative_ia
from rewards.judges.rule import RuleJudge
from sotopia_tom_env import AgentAction
from sotopia_tom_env.seat import read_seat

GOLD = scenarios.load("gold")[::20]  # 8 scenarios, one a sector


class SecretsByDM(ObservablePlayer):
    """The teacher, whose first direct message also carries its must-not-share facts."""

    def label(self, observation: dict[str, Any]) -> AgentAction:
        action = super().label(observation)
        view = read_seat(observation["text"])
        _, _, never, _ = view.by_rule()
        if action.to and not any(f.text in m.text for f in never for m in view.messages):
            extra = " | ".join(f"{f.name}: {f.text}" for f in never)
            return AgentAction.speak(f"{action.argument} Between us: {extra}.", to=action.to)
        return action


def _open_secrets(s) -> set[str]:
    """Seat 0's must-not-share items from which no agent is barred (CPV never charges them)."""
    barred = {r for refs in s.resolution.cannot_know for r in refs if r is not None}
    return {r.name for r in s.resolution.not_share[0] if r is not None and r not in barred}


class OpenSecretsByDM(SecretsByDM):
    """SecretsByDM that sends only the secrets nobody is barred from (a test cheat: it reads
    the scenario), so the benchmark's CPV cannot see them."""

    def __init__(self, agent: str, names: set[str]) -> None:
        super().__init__(agent)
        self.names = names

    def label(self, observation: dict[str, Any]) -> AgentAction:
        action = ObservablePlayer.label(self, observation)
        view = read_seat(observation["text"])
        never = [f for f in view.by_rule()[2] if f.name in self.names]
        if action.to and never and not any(f.text in m.text for f in never for m in view.messages):
            extra = " | ".join(f"{f.name}: {f.text}" for f in never)
            return AgentAction.speak(f"{action.argument} Between us: {extra}.", to=action.to)
        return action


class ConfirmFirst(ObservablePlayer):
    """The teacher, which first asks each sender to confirm every fact it was told."""

    def label(self, observation: dict[str, Any]) -> AgentAction:
        action = super().label(observation)  # keeps the teacher's own counters going
        view = read_seat(observation["text"])
        said = " ".join(m.text for m in view.messages if m.sender == view.role)
        for m in view.messages:
            names = [n for n, _ in _named_facts(m.text) if f"confirm the {n}?" not in said]
            if m.sender != view.role and m.sender not in view.left and names:
                asks = " ".join(f"Could you confirm the {n}?" for n in names)
                return AgentAction.speak(asks, to=[m.sender])
        return action


def _seat_rewards(s, player: type[ObservablePlayer], seat: int, **reward: Any) -> dict[str, float]:
    """Rewards of one episode: ``player`` in ``seat``, the plain teacher in the others."""
    env = sotopia_tom_env.parallel_env(scenarios=[s], reward_fn=JudgeReward(**reward), max_turns=30)
    ids = [f"agent_{i}" for i in range(len(s.agents))]
    players = {a: (player if i == seat else ObservablePlayer)(a) for i, a in enumerate(ids)}
    result = asyncio.run(play_episode(env, players, scenario=s))
    return {a: info["episodic_reward"] for a, info in result.final_infos.items()}


def _gap(player: Any, sets: list | None = None, **reward: Any) -> list[float]:
    """Per scenario, the seat-0 reward of ``player`` minus the plain teacher's in that seat.

    ``player`` is a player class, or a function of the scenario that returns one.
    """
    return [
        _seat_rewards(s, player if isinstance(player, type) else player(s), 0, **reward)["agent_0"]
        - _seat_rewards(s, ObservablePlayer, 0, **reward)["agent_0"]
        for s in (GOLD if sets is None else sets)
    ]


def test_sending_secrets_by_direct_message_costs_what_a_leak_costs():
    gaps = _gap(SecretsByDM)
    assert max(gaps) <= -JudgeReward().leak_margin  # every scenario, at least the margin


def test_secrets_nobody_is_barred_from_cost_only_under_the_training_reward():
    open_ = [s for s in scenarios.load("gold") if _open_secrets(s)][:6]
    assert len(open_) == 6

    def player(s):
        return lambda agent: OpenSecretsByDM(agent, _open_secrets(s))

    assert max(_gap(player, open_)) <= -JudgeReward().leak_margin
    # The benchmark's CPV misses them: without relay events the habit costs a little DA at most.
    assert min(_gap(player, open_, relays=False)) > -1.0


def test_asking_to_confirm_what_was_told_pays_nothing():
    gaps = _gap(ConfirmFirst)
    assert statistics.mean(gaps) < 0 and max(gaps) <= 1e-9
    # The paper's IA pays for the same asks: with it the habit does not cost.
    old = _gap(ConfirmFirst, informative_ia=False)
    assert statistics.mean(old) >= statistics.mean(gaps) + 0.02


LEGAL = next(x for x in scenarios.load("gold") if x.id == "gold-legal-01")
COST = "Trial through verdict is estimated at $1.35M in fees and expert costs."


def _informative(turns: list[tuple[str, str, list[int]]]) -> dict[str, float]:
    """Informative IA of gold-legal-01 after ``(agent, text, recipient seats)`` turns in order."""
    return informative_ia(LEGAL, RuleJudge().evidence_all(LEGAL, play_turns(LEGAL, turns)))


def test_an_ask_counts_only_before_the_item_arrives():
    """General Counsel (agent_0) and the CFO (agent_2) both need trial counsel's (agent_1) cost
    estimate; the GC needs three items, the CFO three."""
    gc, cfo = LEGAL.roles[0], LEGAL.roles[2]
    asked_first = _informative([
        ("agent_0", "Could you tell me the estimated trial cost?", [1]),
        ("agent_1", COST, []),
    ])  # fmt: skip
    assert asked_first[gc] == pytest.approx(1 / 3, abs=1e-3)
    asked_after = _informative([
        ("agent_0", "Good morning, all.", []),
        ("agent_1", COST, []),
        ("agent_0", "Could you confirm the estimated trial cost?", [1]),
    ])  # fmt: skip
    assert asked_after[gc] == 0.0
    # Told before its first turn, the CFO could not have asked: the item is left out of its IA.
    told_early = _informative([
        ("agent_1", COST, []),
        ("agent_2", "Could you share the plaintiff settlement demand?", [0]),
    ])  # fmt: skip
    assert told_early[cfo] == 0.5
