"""Inquiry that informs: the reward's IA credits only asks made before the item arrived.

The paper's IA credits an inquiry whenever it happens, so "Could you confirm the X?" after X
was received earns as much as the question that brought X, and a policy learns to ask for what
it already has (the observable teacher's follow-ups did: +0.067 IA on Gold v1). The benchmark
keeps the paper's IA; the training reward uses this one, with the same rules otherwise: a
request the rule judge reads as asking for the item, the holder in its audience (everyone for a
public message), a private item asked by direct message. An item the agent never receives can
be asked for at any time. An item that reached the agent before its first turn (agent ``i``
first acts at step ``i`` of the round-robin order) could not have been asked for: it is left
out of the agent's IA rather than counted against it, so a late seat is not paid less for the
order it sits in.
"""

from __future__ import annotations

from collections.abc import Sequence

from rewards.judges.rule import MessageEvidence
from rewards.metrics import r4
from scenarios import ItemRef, Scenario


def informative_ia(scenario: Scenario, evidence: Sequence[MessageEvidence]) -> dict[str, float]:
    """Each agent's IA (role -> score), counting only well-aimed requests before receipt."""
    res, out = scenario.resolution, {}
    for i, agent in enumerate(scenario.agents):
        hits = [_asked_first(scenario, evidence, i, ref) for ref in res.desired[i]]
        counted = [h for h in hits if h is not None]
        out[agent.role] = r4(sum(counted) / len(counted)) if counted else 1.0
    return out


def _asked_first(
    scenario: Scenario, evidence: Sequence[MessageEvidence], i: int, ref: ItemRef | None
) -> bool | None:
    """Whether agent ``i`` asked well for ``ref`` before it arrived (None: it arrived first)."""
    if ref is None:
        return False
    me, holder = f"agent_{i}", f"agent_{ref.agent}"
    private = (
        scenario.agents[ref.agent].pre_interaction_knowledge[ref.name].sensitivity == "private"
    )
    for ev in evidence:
        m = ev.message
        if ref in ev.disclosed and m.sender != me and m.visible_to(me):
            return None if m.step < i else False  # before its first turn: nothing to ask
        if m.sender == me and ref in ev.requested:
            to_holder = not m.recipients or holder in m.recipients
            if to_holder and (m.channel == "private" or not private):
                return True
    return False
