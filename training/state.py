"""A turn state: where an episode stands when the trained seat must act, and how it got there."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TurnState:
    """One seat's turn in a scripted episode, with the prompt it sees there.

    Attributes:
        scenario_id: the (Silver) scenario.
        seat: the acting agent id (``agent_i``).
        step: the env step at which it acts (0-based).
        prompt: the seat's action prompt at that step.
        history: the action of each step before it, as ``(agent, text the env parses)``: the
            env is deterministic, so replaying them reaches the state again.
    """

    scenario_id: str
    seat: str
    step: int
    prompt: str
    history: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        """A stable key of the prompt text (TRL passes prompts to the rollout, not rows)."""
        return prompt_key(self.prompt)


def prompt_key(prompt: str | list[dict[str, Any]]) -> str:
    """Hash of a prompt's text (a string, or a conversation whose last message is the prompt).

    Example:
        >>> prompt_key("hi") == prompt_key([{"role": "user", "content": "hi"}])
        True
    """
    text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
    return hashlib.sha256(text.encode()).hexdigest()
