"""The numbers of a benchmark report, computed from saved episode records only.

Means come with seeded 95% bootstrap confidence intervals. Episodes whose judgment failed are
counted as failures and left out of the means (never scored as 0). Each episode id counts once:
a repeated record of the same episode is ignored.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from sotopia_tom_app.bench.failures import disclosure_failures, inquiry_failures
from sotopia_tom_app.bench.records import EpisodeRecord, unique_episodes

# EFF_H and CM_H: EFF over a fixed horizon (the run's max_turns), and CM with it; the training
# reward's efficiency, which talk that says nothing cannot raise (rewards.metrics.fixed_horizon).
# IA_I: the training reward's informative IA, which pays no ask for an item already received
# (rewards.informing.informative_ia, read from the rule judge's evidence of the transcript).
METRICS = ("DA", "IA", "EFF", "CPV", "CM", "EFF_H", "CM_H", "IA_I")


def label(r: EpisodeRecord) -> str:
    """How a policy is named in reports: ``policy`` or ``policy @ model``.

    Cross-play adds ``beside PARTNERS``; its rows score the tested seat alone.
    """
    name = f"{r.policy} @ {r.model}" if r.model else r.policy
    return f"{name} beside {r.partners}" if r.partners else name


def bootstrap_ci(
    values: Sequence[float], seed: int = 0, resamples: int = 2000
) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean (degenerate with fewer than 2 values)."""
    data = np.asarray(values, dtype=float)
    if len(data) < 2 or np.all(data == data[0]):
        m = float(data.mean()) if len(data) else float("nan")
        return m, m
    from scipy.stats import bootstrap

    res = bootstrap((data,), np.mean, confidence_level=0.95, n_resamples=resamples, method="percentile",
                    rng=np.random.default_rng(seed))  # fmt: skip
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def metric_table(records: Iterable[EpisodeRecord], seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per policy label: episodes, failures, and mean / CI of every metric."""
    groups: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        groups[label(r)].append(r)
    table = {}
    for name, rs in groups.items():
        row: dict[str, Any] = {
            "episodes": len(rs),
            "judge_failures": sum(1 for r in rs if _cm(r) is None),
        }
        for m in METRICS:
            vals = [v for r in rs if (v := _metric(r, m)) is not None]
            low, high = bootstrap_ci(vals, seed) if vals else (float("nan"), float("nan"))
            row[m] = {
                "mean": float(np.mean(vals)) if vals else float("nan"),
                "ci": [low, high],
                "n": len(vals),
            }
        table[name] = row
    return table


def sector_table(records: Iterable[EpisodeRecord]) -> dict[str, dict[str, float]]:
    """Per policy label and sector: mean CM."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        if (cm := _cm(r)) is not None:
            cells[(label(r), r.scenario.sector or "unknown")].append(cm)
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (name, sector), vals in sorted(cells.items()):
        out[name][sector] = float(np.mean(vals))
    return dict(out)


def interaction_stats(records: Iterable[EpisodeRecord]) -> dict[str, dict[str, float]]:
    """Per policy label: rounds, messages, rates and shares, cut replies, tokens."""
    groups: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        groups[label(r)].append(r)
    out = {}
    for name, rs in groups.items():
        turns = [t for r in rs for t in r.turn_log]
        msgs = [m for r in rs for m in r.transcript.messages if m.action_type == "speak"]
        judged = [r for r in rs if _cm(r) is not None]
        out[name] = {
            "rounds": float(np.mean([r.transcript.rounds for r in rs])),
            "messages": float(np.mean([len(r.transcript.messages) for r in rs])),
            "talk_rate": _share(t["action_type"] == "speak" for t in turns),
            "private_rate": _share(m.channel == "private" for m in msgs),
            "malformed_rate": _share(bool(t["error"]) for t in turns),
            "stale_rate": _share(_metric(r, "EFF") == 0 for r in judged),
            "violation_rate": _share((_metric(r, "CPV") or 0) > 0 for r in judged),
            "zero_cm_rate": _share(_cm(r) == 0 for r in judged),
            "leave_rate": sum(map(_left, rs)) / max(1, sum(len(r.scenario.agents) for r in rs)),
            "budget_cuts": float(sum(r.llm.get("budget_cuts", 0) for r in rs)),
            "completion_tokens": float(sum(r.llm.get("completion_tokens", 0) for r in rs)),
        }
    return out


def paired_differences(
    records: Iterable[EpisodeRecord], a: str, b: str, seed: int = 0
) -> dict[str, Any]:
    """Mean per-episode difference ``b − a`` of every metric, with its 95% bootstrap interval.

    Besides the report's metrics, ``reward``: the episode reward (:func:`episode_reward`).

    Over the scenario-seed pairs both policies played (labels or bare policy names): each
    scenario is its own control, so the interval is narrower than the two means' suggest.

    Raises:
        KeyError: a label has no episodes.
    """
    by_key: dict[str, dict[tuple[str, int], EpisodeRecord]] = {a: {}, b: {}}
    for r in unique_episodes(records):
        for name in {label(r), r.policy} & by_key.keys():  # "basic @ model" or just "basic"
            by_key[name][(r.scenario.id, r.seed)] = r
    for name, found in by_key.items():
        if not found:
            raise KeyError(f"no episodes of policy {name!r}")
    keys = sorted(by_key[a].keys() & by_key[b].keys())
    out: dict[str, Any] = {"a": a, "b": b, "pairs": len(keys), "metrics": {}}
    for m in (*METRICS, "reward"):
        diffs = [
            y - x
            for k in keys
            if (x := _metric(by_key[a][k], m)) is not None
            and (y := _metric(by_key[b][k], m)) is not None
        ]
        low, high = bootstrap_ci(diffs, seed) if diffs else (float("nan"), float("nan"))
        mean = float(np.mean(diffs)) if diffs else float("nan")
        out["metrics"][m] = {"mean": mean, "ci": [low, high], "n": len(diffs)}
    return out


def acquisition_curves(records: Iterable[EpisodeRecord]) -> dict[str, list[float]]:
    """Per policy label: share of all desired items acquired by the end of each round.

    Entry ``k`` is round ``k + 1`` (1-based). Every curve runs over the same rounds, up to the
    longest judged conversation of the run, so a policy that stops acquiring early (or never
    acquires anything) still shows as a flat line over the whole range, not a lone point.
    """
    records = [r for r in records if r.judgment is not None and r.judgment.eff is not None]
    horizon = max((r.transcript.rounds for r in records), default=0)
    acquired: dict[str, list[int | None]] = defaultdict(list)
    for r in records:
        assert r.judgment is not None and r.judgment.eff is not None  # filtered above
        for agent in r.judgment.eff.agents:
            acquired[label(r)] += [
                a.round_acquired if a.was_acquired else None for a in agent.acquisitions
            ]
    out = {}
    for name, rounds in acquired.items():
        # An acquisition the judge dates past the transcript's last round still counts there.
        horizon_here = max([horizon, *(x + 1 for x in rounds if x is not None)])
        out[name] = [
            sum(1 for x in rounds if x is not None and x < k) / len(rounds) if rounds else 0.0
            for k in range(1, horizon_here + 1)
        ]
    width = max((len(ys) for ys in out.values()), default=0)
    return {name: ys + ys[-1:] * (width - len(ys)) for name, ys in out.items()}


def policy_order(metrics: dict[str, dict[str, Any]]) -> list[str]:
    """Policy labels by mean InfoMgmt, best first (unscored last, ties by name).

    Every table and plot of a report lists policies in this one order.
    """

    def key(name: str) -> tuple[float, str]:
        mean = metrics[name]["CM"]["mean"]
        return (float("inf") if math.isnan(mean) else -mean, name)

    return sorted(metrics, key=key)


def win_rates(records: Iterable[EpisodeRecord]) -> dict[str, dict[str, float]]:
    """Paired per-scenario win rate of row over column on CM (ties count half)."""
    cm: dict[tuple[str, str, int], float] = {}
    for r in records:
        if (v := _cm(r)) is not None:
            cm[(label(r), r.scenario.id, r.seed)] = v
    names = sorted({k[0] for k in cm})
    out: dict[str, dict[str, float]] = {n: {} for n in names}
    for a, b in combinations(names, 2):
        pairs = [
            (cm[(a, s, seed)], cm[(b, s, seed)])
            for (n, s, seed) in cm
            if n == a and (b, s, seed) in cm
        ]
        if pairs:
            wins = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in pairs) / len(pairs)
            out[a][b], out[b][a] = wins, 1 - wins
    return out


def summarize(records: Sequence[EpisodeRecord], seed: int = 0) -> dict[str, Any]:
    """Everything ``summary.json`` holds (one record per episode id: the first one)."""
    records = unique_episodes(records)
    metrics = metric_table(records, seed)
    return {
        "episodes": len(records),
        "order": policy_order(metrics),
        "metrics": metrics,
        "sectors": sector_table(records),
        "interaction": interaction_stats(records),
        "acquisition": acquisition_curves(records),
        "win_rates": win_rates(records),
        "disclosure_failures": disclosure_failures(records, label),
        "inquiry_failures": inquiry_failures(records, label),
        "bootstrap_seed": seed,
    }


def _cm(r: EpisodeRecord) -> float | None:
    return r.scores.CM if r.scores is not None else None


def _metric(r: EpisodeRecord, m: str) -> float | None:
    if r.scores is None:
        return None
    if m in ("EFF_H", "CM_H"):
        from rewards.metrics import fixed_horizon, horizon_rounds  # the reward layer, lazily

        fixed = fixed_horizon(r.scores, horizon_rounds(r.max_turns, len(r.scenario.agents)))
        if fixed is None:
            return None
        if r.seat is not None:  # cross-play: the tested seat's own
            mine = fixed.per_agent[_seat_role(r)]
            return mine.eff if m == "EFF_H" else mine.cm
        return fixed.EFF if m == "EFF_H" else fixed.CM
    if m == "IA_I":
        return informative_ia(r)
    if m == "reward":
        return episode_reward(r)
    if r.seat is not None:
        return (
            None if r.scores.CM is None else getattr(r.scores.per_agent[_seat_role(r)], m.lower())
        )
    return r.scores.CM if m == "CM" else r.scores.summary().get(m)


_INFORMATIVE: dict[int, tuple[EpisodeRecord, float]] = {}  # by record, as reports ask often


def informative_ia(r: EpisodeRecord) -> float | None:
    """The training reward's IA (asks made before the item arrived), mean over the seats.

    The tested seat's own in cross-play; None when the episode's judgment failed. Read from the
    rule judge's evidence of the transcript, whatever judge scored the run.
    """
    if r.scores is None or r.scores.CM is None:
        return None
    hit = _INFORMATIVE.get(id(r))
    if hit is not None and hit[0] is r:
        return hit[1]
    from rewards.informing import informative_ia as per_role  # the reward layer, lazily

    ia = per_role(r.scenario, _rule_judge().evidence_all(r.scenario, r.transcript))
    value = ia[_seat_role(r)] if r.seat is not None else float(np.mean(list(ia.values())))
    if len(_INFORMATIVE) > 4096:
        _INFORMATIVE.clear()
    _INFORMATIVE[id(r)] = (r, value)  # the record is kept, so its id stays its own
    return value


def _rule_judge() -> Any:
    if not _JUDGE:
        from rewards.judges.rule import RuleJudge

        _JUDGE.append(RuleJudge())
    return _JUDGE[0]


_JUDGE: list[Any] = []


def _seat_role(r: EpisodeRecord) -> str:
    assert r.seat is not None
    return r.scenario.roles[int(r.seat.rsplit("_", 1)[1])]


def episode_reward(r: EpisodeRecord) -> float | None:
    """The mean over seats of what the env's default reward pays each: InfoMgmt minus penalties.

    ``rewards.agent_reward`` from the saved scores (the benchmark's composite, leaks and
    malformed actions charged); None when the judge failed.
    """
    from rewards import agent_reward  # the reward layer, lazily

    if r.scores is None or r.scores.CM is None:
        return None
    errors = Counter(t["agent"] for t in r.turn_log if t.get("error"))
    seats = [(f"agent_{i}", role) for i, role in enumerate(r.scenario.roles)]
    if r.seat is not None:  # cross-play: the tested seat's own
        seats = [(r.seat, _seat_role(r))]
    return float(np.mean([agent_reward(r.scores, role, errors[a]) for a, role in seats]))


def _left(r: EpisodeRecord) -> int:
    """Agents that left, counting the last one when all others did (the env ends it there)."""
    left = sum(t["action_type"] == "leave" for t in r.turn_log)
    return left + (left == len(r.scenario.agents) - 1)


def _share(flags: Iterable[bool]) -> float:
    flags = list(flags)
    return sum(flags) / len(flags) if flags else 0.0
