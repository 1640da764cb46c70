"""The structured private state of ToM-Belief and Self-Focused players, and how it is shown.

The models are strict (structured-output compatible) and bounded: the schema limits list and
text lengths, so constrained decoding cannot run past the token budget. Lists are also capped in
code after every update: memory keeps its last 10 entries, privacy risks their last 5.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

MEMORY_CAP = 10
RISK_CAP = 5
LIST_CAP = 8

# Bounds in the schema itself keep a small model's constrained output short enough to finish.
Note = Annotated[str, Field(max_length=80)]
Notes = Annotated[list[Note], Field(max_length=2)]
Items = Annotated[list[Annotated[str, Field(max_length=60)]], Field(max_length=5)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AgentBelief(_Strict):
    """What the player believes about one other participant."""

    agent_name: Annotated[str, Field(max_length=40)]
    knows: Notes
    does_not_know: Notes
    wants: Notes
    thinks_about_me: Notes


class SharingProgress(_Strict):
    """What the player has shared and learned so far."""

    items_shared: Items
    items_not_yet_shared: Items
    items_acquired: Items
    items_still_needed: Items
    objective_progress: Literal[
        "Not started", "In progress", "Mostly complete", "Complete - ready to leave"
    ]


class MemoryItem(_Strict):
    """One notable event."""

    turn: int
    event: Note


class PrivacyRisk(_Strict):
    """One attempt to get restricted details."""

    turn: int
    description: Note


class BeliefState(_Strict):
    """ToM-Belief: beliefs about every other participant plus progress, memory and risks."""

    beliefs: Annotated[list[AgentBelief], Field(max_length=4)]
    sharing_progress: SharingProgress
    memory: Annotated[list[MemoryItem], Field(max_length=MEMORY_CAP)]
    privacy_risks: Annotated[list[PrivacyRisk], Field(max_length=RISK_CAP)]


class PlanningState(_Strict):
    """The plan that replaces beliefs about others in the Self-Focused ablation."""

    next_actions: Notes
    blockers: Notes
    conversation_strategy: Annotated[str, Field(max_length=160)]


class SelfFocusedState(_Strict):
    """Self-Focused: a plan plus progress, memory and risks; nothing about other minds."""

    planning: PlanningState
    sharing_progress: SharingProgress
    memory: Annotated[list[MemoryItem], Field(max_length=MEMORY_CAP)]
    privacy_risks: Annotated[list[PrivacyRisk], Field(max_length=RISK_CAP)]


State = BeliefState | SelfFocusedState


def capped(state: State, others: list[str] | None = None) -> State:
    """The state with every list within its cap (and beliefs only about real participants)."""
    data = state.model_copy(deep=True)
    data.memory = data.memory[-MEMORY_CAP:]
    data.privacy_risks = data.privacy_risks[-RISK_CAP:]
    p = data.sharing_progress
    for name in ("items_shared", "items_not_yet_shared", "items_acquired", "items_still_needed"):
        setattr(p, name, getattr(p, name)[: LIST_CAP * 2])
    if isinstance(data, BeliefState):
        if others is not None:
            data.beliefs = [b for b in data.beliefs if b.agent_name in others]
        for b in data.beliefs:
            for name in ("knows", "does_not_know", "wants", "thinks_about_me"):
                setattr(b, name, getattr(b, name)[:LIST_CAP])
    else:
        data.planning.next_actions = data.planning.next_actions[:LIST_CAP]
        data.planning.blockers = data.planning.blockers[:LIST_CAP]
    return data


def render(state: State) -> str:
    """The block injected into the action prompt."""
    p = state.sharing_progress
    lines = [
        "## Your Progress",
        f"Objective: {p.objective_progress}",
        "STILL NEED: " + (", ".join(p.items_still_needed) or "(nothing - objective met!)"),
        "CAN STILL SHARE: " + (", ".join(p.items_not_yet_shared) or "(all shareable items shared)"),
    ]
    if p.items_acquired:
        lines.append("ACQUIRED: " + ", ".join(p.items_acquired))
    if p.items_shared:
        lines.append("SHARED: " + ", ".join(p.items_shared))
    if isinstance(state, BeliefState):
        title, end = "Your Beliefs & Memory", "End Beliefs"
        lines.append("## Beliefs About Others")
        for b in state.beliefs:
            lines += [f"### {b.agent_name}", "KNOWS: " + "; ".join(b.knows), "WANTS: " + "; ".join(b.wants),
                      "THINKS ABOUT ME: " + "; ".join(b.thinks_about_me)]  # fmt: skip
    else:
        title, end = "Your Plan & Memory", "End Plan"
        plan = state.planning
        lines += ["## Your Plan", f"STRATEGY: {plan.conversation_strategy}",
                  "NEXT ACTIONS: " + "; ".join(plan.next_actions), "BLOCKERS: " + ("; ".join(plan.blockers) or "none")]  # fmt: skip
    if state.memory:
        lines += ["## Key Events", *(f"[Step {m.turn}] {m.event}" for m in state.memory)]
    if state.privacy_risks:
        lines += [
            "## Privacy Risks",
            *(f"[Step {r.turn}] {r.description}" for r in state.privacy_risks),
        ]
    body = "\n".join(lines)
    return f"\n\n--- {title} (for your eyes only; do not quote it) ---\n{body}\n--- {end} ---"
