"""A person at the keyboard playing one agent: the human seat of ``sotopia-tom play``.

The player shows exactly what an LLM player is shown (the agent's observation text and the
env's reply instructions) and reads the move from a text stream:

* a line of text is a message; the player then asks whom it is for (Enter: everyone, or role
  names or agent ids separated by commas) and asks again after an unknown or absent name;
* ``/none`` stays silent this turn, ``/leave`` leaves the conversation;
* a line starting with ``{`` is passed on as a raw JSON reply, as a model would write it;
* the end of the input leaves the conversation (so a closed terminal ends the seat cleanly).

Streams are arguments, so tests drive the player with :class:`io.StringIO`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from sotopia_tom_env import AgentAction, AgentID

RULE = "=" * 72
HELP = (
    "Type your message and press Enter (you will then be asked whom it is for), "
    "or /none to stay silent, /leave to leave the conversation."
)


class HumanPlayer:
    """Plays one agent from a person's typed input.

    Args:
        agent: the agent played.
        instructions: returns the env's reply instructions for this agent at the current turn
            (``lambda: env.action_instructions(agent)``); None shows none.
        stdin: where the person's lines come from.
        stdout: where the observation and prompts go.
    """

    name = "human"

    def __init__(
        self,
        agent: AgentID,
        instructions: Callable[[], str] | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        self.agent = agent
        self.instructions = instructions
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Greet the person with the seat they play."""
        self._say(f"You play {info.get('role', self.agent)} ({self.agent}). {HELP}")

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction | str:
        """Show the observation and instructions, then read a move."""
        self._say(RULE, observation["text"], "")
        if self.instructions is not None:
            self._say(self.instructions(), "")
        while True:
            line = self._ask("Your move (text, /none or /leave): ")
            if line is None or line == "/leave":
                return AgentAction.leave()
            if line == "/none":
                return AgentAction.none()
            if line.startswith("{"):
                return line  # a raw JSON reply: the env parses (and reports) it like a model's
            if line.startswith("/"):
                self._say(f"Unknown command {line!r}. {HELP}")
                continue
            if line:
                to = self._recipients(observation, info)
                return AgentAction.leave() if to is None else AgentAction.speak(line, to=to)

    def _recipients(self, observation: dict[str, Any], info: dict[str, Any]) -> list[str] | None:
        """Ask whom a message is for; [] is public; None when the input ended."""
        mask = observation["action_mask"]
        roles = info.get("participants", {})
        # The mask's recipient bits follow agent numbers: bit 3 + i is agent_i.
        allowed = {a: r for a, r in roles.items() if _bit(mask, 3 + int(a.rsplit("_", 1)[1]))}
        names = {_key(r): a for a, r in allowed.items()} | {a: a for a in allowed}
        options = ", ".join(allowed.values()) or "nobody (public only)"
        while True:
            line = self._ask(f"To whom? Enter for everyone, or names from: {options}: ")
            if line is None:
                return None
            wanted = [p.strip() for p in line.split(",") if p.strip()]
            unknown = [w for w in wanted if _key(w) not in names]
            if not unknown:
                return [allowed[names[_key(w)]] for w in wanted]
            self._say(f"Not a possible recipient: {', '.join(unknown)}.")

    def _ask(self, prompt: str) -> str | None:
        """One stripped line after ``prompt``; None at the end of the input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self._say("")
            return None
        return line.strip()

    def _say(self, *lines: str) -> None:
        self.stdout.write("\n".join(lines) + "\n")
        self.stdout.flush()


def _key(name: str) -> str:
    """A role name as typed, case and spacing forgiven."""
    return " ".join(name.split()).casefold()


def _bit(mask: Any, i: int) -> bool:
    return i < len(mask) and bool(mask[i])
