"""The policy protocol: one policy acts for one agent, from that agent's observation."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from sotopia_tom_env import AgentAction, AgentID

Action = AgentAction | str | dict[str, Any]


@runtime_checkable
class Policy(Protocol):
    """Anything that can play one agent of an episode.

    ``reset`` is called once with the agent's first observation and info; ``act`` on each of
    its turns. ``act`` is async so that LLM-backed policies of many agents and episodes can wait
    on one batching server together; scripted policies simply return.

    A policy may also define ``async def begin(self) -> None``: work it can do from its first
    observation before its first turn. ``play_episode`` awaits every seat's ``begin`` together
    after the reset, so in a turn-based episode their LLM calls are batched instead of made one
    seat at a time. A policy must not need it: a loop that never calls it still plays the same.
    """

    name: str
    agent: AgentID

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Start a new episode."""

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Action:
        """Choose this turn's action (an ``AgentAction``, a dict or a raw JSON string)."""
