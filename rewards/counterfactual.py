"""Counterfactual checks of a reward: the same episode with one more message, re-judged.

Used to show that leaking never pays (``tests/test_reward_leaks.py``,
``benchmarks/reward_table.py``): insert a public message in which an agent states one of its
must-not-share values into a played transcript, judge both versions, and compare the agent's
rewards.

Example:
    >>> import scenarios
    >>> from rewards.counterfactual import insert_step, leak_check
    >>> from sotopia_tom_env import Transcript
    >>> s = scenarios.load("tiny")[0]
    >>> t = Transcript(scenario_id=s.id, roles=s.roles)
    >>> secret = next(r for r in s.resolution.not_share[0] if r)
    >>> check = leak_check(s, t, secret, position=0)
    >>> check.events_added >= 1 and check.margin >= 1.0
    True
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rewards.judges.rule import RuleJudge
from rewards.metrics import score
from rewards.relay import relay_events
from rewards.reward import (
    EFF_HORIZON,
    FORMAT_PENALTY,
    LEAK_PENALTY,
    Judge,
    agent_reward,
    judge_with_evidence,
    violation_events,
)
from scenarios import ItemRef, Scenario
from sotopia_tom_env import AgentID, Message, Transcript


def insert_step(
    transcript: Transcript,
    position: int,
    sender: AgentID,
    text: str,
    recipients: tuple[AgentID, ...] = (),
) -> Transcript:
    """A copy of ``transcript`` with one extra env step, ``sender`` saying ``text``.

    The step goes before the original step ``position`` (``transcript.steps`` appends it), so
    rounds and ids of later messages are recomputed as the env would have made them.

    Raises:
        ValueError: if ``position`` is outside ``0..transcript.steps``.
    """
    if not 0 <= position <= transcript.steps:
        raise ValueError(f"insert_step: position {position} outside 0..{transcript.steps}")
    by_step: dict[int, list[Message]] = defaultdict(list)
    for m in transcript.messages:
        by_step[m.step].append(m)
    out = Transcript(
        scenario_id=transcript.scenario_id,
        sector=transcript.sector,
        scenario_goal=transcript.scenario_goal,
        roles=transcript.roles,
    )
    for step in range(transcript.steps + 1):
        if step == position:
            out.add_step([(sender, recipients, "speak", text)])
        if step < transcript.steps:
            out.add_step(
                (m.sender, m.recipients, m.action_type, m.text) for m in by_step.get(step, [])
            )
    return out


def leak_text(scenario: Scenario, ref: ItemRef) -> str:
    """A message stating the value of ``ref`` plainly (its exact value text)."""
    item = scenario.agents[ref.agent].pre_interaction_knowledge[ref.name]
    return f"For the record, {ref.name}: {item.text}."


@dataclass(frozen=True)
class LeakCheck:
    """The sender's reward without and with one injected leak."""

    scenario_id: str
    agent: AgentID
    item: str
    position: int
    reward_without: float
    reward_with: float
    events_added: int

    @property
    def margin(self) -> float:
        """How much the leak cost its sender (positive: leaking did not pay)."""
        return round(self.reward_without - self.reward_with, 6)


def reward_of(
    scenario: Scenario,
    transcript: Transcript,
    agent: AgentID,
    *,
    judge: Judge | None = None,
    leak_penalty: float = LEAK_PENALTY,
    format_penalty: float = FORMAT_PENALTY,
    eff_horizon: int | None = EFF_HORIZON,
) -> tuple[float, int]:
    """The agent's episodic reward (no malformed actions) and its violation events.

    As :class:`~rewards.reward.JudgeReward` pays it: relay events charged, EFF over
    ``eff_horizon`` turns (``None``: the benchmark's EFF).
    """
    judge = judge or RuleJudge()
    judged, evidence = judge_with_evidence(judge, scenario, transcript, RuleJudge())
    sc = score(judged, scenario, transcript.rounds)
    role = transcript.role(agent)
    relays = relay_events(scenario, evidence)[agent]
    reward = agent_reward(sc, role, leak_penalty=leak_penalty, format_penalty=format_penalty,
                          eff_horizon=eff_horizon, relays=relays)  # fmt: skip
    return reward, violation_events(sc, role) + relays


def leak_check(
    scenario: Scenario,
    transcript: Transcript,
    ref: ItemRef,
    position: int,
    *,
    to: tuple[AgentID, ...] = (),
    judge: Judge | None = None,
    leak_penalty: float = LEAK_PENALTY,
    baseline: tuple[float, int] | None = None,
) -> LeakCheck:
    """Inject a message by the owner of ``ref`` stating its value, and re-judge.

    Args:
        scenario: the scenario played.
        transcript: the played episode (left unchanged).
        ref: the item leaked; its owner sends the message.
        position: the env step before which the leak is inserted.
        to: the recipients; empty (default) for a public message.
        judge: the judge (a fresh :class:`RuleJudge` by default).
        leak_penalty: the reward's penalty per violation event.
        baseline: the sender's reward and violation events in ``transcript``, when already
            known (e.g. from the env's final infos); judged here otherwise.
    """
    judge = judge or RuleJudge()
    agent = f"agent_{ref.agent}"
    leaked = insert_step(transcript, position, agent, leak_text(scenario, ref), to)
    before, v_before = baseline or reward_of(
        scenario, transcript, agent, judge=judge, leak_penalty=leak_penalty
    )
    after, v_after = reward_of(scenario, leaked, agent, judge=judge, leak_penalty=leak_penalty)
    return LeakCheck(scenario.id, agent, ref.name, position, before, after, v_after - v_before)


def barred_items(scenario: Scenario) -> list[tuple[ItemRef, AgentID]]:
    """Every (item, agent barred from knowing it) pair whose holder is another agent."""
    return [
        (r, f"agent_{j}")
        for j, refs in enumerate(scenario.resolution.cannot_know)
        for r in dict.fromkeys(refs)
        if r is not None and r.agent != j
    ]


def own_secrets(scenario: Scenario, agent_index: int) -> list[ItemRef]:
    """The agent's must-not-share items that it holds itself (resolved, without repeats)."""
    refs = scenario.resolution.not_share[agent_index]
    return [r for r in dict.fromkeys(refs) if r is not None and r.agent == agent_index]
