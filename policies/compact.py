"""The compact prompt: the same facts and rules as the paper's layout in far fewer tokens.

A small model reads every token of its prompt at every turn, and trains on them. The paper's
layout spends many on structure: bracketed message headers that spell out every recipient's
role, a sensitivity tag and a policy list that repeat each fact's name, and boilerplate. The
compact layout keeps every fact the seat has (the goal line, the domain owners, its objective
verbatim, each of its facts with its value, every message it has seen, the step) and states
the sharing rules by where a fact stands:

* **Say in public**: facts it may share that are public;
* **Say by DM only**: facts it may share that are private;
* **Never say**: facts on its must-not-share list.

The other participants go by their agent ids (``agent_2``), which the env's ``to`` accepts as
it accepts role names, and each message is one line: ``agent_1: text`` in public,
``agent_1 to you,agent_2: text`` by direct message. It is rendered from the seat's own view
(:func:`sotopia_tom_env.seat.read_seat`), so it holds nothing the paper's observation does not.
"""

from __future__ import annotations

from sotopia_tom_env.seat import SeatView, Seen

COMPACT_ACTION = """{guidance}{aux}

{observation}
Reply in JSON: "action_type" "speak", "none" or "leave"; "argument" your message; "to" [] to speak to everyone, or ids to message privately."""

BASIC = "Work toward your objective, answer questions you are asked, and leave once you are done."
"""Basic's guidance in the compact layout (the paper's words without the reply-format part)."""


_HEADINGS = ("Say in public", "Say by DM only", "Never say", "Other facts you know")


def compact_observation(view: SeatView) -> str:
    """The seat's view in the compact layout (see the module docstring)."""
    others = "; ".join(f"{view.ids[r]} = {r}" for r in view.others)
    lines = [f"You are {view.role}. Others: {others}."]
    if view.goal:
        lines.append(f"Goal: {view.goal}")
    if view.domains:
        owners = "; ".join(
            f"{d}: {','.join(_name(r, view) for r in w)}" for d, w in view.domains.items()
        )
        lines.append(f"Owners: {owners}.")
    lines.append(f"Objective: {view.objective}")
    for heading, facts in zip(_HEADINGS, view.by_rule(), strict=True):
        if facts:
            lines.append(f"{heading}:")
            lines += [f"- {f.name}: {f.text}" for f in facts]
    lines.append("Messages:" if view.messages else "Messages: none yet.")
    lines += [_line(m, view) for m in view.messages]
    if view.max_steps:
        turn = " Your turn." if view.acting else ""
        lines.append(f"Step {view.step} of {view.max_steps}.{turn}")
    return "\n".join(lines)


def compact_prompt(view: SeatView, guidance: str, aux: str = "") -> str:
    """The action prompt in the compact layout, with a strategy's guidance and aux block."""
    return COMPACT_ACTION.format(guidance=guidance, aux=aux, observation=compact_observation(view))


def _name(role: str, view: SeatView) -> str:
    return "you" if role == view.role else view.ids.get(role, role)


def _line(m: Seen, view: SeatView) -> str:
    sender = "You" if m.sender == view.role else _name(m.sender, view)
    if m.left:
        return f"{sender} left."
    to = f" to {','.join(_name(r, view) for r in m.to)}" if m.to else ""
    return f"{sender}{to}: {m.text}"
