"""The conversation log: every utterance with its sender, audience, step and ``[Rr.u]`` id.

The transcript is what judges score and what the benchmark saves. It is omniscient (it holds
every direct message); :meth:`Transcript.view` and :meth:`Transcript.view_text` give one agent's
perspective and keep the global ids, so evidence cited from any view points at the same line.

**Rounds.** Following the benchmark's reference rule, each env step whose actions produced at
least one utterance (``speak`` or ``leave``; ``none`` produces nothing) forms a *block*; blocks
are grouped ``n_agents`` at a time into rounds. In round-robin play a round is therefore
``n_agents`` consecutive non-silent turns, and a silent turn shifts later boundaries. Ids are
``R{round}.{utterance}``: the round 0-based, the utterance within the round 1-based. Ids are
assigned when a message is added and never change.

**Rendering.** Messages are stored verbatim (JSONL keeps every character), but every rendered
line goes through :func:`~sotopia_tom_env.render.one_line`: a message is always exactly one
line, and nothing inside it can look like another message's id or a heading.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from sotopia_tom_env.render import one_line
from sotopia_tom_env.routing import AgentID, agent_ids, visible_to


class Message(BaseModel):
    """One utterance in the global log."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="'R{round}.{index}', e.g. 'R0.1'.")
    round: int = Field(description="0-based round (see the module docstring).")
    index: int = Field(description="1-based position within the round.")
    step: int = Field(description="0-based env step the message was sent in.")
    sender: AgentID
    sender_role: str
    recipients: tuple[AgentID, ...] = Field(description="Agent ids; empty means public.")
    recipient_roles: tuple[str, ...]
    action_type: Literal["speak", "leave"]
    text: str

    @property
    def channel(self) -> Literal["public", "private"]:
        """'public' when there are no recipients, else 'private'."""
        return "private" if self.recipients else "public"

    def visible_to(self, agent: AgentID) -> bool:
        """True if ``agent`` sees this message (public, sender or recipient)."""
        return visible_to(agent, self.sender, self.recipients)

    def line(self) -> str:
        """``[R0.2] Role (speak, private to=A,B): text`` (the judge-facing line format).

        Always one line: text and role names are rendered with :func:`one_line`.
        """
        where = "public"
        if self.recipients:
            where = "private to=" + ",".join(map(one_line, self.recipient_roles))
        text = one_line(self.text) if self.text else "left the conversation"
        return f"[{one_line(self.id)}] {one_line(self.sender_role)} ({self.action_type}, {where}): {text}"


class Transcript(BaseModel):
    """The global log of one episode plus the scenario facts needed to read it."""

    scenario_id: str
    sector: str | None = None
    scenario_goal: str = ""
    roles: list[str] = Field(description="Role names in agent order (agent_0 first).")
    messages: list[Message] = Field(default_factory=list)
    steps: int = Field(default=0, description="Env steps taken so far.")
    _blocks: int = PrivateAttr(default=0)

    @property
    def ids(self) -> list[AgentID]:
        """Agent ids in order."""
        return agent_ids(len(self.roles))

    @property
    def n_agents(self) -> int:
        """Number of participants (the round size)."""
        return len(self.roles)

    @property
    def rounds(self) -> int:
        """Rounds formed so far (kept up to date by :meth:`add_step`, not recounted)."""
        return -(-self._private_blocks() // max(len(self.roles), 1))

    def _private_blocks(self) -> int:
        # Straight from pydantic's store of private values: ``self._blocks`` takes pydantic's
        # __getattr__ fallback, which costs more than the rest of a rounds lookup together.
        return self.__pydantic_private__["_blocks"]  # type: ignore[index]

    def add_step(
        self, utterances: Iterable[tuple[AgentID, Sequence[AgentID], str, str]]
    ) -> list[Message]:
        """Record one env step and return its new messages.

        Args:
            utterances: ``(sender, recipients, action_type, text)`` for each agent that spoke or
                left in this step, in agent order. Silent steps pass nothing.
        """
        step, self.steps = self.steps, self.steps + 1
        new: list[Message] = []
        for sender, recipients, kind, text in utterances:
            if not new:  # the step's first utterance opens a block
                blocks = self._private_blocks()
                rnd = blocks // max(len(self.roles), 1)
                index = self._last_index(rnd)
                self.__pydantic_private__["_blocks"] = blocks + 1  # type: ignore[index]
            index += 1
            new.append(self._message(rnd, index, step, sender, tuple(recipients), kind, text))
        self.messages.extend(new)
        return new

    def _last_index(self, rnd: int) -> int:
        last = self.messages[-1] if self.messages else None
        return last.index if last is not None and last.round == rnd else 0

    def _message(
        self,
        rnd: int,
        index: int,
        step: int,
        sender: AgentID,
        recipients: tuple[AgentID, ...],
        kind: str,
        text: str,
    ) -> Message:
        return Message(
            id=f"R{rnd}.{index}",
            round=rnd,
            index=index,
            step=step,
            sender=sender,
            sender_role=self.role(sender),
            recipients=recipients,
            recipient_roles=tuple(self.role(r) for r in recipients),
            action_type=kind,
            text=text,  # type: ignore[arg-type]
        )

    def role(self, agent: AgentID) -> str:
        """The role name of ``agent_i``."""
        return self.roles[int(agent.rsplit("_", 1)[1])]

    def view(self, agent: AgentID) -> list[Message]:
        """The messages ``agent`` can see, in order, with their global ids."""
        return [m for m in self.messages if m.visible_to(agent)]

    def header(self) -> str:
        """The judge-facing header block."""
        agents = ", ".join(f"{i}={one_line(r)}" for i, r in enumerate(self.roles, start=1))
        return (
            f"[SCENARIO] id={one_line(self.scenario_id)} | sector={one_line(self.sector or '?')} | "
            f"agents={self.n_agents} | rounds={self.rounds}\n[AGENTS] {agents}\n"
            f"[GOAL] {one_line(self.scenario_goal)}"
        )

    def judge_text(self) -> str:
        """The omniscient transcript for judges: header, then every line, rounds apart."""
        if not self.messages:
            return self.header() + "\n\nNo rounds detected: no agent spoke.\n"
        return self.header() + "\n\n" + _by_round(self.messages, heading=False)

    def view_text(self, agent: AgentID) -> str:
        """One agent's view: a header, then ``--- Round r ---`` blocks of what it saw."""
        head = (
            f"[VIEW] agent={one_line(self.role(agent))} | scenario_id={one_line(self.scenario_id)} "
            f"| rounds={self.rounds}\n"
        )
        return head + _by_round(self.view(agent), heading=True)

    def to_jsonl(self, path: str | Path) -> None:
        """Write one message per line (each line is self-describing)."""
        with open(path, "w", encoding="utf-8") as f:
            for m in self.messages:
                f.write(m.model_dump_json() + "\n")

    @classmethod
    def from_jsonl(
        cls,
        path: str | Path,
        *,
        scenario_id: str,
        roles: list[str],
        sector: str | None = None,
        scenario_goal: str = "",
        steps: int | None = None,
    ) -> Transcript:
        """Rebuild a transcript written by :meth:`to_jsonl`."""
        with open(path, encoding="utf-8") as f:
            messages = [Message.model_validate(json.loads(line)) for line in f if line.strip()]
        return cls(
            scenario_id=scenario_id,
            sector=sector,
            scenario_goal=scenario_goal,
            roles=roles,
            messages=messages,
            steps=steps if steps is not None else _steps(messages),
        )

    def model_post_init(self, _context: object) -> None:
        """Recount blocks when a transcript is rebuilt from a dump."""
        self._blocks = len({m.step for m in self.messages})


def _steps(messages: list[Message]) -> int:
    return messages[-1].step + 1 if messages else 0


def _by_round(messages: Sequence[Message], heading: bool) -> str:
    out: list[str] = []
    current = None
    for m in messages:
        if m.round != current:
            if current is not None:
                out.append("")
            if heading:
                out.append(f"--- Round {m.round} ---")
            current = m.round
        out.append(m.line())
    return "\n".join(out) + "\n"
