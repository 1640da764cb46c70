"""Good and bad seed scenarios that show the LLM generator what to do and what to avoid.

The good seed of a sector is its first Gold scenario with the requested number of agents. The
bad seed is the same scenario broken in two ways the review rules reject, and the reason says
how: one desired item is made unreachable (its holder now refuses to share it) and one
objective states the value of a desired item.
"""

from __future__ import annotations

import json

from scenarios.io import load
from scenarios.schema import Scenario


def seed_pair(sector: str, agents: int) -> tuple[str, str, str]:
    """``(good JSON, bad JSON, reason)`` for a sector and agent count."""
    gold = [s for s in load("gold") if s.sector == sector] or load("gold")
    good = next((s for s in gold if len(s.agents) == agents), gold[0])
    bad, reason = break_scenario(good)
    return _compact(good), _compact(bad), reason


def break_scenario(good: Scenario) -> tuple[Scenario, str]:
    """A copy of ``good`` with an unreachable desired item and a leaking objective."""
    bad = good.model_copy(deep=True)
    asker = bad.agents[0]
    res = good.resolution
    ref = next(r for r in res.desired[0] if r is not None)
    holder = bad.agents[ref.agent].goals.sharing_policy
    holder.what_to_share = [x for x in holder.what_to_share if x != ref.name]
    holder.what_not_to_share = [*holder.what_not_to_share, ref.name]
    value = good.agents[ref.agent].pre_interaction_knowledge[ref.name].text
    asker.goals.primary_objective += f" In particular I need to confirm that {value}."
    reason = (
        f"'{ref.name}', which {asker.role} needs, is held only by {bad.agents[ref.agent].role}, who now refuses "
        f"to share it, so it is unreachable; and {asker.role}'s objective states that item's value"
    )
    return bad, reason


def _compact(s: Scenario) -> str:
    return json.dumps(s.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
