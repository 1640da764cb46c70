"""Statistics of a scenario set for its data card, with lexical and embedding diversity.

``python -m scenarios.datacard gold silver`` (set names or paths) prints the Markdown of
``docs/datasets.md``: one section per set, then the lexical diversity table with one column per
set (:mod:`scenarios.diversity`) and the share of needs the goal line names
(:mod:`scenarios.goal_line`). The embedding check embeds each scenario (its goal, roles and
item names) with all-mpnet-base-v2 when its PyPI parts are installed, else all-MiniLM-L6-v2
(:mod:`scenarios.embedding`; both load offline), and compares mean cosine similarity within
and across sectors; ``--no-embeddings`` skips it.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from scenarios.diversity import lexical, lexical_table
from scenarios.goal_line import named_needs
from scenarios.io import load
from scenarios.schema import Scenario
from scenarios.validate import validate_all


def counts(scenarios: Sequence[Scenario]) -> dict[str, Any]:
    """Counts by sector and agent number, facts, sensitivity, targets and validator results."""
    agents = [a for s in scenarios for a in s.agents]
    items = [i for a in agents for i in a.pre_interaction_knowledge.values()]
    reports = validate_all(scenarios)
    named, needs = named_needs(scenarios)
    by_sector: dict[str, Counter[int]] = defaultdict(Counter)
    for s in scenarios:
        by_sector[s.sector or "unknown"][len(s.agents)] += 1
    return {
        "scenarios": len(scenarios),
        "by_sector": {k: dict(sorted(v.items())) for k, v in sorted(by_sector.items())},
        "by_agents": dict(sorted(Counter(len(s.agents) for s in scenarios).items())),
        "facts_per_agent": _spread([len(a.pre_interaction_knowledge) for a in agents]),
        "private_share": round(
            sum(i.sensitivity == "private" for i in items) / max(len(items), 1), 3
        ),
        "desired_per_agent": _spread(
            [len(a.post_interaction_knowledge.desired_knowledge) for a in agents]
        ),
        "cannot_know_per_agent": _spread(
            [len(a.post_interaction_knowledge.cannot_know_knowledge) for a in agents]
        ),
        "needs_named_in_goal": {"named": named, "needs": needs},
        "validator_errors": sum(len(r.errors) for r in reports),
        "validator_warnings": sum(len(r.warnings) for r in reports),
    }


def _spread(xs: list[int]) -> dict[str, float]:
    return {"min": min(xs), "mean": round(statistics.mean(xs), 2), "max": max(xs)} if xs else {}


def _share(d: dict[str, int]) -> str:
    share = d["named"] / d["needs"] if d["needs"] else 0.0
    return f"{share:.1%} ({d['named']:,} / {d['needs']:,})"


def goal_line_row(named: dict[str, dict[str, int]]) -> str:
    """The diversity table's row for the share of needs each set's goal line names."""
    return "| needs named in the goal line | " + " | ".join(map(_share, named.values())) + " |"


def embedding_text(s: Scenario) -> str:
    """What a scenario is about: its goal, roles and item names."""
    names = [k for a in s.agents for k in a.pre_interaction_knowledge]
    return f"{s.scenario_goal} Roles: {', '.join(s.roles)}. Facts: {'; '.join(names)}."


def diversity(scenarios: Sequence[Scenario], prefer: str | None = None) -> dict[str, Any]:
    """Mean pairwise cosine similarity within and across sectors, and the most similar pair.

    Args:
        scenarios: the set.
        prefer: the embedding model (``"all-mpnet-base-v2"`` or ``"all-MiniLM-L6-v2"``);
            None picks the best installed (see :func:`scenarios.embedding.load_embedder`).
    """
    import numpy as np

    from scenarios.embedding import load_embedder

    name, model = load_embedder(prefer)
    vectors = np.asarray(
        model.encode([embedding_text(s) for s in scenarios], normalize_embeddings=True)
    )
    sims = vectors @ vectors.T
    sectors = np.array([s.sector or "unknown" for s in scenarios])
    same = sectors[:, None] == sectors[None, :]
    off_diag = ~np.eye(len(scenarios), dtype=bool)
    masked = np.where(off_diag, sims, -1.0)
    i, j = np.unravel_index(int(np.argmax(masked)), masked.shape)
    return {
        "model": name,
        "within_sector": round(float(sims[same & off_diag].mean()), 3),
        "across_sectors": round(float(sims[~same].mean()), 3),
        "max_pair": {
            "similarity": round(float(masked[i, j]), 3),
            "ids": [scenarios[i].id, scenarios[j].id],
        },
    }


def markdown(name: str, stats: dict[str, Any], div: dict[str, Any] | None) -> str:
    """One set's section of the data card."""
    sectors = "\n".join(
        f"| {sector} | "
        + " | ".join(str(by.get(n, 0)) for n in (3, 4, 5))
        + f" | {sum(by.values())} |"
        for sector, by in stats["by_sector"].items()
    )
    lines = [
        f"## {name}",
        f"{stats['scenarios']} scenarios; by agent number {stats['by_agents']}.",
        "",
        "| sector | 3 agents | 4 agents | 5 agents | total |",
        "|---|---|---|---|---|",
        sectors,
        "",
        f"- facts per agent: {stats['facts_per_agent']}",
        f"- share of private facts: {stats['private_share']}",
        f"- desired items per agent: {stats['desired_per_agent']}",
        f"- cannot-know items per agent: {stats['cannot_know_per_agent']}",
        f"- needs named in the goal line: {_share(stats['needs_named_in_goal'])}",
        f"- validator: {stats['validator_errors']} errors, {stats['validator_warnings']} warnings",
    ]
    if div:
        pair = div["max_pair"]
        lines += [
            f"- embedding similarity ({div['model']}): within sectors {div['within_sector']}, across sectors {div['across_sectors']}; "
            f"most similar pair {pair['ids'][0]} / {pair['ids'][1]} at {pair['similarity']}",
        ]
    return "\n".join(lines)


def main() -> None:
    """Print the data card sections of the named sets, then their lexical diversity table."""
    parser = argparse.ArgumentParser(description="Print data card tables for scenario sets.")
    parser.add_argument("sets", nargs="+", help="shipped set names or paths")
    parser.add_argument("--no-embeddings", action="store_true", help="skip the embedding check")
    parser.add_argument(
        "--embedder",
        choices=["all-mpnet-base-v2", "all-MiniLM-L6-v2"],
        help="embedding model; default: all-mpnet-base-v2 if installed, else MiniLM",
    )
    args = parser.parse_args()
    measures, named = {}, {}
    for name in args.sets:
        loaded = load(name)
        div = None if args.no_embeddings else diversity(loaded, args.embedder)
        stats = counts(loaded)
        print(markdown(name, stats, div), end="\n\n")
        measures[name], named[name] = lexical(loaded), stats["needs_named_in_goal"]
    print("## Diversity (numbers and codes masked)\n")
    print(lexical_table(measures))
    print(goal_line_row(named))


if __name__ == "__main__":
    main()
