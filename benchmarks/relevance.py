"""How well the observable teacher finds a seat's needs among the facts it hears, per scenario set.

The teacher asks about the facts others stated that its objective asks for
(:mod:`policies.relevance`); its IA rests on that pick. For every seat this script lays out what
the seat would hear if everyone shared what it may (each other agent's shareable facts, with
the sender's role and owned domains as the seat sees them) and scores them against the seat's
objective exactly as the teacher does. It prints, per set:

* ``recall``: the share of the seat's needs among the heard facts that the teacher picks;
* ``precision``: the share of picks that are needs (``base``: the share of heard facts that
  are, i.e. the precision of asking about everything heard);
* ``picks``: picks a seat;
* ``auc``: how often a need outscores a fact the seat does not need, within a seat (0.5 is
  chance), from each fact's best score over the objective's parts.

    python benchmarks/relevance.py silver-dev gold PATH/TO/scenarios.json
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable

import numpy as np

import scenarios
from policies.observable import holder_profiles, need_parts
from policies.relevance import Heard, Relevance, default_relevance
from scenarios import Scenario

COLUMNS = ("seats", "needs", "recall", "precision", "base", "picks", "auc")


def seat_cases(scenario: Scenario) -> Iterable[tuple[list[str], list[Heard], dict[str, str], set]]:
    """(objective parts, heard facts, holder profiles, needed names) for each seat that hears any.

    References are resolved as the judge resolves them, so files that refer to items in other
    styles (the authors' do) are read right.
    """
    res = scenario.resolution
    owners = scenario.domain_owners()
    for i, agent in enumerate(scenario.agents):
        shared = [
            r for j, refs in enumerate(res.share) if j != i for r in refs if r and r.agent == j
        ]
        heard = [
            Heard(
                scenario.agents[r.agent].role,
                r.name,
                scenario.agents[r.agent].pre_interaction_knowledge[r.name].text,
            )
            for r in dict.fromkeys(shared)
        ]
        if heard:
            others = [a.role for a in scenario.agents if a is not agent]
            needs = {r.name for r in res.desired[i] if r and r.agent != i}
            parts = need_parts(agent.goals.primary_objective)
            yield parts, heard, holder_profiles(others, owners), needs


def measure(scenario_set: list[Scenario], relevance: Relevance) -> dict[str, float]:
    """The columns of :data:`COLUMNS` over every seat of ``scenario_set``."""
    seats = needs = hits = picks = heard_total = 0
    wins = pairs = 0.0
    for parts, heard, holders, needed in (c for s in scenario_set for c in seat_cases(s)):
        is_need = np.array([h.name in needed for h in heard])
        seats += 1
        needs += int(is_need.sum())
        heard_total += len(heard)
        picked = {h.name for h in relevance.pick(parts, heard, holders)}
        picks += len(picked)
        hits += len(picked & needed)
        if parts and is_need.any() and not is_need.all():
            best = relevance.scores(parts, heard, holders).max(axis=0)
            diff = best[is_need][:, None] - best[~is_need][None, :]
            wins += float((diff > 0).sum() + 0.5 * (diff == 0).sum())
            pairs += diff.size
    return {
        "seats": seats,
        "needs": needs,
        "recall": hits / max(1, needs),
        "precision": hits / max(1, picks),
        "base": needs / max(1, heard_total),
        "picks": picks / max(1, seats),
        "auc": wins / max(1.0, pairs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", help="shipped set names or scenario files")
    args = parser.parse_args()
    relevance = default_relevance()
    print("| set | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for name in args.sets:
        row = measure(scenarios.load(name), relevance)
        cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in row.values()]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
