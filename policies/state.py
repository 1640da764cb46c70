"""The structured private state of ToM-Belief and Self-Focused players, and how it is shown.

Two families of models. The default ones are the paper's: strict (structured-output
compatible), lists unbounded, and only memory (its last 10 entries) and privacy risks (its last
5) cut in code after every update. The ``Capped*`` ones belong to the ``capped_beliefs`` player
option: the schema itself bounds every list and text, so a small model's constrained output
finishes within a short token budget, and :func:`capped` also trims the progress lists and
drops beliefs about names that are not participants.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

MEMORY_CAP = 10
RISK_CAP = 5
LIST_CAP = 8

# capped_beliefs: bounds in the schema keep constrained output short enough to finish.
Note = Annotated[str, Field(max_length=80)]
Notes = Annotated[list[Note], Field(max_length=2)]
PlanNotes = Annotated[list[Note], Field(max_length=3)]  # the initialiser asks for 2-3 actions
Items = Annotated[list[Annotated[str, Field(max_length=60)]], Field(max_length=5)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AgentBelief(_Strict):
    """What the player believes about one other participant."""

    agent_name: str
    knows: list[str]
    does_not_know: list[str]
    wants: list[str]
    thinks_about_me: list[str]


class SharingProgress(_Strict):
    """What the player has shared and learned so far."""

    items_shared: list[str]
    items_not_yet_shared: list[str]
    items_acquired: list[str]
    items_still_needed: list[str]
    objective_progress: Literal[
        "Not started", "In progress", "Mostly complete", "Complete - ready to leave"
    ]


class MemoryItem(_Strict):
    """One notable event."""

    turn: int
    event: str


class PrivacyRisk(_Strict):
    """One attempt to get restricted details."""

    turn: int
    description: str


class BeliefState(_Strict):
    """ToM-Belief: beliefs about every other participant plus progress, memory and risks."""

    beliefs: list[AgentBelief]
    sharing_progress: SharingProgress
    # Unbounded in the schema: the model may append past the cap, and code keeps the newest.
    memory: list[MemoryItem]
    privacy_risks: list[PrivacyRisk]


class PlanningState(_Strict):
    """The plan that replaces beliefs about others in the Self-Focused ablation."""

    next_actions: list[str]
    blockers: list[str]
    conversation_strategy: str


class SelfFocusedState(_Strict):
    """Self-Focused: a plan plus progress, memory and risks; nothing about other minds."""

    planning: PlanningState
    sharing_progress: SharingProgress
    memory: list[MemoryItem]
    privacy_risks: list[PrivacyRisk]


# -- capped_beliefs: the same records with every list and text bounded ------------------------


class CappedAgentBelief(AgentBelief):
    """:class:`AgentBelief` with at most 2 short notes per list."""

    agent_name: Annotated[str, Field(max_length=40)]
    knows: Notes
    does_not_know: Notes
    wants: Notes
    thinks_about_me: Notes


class CappedSharingProgress(SharingProgress):
    """:class:`SharingProgress` with at most 5 short items per list."""

    items_shared: Items
    items_not_yet_shared: Items
    items_acquired: Items
    items_still_needed: Items


class CappedMemoryItem(MemoryItem):
    """:class:`MemoryItem` with a short event."""

    event: Note


class CappedPrivacyRisk(PrivacyRisk):
    """:class:`PrivacyRisk` with a short description."""

    description: Note


class CappedBeliefState(BeliefState):
    """:class:`BeliefState` bounded for constrained decoding (``capped_beliefs``)."""

    beliefs: Annotated[list[CappedAgentBelief], Field(max_length=4)]
    sharing_progress: CappedSharingProgress
    memory: Annotated[list[CappedMemoryItem], Field(max_length=MEMORY_CAP)]
    privacy_risks: Annotated[list[CappedPrivacyRisk], Field(max_length=RISK_CAP)]


class CappedPlanningState(PlanningState):
    """:class:`PlanningState` with 2-3 short next actions and at most 2 blockers."""

    next_actions: PlanNotes
    blockers: Notes
    conversation_strategy: Annotated[str, Field(max_length=160)]


class CappedSelfFocusedState(SelfFocusedState):
    """:class:`SelfFocusedState` bounded for constrained decoding (``capped_beliefs``)."""

    planning: CappedPlanningState
    sharing_progress: CappedSharingProgress
    memory: Annotated[list[CappedMemoryItem], Field(max_length=MEMORY_CAP)]
    privacy_risks: Annotated[list[CappedPrivacyRisk], Field(max_length=RISK_CAP)]


State = BeliefState | SelfFocusedState


def state_models(capped_lists: bool = False) -> tuple[type[BeliefState], type[SelfFocusedState]]:
    """The ToM-Belief and Self-Focused models: the paper's, or the bounded ones."""
    if capped_lists:
        return CappedBeliefState, CappedSelfFocusedState
    return BeliefState, SelfFocusedState


def capped(state: State, others: list[str] | None = None, *, bounded: bool = False) -> State:
    """The state with memory and privacy risks cut to their newest entries.

    Args:
        state: the record as the model returned it.
        others: the other participants' roles; with ``bounded``, beliefs about anyone else
            are dropped.
        bounded: also apply ``capped_beliefs``'s trims (progress and belief lists).
    """
    data = state.model_copy(deep=True)
    data.memory = data.memory[-MEMORY_CAP:]
    data.privacy_risks = data.privacy_risks[-RISK_CAP:]
    if not bounded:
        return data
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
