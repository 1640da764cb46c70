"""Scripted players (no LLM): random, silent, an ideal player with ground truth, leaky players.

The ideal, leaky, share-and-leak and random-facts players are *privileged*: they read the
scenario's ground truth (who holds what, who may know what) to play perfectly, badly or at random
on purpose. They exist to test judges and rewards end to end and to bracket the prompted
baselines in the benchmark.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from scenarios import ItemRef, Scenario
from sotopia_tom_env import AgentAction, AgentID
from sotopia_tom_env.brief import split_observation

_FILLER = "I think we should align on timelines and make sure the plan works for everyone before we commit".split()


class SilentPlayer:
    """Never says anything."""

    name = "silent"

    def __init__(self, agent: AgentID) -> None:
        self.agent = agent

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Nothing to prepare."""

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """Always ``none``."""
        return AgentAction.none()


class RandomPlayer:
    """Speaks filler publicly or to random recipients, sometimes stays silent or leaves."""

    name = "random"

    def __init__(self, agent: AgentID, seed: int = 0, leave_prob: float = 0.05) -> None:
        self.agent = agent
        self.seed = seed
        self.leave_prob = leave_prob
        self.rng = random.Random(seed)

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Reseed, so the same seed replays the same choices."""
        self.rng = random.Random(f"{self.seed}:{self.agent}")

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """A random legal action under the observation's mask."""
        mask = observation["action_mask"]
        u = self.rng.random()
        if u < self.leave_prob and mask[2]:
            return AgentAction.leave()
        if u < 0.3 or not mask[1]:
            return AgentAction.none()
        recipients = [f"agent_{i}" for i, ok in enumerate(mask[3:]) if ok]
        to = self.rng.sample(recipients, k=self.rng.choice([0, 0, 1])) if recipients else []
        return AgentAction.speak(" ".join(self.rng.sample(_FILLER, k=8)), to=to)


class IdealPlayer:
    """Plays the policy perfectly from ground truth.

    It shares each shareable item on the right channel with those allowed to know it (public
    items publicly unless someone must not know them; private items by direct message to the
    agents who need them), asks each holder for each desired item on the right channel, never
    mentions must-not-share items, and leaves once its messages are sent and its desired items
    have arrived (or after waiting two rounds).

    By default it asks for every desired item even when the item has already reached it: the
    benchmark's Inquiry Alignment credits only deliberate requests, so an item received
    unasked scores 0 (on Gold, skipping such asks brings the mean IA from 1.0 to 0.44). With
    ``skip_answered=True`` it leaves out a question whose value already appeared in a message
    it has seen, which reads more naturally and scores lower.

    Args:
        agent: the seat it plays.
        scenario: the episode's scenario (ground truth).
        skip_answered: drop questions already answered by a message it has seen.
    """

    name = "ideal"

    def __init__(self, agent: AgentID, scenario: Scenario, skip_answered: bool = False) -> None:
        self.agent = agent
        self.scenario = scenario
        self.index = int(agent.rsplit("_", 1)[1])
        self.skip_answered = skip_answered

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Plan every message of the episode up front."""
        s = self.scenario
        self.queue: list[AgentAction | _Planned] = list(_ideal_plan(s, self.index))
        # Everyone's plan is known from ground truth: leaving before the others have sent theirs
        # could end the episode under them (two leaves end a three-agent conversation).
        self.others_done_at = len(s.agents) * max(
            len(_ideal_plan(s, j)) for j in range(len(s.agents))
        )
        self.waiting = 0
        self.seen = ""
        self.heard = ""  # the text of every message seen so far (with skip_answered)
        self.needed = [
            s.agents[r.agent].pre_interaction_knowledge[r.name].text
            for r in s.resolution.desired[self.index]
            if r
        ]

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """The next planned message, then wait, then leave."""
        self.seen += observation["text"]
        if self.skip_answered:  # only messages answer: a short value may occur in its own brief
            self.heard += "\n".join(split_observation(observation["text"])[1])
        while self.queue:
            planned = self.queue.pop(0)
            action = planned if isinstance(planned, AgentAction) else planned.action(self.heard)
            if action is not None:
                return action
        self.waiting += 1
        received = all(v in self.seen for v in self.needed)
        ready = info["step"] >= self.others_done_at and (received or self.waiting > 2)
        return AgentAction.leave() if ready else AgentAction.none()


@dataclass
class _Planned:
    """One planned message of the ideal player: shares, and asks with the value each awaits."""

    to: tuple[str, ...]
    shares: list[str] = field(default_factory=list)
    asks: list[tuple[str, str]] = field(default_factory=list)  # (question, awaited value)

    def action(self, seen: str) -> AgentAction | None:
        """The message, leaving out asks whose value already appeared in ``seen`` (None: empty)."""
        asks = [question for question, value in self.asks if value not in seen]
        if not self.shares and not asks:
            return None
        return AgentAction.speak(_compose(self.shares, asks), to=list(self.to))


def _ideal_plan(s: Scenario, i: int) -> list[_Planned]:
    """Every message agent ``i`` sends when it plays perfectly, public message first."""
    res = s.resolution
    blocked = _blocked(s)
    groups: dict[tuple[str, ...], _Planned] = {}
    for ref in dict.fromkeys(r for r in res.share[i] if r and res.may_share(r)):
        others = [j for j in range(len(s.agents)) if j != i]
        allowed = [j for j in others if ref not in blocked[j]]
        if not allowed:
            continue
        if not _private(s, ref) and len(allowed) == len(others):
            to: tuple[str, ...] = ()
        else:
            wanting = [j for j in allowed if ref in res.desired[j]] or allowed
            to = tuple(s.agents[j].role for j in wanting)
        item = s.agents[i].pre_interaction_knowledge[ref.name]
        groups.setdefault(to, _Planned(to)).shares.append(f"{ref.name}: {item.text}")
    for ref in dict.fromkeys(r for r in res.desired[i] if r):
        owner = s.agents[ref.agent].role
        value = s.agents[ref.agent].pre_interaction_knowledge[ref.name].text
        if _private(s, ref):
            question, to = f"Could you share your {ref.name}?", (owner,)
        else:
            question, to = f"{owner}, could you share your {ref.name}?", ()
        groups.setdefault(to, _Planned(to)).asks.append((question, value))
    return [groups[to] for to in sorted(groups, key=lambda to: (to != (), to))]


class LeakyPlayer:
    """Says everything it knows in public, forbidden items included, then probes and leaves."""

    name = "leaky"

    def __init__(self, agent: AgentID, scenario: Scenario) -> None:
        self.agent = agent
        self.scenario = scenario
        self.index = int(agent.rsplit("_", 1)[1])

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Prepare the dump and the probing questions."""
        me = self.scenario.agents[self.index]
        dump = " ".join(f"{k}: {v.text}." for k, v in me.pre_interaction_knowledge.items())
        post = me.post_interaction_knowledge
        asks = " ".join(
            f"What is the {t.split(':')[0]}?"
            for t in post.desired_knowledge + post.cannot_know_knowledge
        )
        self.queue = [AgentAction.speak(f"Full transparency, here is everything I have. {dump}")]
        if asks:
            self.queue.append(AgentAction.speak(asks))

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """Dump, probe, then leave."""
        return self.queue.pop(0) if self.queue else AgentAction.leave()


class ShareAndLeakPlayer(IdealPlayer):
    """Plays like :class:`IdealPlayer`, then states its must-not-share values in public.

    An agent without a must-not-share item plays exactly like the ideal player. Meant to be
    played by every agent of an episode: each one waits one round longer before leaving so
    that the last leak is still heard.
    """

    name = "share-and-leak"

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """The ideal plan plus one public message with every must-not-share value."""
        super().reset(observation, info)
        me = self.scenario.agents[self.index]
        secrets = self._own_secrets()
        if secrets:
            said = " | ".join(
                f"{r.name}: {me.pre_interaction_knowledge[r.name].text}" for r in secrets
            )
            self.queue.append(AgentAction.speak(f"One more thing, between all of us: {said}."))
        self.others_done_at += len(self.scenario.agents)

    def _own_secrets(self) -> list[ItemRef]:
        res = self.scenario.resolution
        return [r for r in dict.fromkeys(res.not_share[self.index]) if r and r.agent == self.index]


class RandomFactsPlayer:
    """A random player that says meaningful things: each turn one random move.

    It states one of its own facts (secrets included) in public or to random recipients, asks a
    random other agent for one of its desired items, stays silent, or (rarely) leaves. It gives
    rewards and judges varied episodes with disclosures, requests and leaks in every mix.
    """

    name = "random-facts"

    def __init__(
        self, agent: AgentID, scenario: Scenario, seed: int = 0, leave_prob: float = 0.03
    ) -> None:
        self.agent = agent
        self.scenario = scenario
        self.index = int(agent.rsplit("_", 1)[1])
        self.seed = seed
        self.leave_prob = leave_prob
        self.rng = random.Random(seed)

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Reseed, so the same seed replays the same choices."""
        self.rng = random.Random(f"{self.seed}:{self.agent}:{self.scenario.id}")

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """A random move under the observation's mask."""
        mask, rng = observation["action_mask"], self.rng
        u = rng.random()
        if u < self.leave_prob and mask[2]:
            return AgentAction.leave()
        if u < 0.2 or not mask[1]:
            return AgentAction.none()
        others = [self.scenario.agents[int(a.rsplit("_", 1)[1])].role for a in _recipients(mask)]
        desired = [r for r in self.scenario.resolution.desired[self.index] if r]
        if desired and rng.random() < 0.35:
            ref = rng.choice(desired)
            holder = self.scenario.agents[ref.agent].role
            options = [
                [],
                [holder] if holder in others else [],
                [rng.choice(others)] if others else [],
            ]
            to = rng.choice(options)
            return AgentAction.speak(f"Could you share the {ref.name}?", to=to)
        name, item = rng.choice(
            list(self.scenario.agents[self.index].pre_interaction_knowledge.items())
        )
        to = rng.sample(others, k=rng.choice([0, 0, 1, min(2, len(others))]))
        return AgentAction.speak(f"{name}: {item.text}.", to=to)


def _recipients(mask: Any) -> list[AgentID]:
    return [f"agent_{i}" for i, ok in enumerate(mask[3:]) if ok]


def _private(s: Scenario, ref: ItemRef) -> bool:
    return s.agents[ref.agent].pre_interaction_knowledge[ref.name].sensitivity == "private"


def _blocked(s: Scenario) -> list[set[ItemRef]]:
    return [{r for r in s.resolution.cannot_know[j] if r} for j in range(len(s.agents))]


def _compose(shares: list[str], asks: list[str]) -> str:
    parts = []
    if shares:
        parts.append("Sharing what I can: " + " | ".join(shares) + ".")
    parts += asks
    return " ".join(parts)
