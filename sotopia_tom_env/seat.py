"""An agent's observation read back into its parts: what one seat knows and what it has seen.

The env renders every observation from the same structure (:mod:`sotopia_tom_env.brief`), and
scenario and message text reach it through :func:`~sotopia_tom_env.render.one_line`, so no
field can fake a heading, a fact line or a message line. :func:`read_seat` relies on that to
recover the seat's brief and visible messages exactly. Players that must decide only from what
their seat sees (the observable teacher, the compact prompt) start here; nothing in a
:class:`SeatView` comes from outside the observation text and the public participant list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from sotopia_tom_env.brief import split_observation

_FACT = re.compile(r"^  - (.*?) \[(public|private)\]: (.*)$")
_MESSAGE = re.compile(
    r"^\[R(\d+)\.(\d+)\] (.*?) \((speak|leave|none), (public|private to=(.*?))\): (.*)$"
)
_DOMAIN = re.compile(r"^  - (.*?): (.*)$")
_STEP = re.compile(r"Step (\d+) of at most (\d+)\.")


@dataclass(frozen=True)
class Fact:
    """One fact of the seat's own knowledge."""

    name: str
    private: bool
    text: str


@dataclass(frozen=True)
class Seen:
    """One visible message: sender role, recipient roles (empty: public) and text."""

    round: int
    sender: str
    to: tuple[str, ...]
    text: str
    left: bool = False


@dataclass(frozen=True)
class SeatView:
    """What one seat knows (its brief) and what it has seen so far.

    Attributes:
        role: the seat's role.
        ids: role -> agent id, for every participant (the env's ``to`` accepts either).
        others: the other participants' roles, in seat order.
        goal: the shared goal line.
        domains: knowledge domain -> owner roles, as the shared context lists them.
        objective: the seat's primary objective, verbatim.
        facts: the seat's own facts, in brief order.
        may_share / must_not: the sharing policy's lists, verbatim.
        messages: the messages it has seen, in order.
        step / max_steps: the status line's step counter (0 when absent).
        acting: whether the status line says it is this seat's turn.
    """

    role: str
    ids: dict[str, str]
    others: tuple[str, ...]
    goal: str
    domains: dict[str, tuple[str, ...]]
    objective: str
    facts: tuple[Fact, ...]
    may_share: tuple[str, ...]
    must_not: tuple[str, ...]
    messages: tuple[Seen, ...] = ()
    step: int = 0
    max_steps: int = 0
    acting: bool = False
    left: frozenset[str] = field(default_factory=frozenset)

    def fact(self, name: str) -> Fact | None:
        """The fact a policy line names (case and spacing forgiven), if any."""
        key = _norm(name)
        return next((f for f in self.facts if _norm(f.name) == key), None)

    def by_rule(self) -> tuple[list[Fact], list[Fact], list[Fact], list[Fact]]:
        """Its facts by sharing rule: public shareable, private shareable, never, unlisted.

        A fact on both lists is never shared: the must-not-share list wins.
        """
        never = list(dict.fromkeys(f for n in self.must_not if (f := self.fact(n))))
        may = [f for n in self.may_share if (f := self.fact(n)) and f not in never]
        may = list(dict.fromkeys(may))
        other = [f for f in self.facts if f not in never and f not in may]
        return [f for f in may if not f.private], [f for f in may if f.private], never, other


def read_seat(text: str, participants: Mapping[str, str] | None = None) -> SeatView:
    """Parse an env observation text into a :class:`SeatView`.

    Args:
        text: ``observation["text"]`` as the env wrote it.
        participants: agent id -> role, as ``infos[agent]["participants"]`` gives it at reset;
            by default read from the observation's participants line.

    Raises:
        ValueError: if the text is not an observation the env wrote (no role line).
    """
    head, lines, status = split_observation(text)
    brief = head.split("\n")
    role = _after(brief, "ROLE: ")
    if role is None:
        raise ValueError("not an env observation: no 'ROLE:' line in its brief")
    if participants is None:
        participants = _participants(_after(brief, "Participants: ") or "")
    roles = list(participants.values())
    messages = tuple(m for m in (_message(line, roles) for line in lines) if m is not None)
    step = _STEP.search(status)
    return SeatView(
        role=role,
        ids={r: a for a, r in participants.items()},
        others=tuple(r for r in roles if r != role),
        goal=_after(brief, "Goal: ") or "",
        domains=_domains(brief, roles),
        objective=_after(brief, "PRIMARY OBJECTIVE: ") or "",
        facts=tuple(_facts(brief)),
        may_share=tuple(_section(brief, "  You may share:")),
        must_not=tuple(_section(brief, "  You must NOT share:")),
        messages=messages,
        step=int(step.group(1)) if step else 0,
        max_steps=int(step.group(2)) if step else 0,
        acting="It is your turn" in status,
        left=frozenset(m.sender for m in messages if m.left),
    )


def _participants(line: str) -> dict[str, str]:
    """``"A (agent_0), B (agent_1)"`` -> id -> role; ids run from agent_0 in order."""
    out, rest, i = {}, line, 0
    while rest:
        nxt = rest.find(f" (agent_{i + 1}), ")
        mark = f" (agent_{i})"
        end = rest.rfind(mark, 0, nxt if nxt >= 0 else len(rest))
        if end < 0:
            break
        out[f"agent_{i}"] = rest[:end]
        rest = rest[end + len(mark) :].removeprefix(", ")
        i += 1
    return out


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def _after(lines: list[str], prefix: str) -> str | None:
    return next((line[len(prefix) :] for line in lines if line.startswith(prefix)), None)


def _facts(lines: list[str]) -> list[Fact]:
    start = lines.index("WHAT YOU KNOW:") + 1 if "WHAT YOU KNOW:" in lines else len(lines)
    out = []
    for line in lines[start:]:
        m = _FACT.match(line)
        if not m:
            break
        out.append(Fact(m.group(1), m.group(2) == "private", m.group(3)))
    return out


def _section(lines: list[str], heading: str) -> list[str]:
    if heading not in lines:
        return []
    out = []
    for line in lines[lines.index(heading) + 1 :]:
        if not line.startswith("    - "):
            break
        out.append(line[6:])
    return [] if out == ["(nothing listed)"] else out


def _domains(lines: list[str], roles: list[str]) -> dict[str, tuple[str, ...]]:
    heading = "Knowledge domains and who owns them:"
    if heading not in lines:
        return {}
    out = {}
    for line in lines[lines.index(heading) + 1 :]:
        m = _DOMAIN.match(line)
        if not m:
            break
        out[m.group(1)] = _roles(m.group(2), roles, ", ")
    return out


def _message(line: str, roles: list[str]) -> Seen | None:
    m = _MESSAGE.match(line)
    if not m:
        return None
    to = _roles(m.group(6), roles, ",") if m.group(6) else ()
    left = m.group(4) == "leave"
    return Seen(int(m.group(1)), m.group(3), to, "" if left else m.group(7), left)


def _roles(joined: str, roles: list[str], sep: str) -> tuple[str, ...]:
    """Split a joined role list; role names may themselves hold the separator."""
    out: list[str] = []
    rest = joined
    while rest:
        match = max(
            (r for r in roles if rest == r or rest.startswith(r + sep)), key=len, default=None
        )
        if match is None:  # not a known role: keep the remainder whole rather than guess
            out.append(rest)
            break
        out.append(match)
        rest = rest[len(match) + len(sep) :] if rest != match else ""
    return tuple(out)
