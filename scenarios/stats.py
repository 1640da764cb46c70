"""How a scenario set is written: the statistics that tell ours from the authors' files.

A benchmark seat must infer what to ask, whom and on which channel from a high-level objective.
A set whose objectives name the needed items teaches a player to turn objective words into
questions, a skill that does not travel to scenarios written by others. These statistics show
how far a set is from the paper authors' manner; ``python -m scenarios.stats gold silver PATH``
(or ``sotopia-tom stats``) prints them side by side with the authors' per-scenario range.

Per seat and per need (a desired-knowledge entry resolved to the item it names):

* **objective words**: words of the seat's ``primary_objective``.
* **need-name overlap**: the share of the needed item's name content words (lower-cased
  words of 3+ letters, function words and numbers left out) that occur in the seat's own
  objective. Names are read from the item a reference resolves to, so the authors' "name:
  value" and value-only references count alike.
* **need-objective similarity** (embeddings, optional): cosine similarity of the needed item's
  name and value to the objective, and **need rank AUC**: the chance that a needed item is more
  similar to the objective than an item of another agent the seat does not need. A paraphrase
  that gives an item away raises both; word overlap alone misses it.
* needs per agent, facts per agent, the share of private facts, **unbarred must-not-share
  items** (withheld items on nobody's cannot-know list, which a player may send anyone without
  a violation), agents per scenario and **domain-map coverage** (needs whose holder owns a
  domain of the map, so that the map says whom to ask).

A set's value of a statistic is pooled over its seats or needs. The authors' range is the middle
80% of the authors' scenarios (10th to 90th percentile of the statistic computed on each
scenario alone): where a typical scenario of theirs lies. The two overlap rows also have a
ceiling (overlap mean 0.12, 8% of needs at 0.5 or more), the target our sets are held to.
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scenarios.io import load
from scenarios.resolve import normalise
from scenarios.schema import Scenario
from scenarios.validate import validate_all
from scenarios.values import _STOP

_WORD = re.compile(r"[a-z][a-z0-9'’-]*[a-z0-9]|[a-z]")


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3+ letters that are not function words.

    Example:
        >>> sorted(content_words("The DLP snapshot on collaboration repositories (2026)"))
        ['collaboration', 'dlp', 'repositories', 'snapshot']
    """
    words = (w for part in _WORD.findall(text.lower()) for w in re.split(r"[-'’]", part))
    return {w for w in words if len(w) >= 3 and w not in _STOP}


def name_overlap(name: str, objective: str) -> float:
    """The share of ``name``'s content words that occur in ``objective`` (0 for a name without any).

    Example:
        >>> name_overlap("Estimated trial cost", "what taking the trial through verdict would cost")
        0.6667
    """
    words = content_words(name)
    return round(len(words & content_words(objective)) / len(words), 4) if words else 0.0


@dataclass(frozen=True)
class Need:
    """One desired-knowledge entry of a seat, resolved."""

    scenario: str
    seat: int
    name: str
    value: str
    objective: str


def needs(s: Scenario) -> list[Need]:
    """The seat needs of a scenario that resolve to an item (unresolved ones are the validator's)."""
    out = []
    for i, agent in enumerate(s.agents):
        for ref in s.resolution.desired[i]:
            if ref is None:
                continue
            item = s.agents[ref.agent].pre_interaction_knowledge[ref.name]
            out.append(Need(s.id, i, ref.name, item.text, agent.goals.primary_objective))
    return out


def _unbarred(s: Scenario) -> tuple[int, int]:
    """(must-not-share items on nobody's cannot-know list, must-not-share items)."""
    res = s.resolution
    barred = {ref for refs in res.cannot_know for ref in refs if ref is not None}
    withheld = {ref for refs in res.not_share for ref in refs if ref is not None}
    return len(withheld - barred), len(withheld)


def _covered(s: Scenario) -> tuple[int, int]:
    """(needs whose holder owns a domain of the map, needs)."""
    owners = {normalise(o) for who in s.domain_owners().values() for o in who}
    held = [ref for refs in s.resolution.desired for ref in refs if ref is not None]
    return sum(normalise(s.agents[r.agent].role) in owners for r in held), len(held)


def _ratio(pairs: list[tuple[int, int]]) -> float:
    total = sum(d for _, d in pairs)
    return sum(n for n, _ in pairs) / total if total else 0.0


@dataclass(frozen=True)
class Stat:
    """One row of the report: how to compute it over some scenarios, and how to print it."""

    label: str
    compute: Callable[[Sequence[Scenario]], float]
    fmt: str = "{:.3f}"
    ceiling: float | None = None  # a target the value must not exceed (overlap rows)


def _seats(ss: Sequence[Scenario]) -> list[Any]:
    return [a for s in ss for a in s.agents]


def _overlaps(ss: Sequence[Scenario]) -> list[float]:
    return [name_overlap(n.name, n.objective) for s in ss for n in needs(s)]


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


STATS: tuple[Stat, ...] = (
    Stat(
        "objective words (median)",
        lambda ss: statistics.median(len(a.goals.primary_objective.split()) for a in _seats(ss)),
        "{:.1f}",
    ),
    Stat(
        "needs per agent",
        lambda ss: _mean([len(a.post_interaction_knowledge.desired_knowledge) for a in _seats(ss)]),
        "{:.2f}",
    ),
    Stat("need-name overlap (mean)", lambda ss: _mean(_overlaps(ss)), ceiling=0.12),
    Stat(
        "needs with overlap ≥ 0.5",
        lambda ss: _mean([o >= 0.5 for o in _overlaps(ss)]),
        "{:.1%}",
        ceiling=0.08,
    ),
    Stat(
        "private share of facts",
        lambda ss: _mean(
            [
                i.sensitivity == "private"
                for a in _seats(ss)
                for i in a.pre_interaction_knowledge.values()
            ]
        ),
    ),
    Stat(
        "must-not-share items nobody is barred from",
        lambda ss: _ratio([_unbarred(s) for s in ss]),
        "{:.1%}",
    ),
    Stat("domain-map coverage of needs", lambda ss: _ratio([_covered(s) for s in ss]), "{:.1%}"),
    Stat(
        "domains per agent",
        lambda ss: sum(len(s.knowledge_domain_map) for s in ss) / max(len(_seats(ss)), 1),
        "{:.2f}",
    ),
    Stat(
        "domains owned by several roles, per scenario",
        lambda ss: _mean([sum(len(o) > 1 for o in s.domain_owners().values()) for s in ss]),
        "{:.2f}",
    ),
)
"""The rows checked against the authors' range."""

SHAPE: tuple[Stat, ...] = (
    Stat("agents per scenario", lambda ss: _mean([len(s.agents) for s in ss]), "{:.2f}"),
    Stat(
        "facts per agent",
        lambda ss: _mean([len(a.pre_interaction_knowledge) for a in _seats(ss)]),
        "{:.2f}",
    ),
)
"""Rows that describe a set's shape; reported, not range-checked (see docs/datasets.md)."""


def embedding_stats(ss: Sequence[Scenario], model: Any) -> tuple[float, float]:
    """(mean need-objective cosine, need rank AUC) with a sentence-transformers ``model``."""
    import numpy as np

    texts: dict[str, int] = {}

    def idx(text: str) -> int:
        return texts.setdefault(text, len(texts))

    pairs = []  # (objective index, item index, is a need)
    for s in ss:
        for i, agent in enumerate(s.agents):
            obj = idx(agent.goals.primary_objective)
            wanted = {r for r in s.resolution.desired[i] if r is not None}
            for j, other in enumerate(s.agents):
                if j == i:
                    continue
                for name, item in other.pre_interaction_knowledge.items():
                    ref = (j, name)
                    pairs.append((obj, idx(f"{name}: {item.text}"), ref in wanted, s.id, i))
    vecs = np.asarray(model.encode(list(texts), normalize_embeddings=True))
    sims = [float(vecs[o] @ vecs[t]) for o, t, *_ in pairs]
    need_sims = [x for x, p in zip(sims, pairs, strict=True) if p[2]]
    # AUC per seat (needs against the seat's other candidates), pooled over seats.
    wins = total = 0.0
    by_seat: dict[tuple[str, int], list[tuple[float, bool]]] = {}
    for x, (_, _, need, sid, seat) in zip(sims, pairs, strict=True):
        by_seat.setdefault((sid, seat), []).append((x, need))
    for cands in by_seat.values():
        pos = [x for x, n in cands if n]
        neg = [x for x, n in cands if not n]
        for p in pos:
            wins += sum(p > n for n in neg) + 0.5 * sum(p == n for n in neg)
            total += len(neg)
    return _mean(need_sims), wins / total if total else 0.0


def valid_only(ss: list[Scenario]) -> list[Scenario]:
    """The scenarios the validator finds no error in (the authors' file has one such)."""
    return [s for s, r in zip(ss, validate_all(ss), strict=True) if not r.errors]


def _middle(xs: list[float]) -> tuple[float, float]:
    """The 10th and 90th percentiles (inclusive method: within the observed values)."""
    deciles = statistics.quantiles(xs, n=10, method="inclusive")
    return deciles[0], deciles[-1]


def report(
    sets: dict[str, list[Scenario]], authors: list[Scenario], model: Any = None
) -> dict[str, Any]:
    """Every statistic of every set, the authors' per-scenario range and whether each set is in it."""
    rows: dict[str, Any] = {}
    for stat in (*STATS, *SHAPE):
        lo, hi = _middle([stat.compute([s]) for s in authors])
        if stat.ceiling is not None:
            hi = min(hi, stat.ceiling)
        values = {name: stat.compute(ss) for name, ss in sets.items()}
        rows[stat.label] = {
            "values": values,
            "range": (lo, hi),
            "checked": stat in STATS,
            "within": {
                n: lo <= v <= hi if stat.ceiling is None else v <= hi for n, v in values.items()
            },
            "fmt": stat.fmt,
        }
    if model is not None:
        emb = {name: embedding_stats(ss, model) for name, ss in sets.items()}
        per = [embedding_stats([s], model) for s in authors]
        for k, label in enumerate(("need-objective cosine (mean)", "need rank AUC")):
            lo, hi = _middle([p[k] for p in per])
            values = {n: e[k] for n, e in emb.items()}
            rows[label] = {
                "values": values,
                "range": (lo, hi),
                "checked": True,
                "within": {n: lo <= v <= hi for n, v in values.items()},
                "fmt": "{:.3f}",
            }
    return rows


def markdown(rows: dict[str, Any]) -> str:
    """The report as a Markdown table: one column per set, then the authors' range."""
    names = list(next(iter(rows.values()))["values"])
    lines = [
        "| statistic | " + " | ".join(names) + " | authors' range |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for label, row in rows.items():
        fmt = row["fmt"].format
        cells = [
            fmt(row["values"][n]) + ("" if not row["checked"] or row["within"][n] else " ✗")
            for n in names
        ]
        lo, hi = row["range"]
        span = f"{fmt(lo)}–{fmt(hi)}" + ("" if row["checked"] else " (not checked)")
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {span} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit 1 if a checked statistic of a set lies outside the authors' range."""
    parser = argparse.ArgumentParser(description="Scenario-set statistics against the authors'.")
    parser.add_argument("sets", nargs="+", help="shipped set names or scenario files")
    parser.add_argument(
        "--authors",
        default="../shared/reference-scenarios/rebuttal_ablation_scenarios.json",
        help="the authors' scenario file the range comes from",
    )
    parser.add_argument("--embeddings", action="store_true", help="add the embedding rows")
    args = parser.parse_args(argv)
    authors = valid_only(load(args.authors))
    sets = {name: valid_only(load(name)) for name in args.sets}
    model = None
    if args.embeddings:
        from scenarios.embedding import load_embedder

        _, model = load_embedder()
    rows = report(sets, authors, model)
    print(markdown(rows))
    bad = outside(rows)
    if bad:
        print("outside the authors' range: " + "; ".join(bad))
    return 1 if bad else 0


def outside(rows: dict[str, Any]) -> list[str]:
    """``"set: statistic"`` for every checked statistic a set leaves the authors' range on."""
    return [
        f"{name}: {label}"
        for label, row in rows.items()
        if row["checked"]
        for name, ok in row["within"].items()
        if not ok
    ]


if __name__ == "__main__":
    raise SystemExit(main())
