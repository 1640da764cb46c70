"""What exists, for the researcher: scenario sets, scenarios, policies, judges, scenario cards.

Application layer (behind ``sotopia-tom list`` and ``sotopia-tom show``): it imports the
policies and reads a scenario's ground truth, the evaluation targets included, which no agent
ever sees. Each listing is a list of plain dicts, so the command line prints it as a table or
as JSON from the same rows.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import scenarios
from scenarios import ItemRef, Scenario
from scenarios.io import SHIPPED_SETS

SET_NOTES = {
    "tiny": "three small scenarios (3, 4 and 5 agents) for tests and quick checks",
    "gold": "written by hand for evaluation, 20 per sector; objectives in the paper authors' manner (v2)",
    "gold-v1": "gold with its first objectives, which name the needed items; for reproducing earlier numbers",
    "silver": "procedural, for training, in several voices; shares no scenario with gold",
    "silver-dev": "80 more procedural scenarios that training never reads: decide recipes here",
}
"""One line per shipped set (a test checks every shipped set has one)."""

STRATEGY_NOTES = {
    "basic": "the plain prompt: pursue the objective, answer, ask, leave when done",
    "cot": "a silent privacy checklist before each reply (progress, exchange, channel, leaks)",
    "tom": "silent theory-of-mind reasoning about what others know and want",
    "tom_coach": "tom, plus an extra LLM call that writes a coach's note on others' minds",
    "tom_belief": "tom, plus a belief record about every other participant, updated each turn",
    "self_focused": "tom, plus a planning record of its own next actions, updated each turn",
}
"""One line per prompted strategy (a test checks it covers ``policies.prompted.STRATEGIES``)."""

JUDGE_NOTES = {
    "rule": "deterministic, no LLM: finds item values and requests in the transcript",
    "llm": "an LLM with structured outputs, the paper's judge prompts (needs a model)",
}


def set_rows() -> list[dict[str, Any]]:
    """One row per shipped scenario set: name, size, sectors, agent counts, what it is for."""
    rows = []
    for name in SHIPPED_SETS:
        loaded = scenarios.load(name)
        rows.append(
            {
                "set": name,
                "scenarios": len(loaded),
                "sectors": sorted({s.sector or "-" for s in loaded}),
                "agents": sorted({len(s.agents) for s in loaded}),
                "about": SET_NOTES.get(name, ""),
            }
        )
    return rows


def scenario_rows(loaded: list[Scenario], sector: str | None = None) -> list[dict[str, Any]]:
    """One row per scenario (id, sector, agent count, roles), optionally of one sector only."""
    return [
        {"id": s.id, "sector": s.sector or "-", "agents": len(s.agents), "roles": s.roles}
        for s in loaded
        if sector is None or s.sector == sector
    ]


def policy_rows() -> list[dict[str, Any]]:
    """Every policy name ``--policy``/``--policies`` accepts, and every judge ``--judge`` does."""
    from policies import SCRIPTED
    from policies.observable import ObservablePlayer
    from policies.prompted import STRATEGIES
    from policies.scripted import IdealPlayer, LeakyPlayer, RandomPlayer, SilentPlayer
    from sotopia_tom_app.bench.judging import JUDGES

    kinds = (RandomPlayer, SilentPlayer, IdealPlayer, LeakyPlayer, ObservablePlayer)
    players = {p.name: p for p in kinds}
    rows = [
        {"kind": "scripted", "name": name, "about": _first_line(players[name].__doc__)}
        for name in sorted(SCRIPTED)
    ]
    rows += [{"kind": "prompted", "name": s, "about": STRATEGY_NOTES[s]} for s in STRATEGIES]
    rows.append(
        {
            "kind": "trained",
            "name": "trained:PATH[+STRATEGY]",
            "about": "a LoRA adapter folder played with a prompted strategy (default basic)",
        }
    )
    rows += [{"kind": "judge", "name": j, "about": JUDGE_NOTES[j]} for j in JUDGES]
    return rows


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0].rstrip(".") if doc else ""


def find_scenario(scenario_id: str, set_name: str | None) -> tuple[Scenario, str]:
    """The scenario ``scenario_id`` of ``set_name`` (or of the first shipped set holding it).

    Raises:
        ValueError: naming the sets searched when no such scenario exists.
    """
    searched = [set_name] if set_name else list(SHIPPED_SETS)
    for name in searched:
        for s in scenarios.load(name):
            if s.id == scenario_id:
                return s, name
    where = repr(set_name) if set_name else f"the shipped sets {', '.join(SHIPPED_SETS)}"
    raise ValueError(
        f"no scenario {scenario_id!r} in {where}; `sotopia-tom list scenarios` lists the ids"
    )


def scenario_card(s: Scenario, set_name: str) -> str:
    """A readable card of one scenario: goal, domains, and per agent its facts, rules and needs.

    Shows the evaluation targets (``post_interaction_knowledge``), labelled as such: the card
    is for the researcher, never for an agent.
    """
    res = s.resolution
    wanted_by, hidden_from = _audiences(s)
    lines = [
        f"{s.id}  ({set_name}; sector: {s.sector or '-'}; {len(s.agents)} agents)",
        "",
        f"Goal: {s.scenario_goal}",
        "Knowledge domains: "
        + "; ".join(f"{d} -> {', '.join(o)}" for d, o in s.domain_owners().items()),
    ]
    for i, agent in enumerate(s.agents):
        lines += ["", f"agent_{i}: {agent.role}", f"  Objective: {agent.goals.primary_objective}"]
        lines.append("  Facts (sensitivity, sharing rule):")
        for name, item in agent.pre_interaction_knowledge.items():
            ref = ItemRef(i, name)
            rule = (
                "must not share"
                if res.must_not_share(ref)
                else "may share"
                if res.may_share(ref)
                else "no rule"
            )
            extra = _audience_note(wanted_by[ref], hidden_from[ref])
            lines.append(f"    - {name} ({item.sensitivity}, {rule}){extra}: {item.text}")
        lines.append("  Evaluation targets (post_interaction_knowledge, never shown to agents):")
        lines += _targets("should learn", agent.post_interaction_knowledge.desired_knowledge,
                          res.desired[i], s)  # fmt: skip
        lines += _targets("must not learn", agent.post_interaction_knowledge.cannot_know_knowledge,
                          res.cannot_know[i], s)  # fmt: skip
    return "\n".join(lines)


def _audiences(s: Scenario) -> tuple[dict[ItemRef, list[str]], dict[ItemRef, list[str]]]:
    """Per item: the roles that should learn it, and the roles that must not."""
    wanted: dict[ItemRef, list[str]] = defaultdict(list)
    hidden: dict[ItemRef, list[str]] = defaultdict(list)
    for j, agent in enumerate(s.agents):
        for ref in s.resolution.desired[j]:
            if ref:
                wanted[ref].append(agent.role)
        for ref in s.resolution.cannot_know[j]:
            if ref:
                hidden[ref].append(agent.role)
    return wanted, hidden


def _audience_note(wanted: list[str], hidden: list[str]) -> str:
    parts = []
    if wanted:
        parts.append(f"needed by {', '.join(wanted)}")
    if hidden:
        parts.append(f"hidden from {', '.join(hidden)}")
    return f" [{'; '.join(parts)}]" if parts else ""


def _targets(label: str, texts: list[str], refs: list[ItemRef | None], s: Scenario) -> list[str]:
    """One line per target, with the holder it resolves to (or why it does not resolve)."""
    if not texts:
        return [f"    {label}: (none)"]
    out = []
    for text, ref in zip(texts, refs, strict=False):
        holder = f"held by {s.agents[ref.agent].role}" if ref else "unresolved reference"
        out.append(f"    {label}: {text} ({holder})")
    return out
