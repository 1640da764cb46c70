"""Summaries of re-judged episodes: the mean of each metric, and how two judges agree.

``sotopia-tom judge`` writes ``judged-rule.jsonl`` or ``judged-llm.jsonl`` (one row per
episode with ``episode_id`` and ``scores``); these functions read such rows, and
:func:`judge_rows` also takes a run's own judgment as the rows of that judge. A metric that
failed for an episode is null in its row and is left out of that metric's numbers, so a
failure never counts as a zero. Agreement is per metric over the episodes both judges scored:
the means, their difference, and Pearson's and Spearman's correlations of the per-episode
scores (the paper's judge-agreement table).
"""

from __future__ import annotations

import logging
import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sotopia_tom_app.bench.records import EpisodeRecord, read_judged

METRICS = ("DA", "IA", "EFF", "CPV", "CM")

log = logging.getLogger(__name__)


def metric_means(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """The mean of each metric over the rows that have it (None when none has).

    Example:
        >>> metric_means([{"scores": {"DA": 1.0, "CM": None}}, {"scores": {"DA": 0.5}}])["DA"]
        0.75
    """
    out: dict[str, float | None] = {}
    for m in METRICS:
        values = [v for r in rows if (v := r["scores"].get(m)) is not None]
        out[m] = statistics.fmean(values) if values else None
    return out


@dataclass(frozen=True)
class Agreement:
    """How two judges score the same episodes on one metric."""

    metric: str
    n: int  # episodes both judges scored on this metric
    mean_a: float | None
    mean_b: float | None
    mean_diff: float | None  # mean of (b - a) over the paired episodes
    correlation: float | None  # Pearson r; None under 2 pairs or when a side is constant
    spearman: float | None = None  # Spearman rho (rank correlation); None as for Pearson

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (``pearson`` for ``correlation``)."""
        out = asdict(self)
        out["pearson"] = out.pop("correlation")
        return out


def agreement(
    rows_a: Sequence[dict[str, Any]], rows_b: Sequence[dict[str, Any]]
) -> list[Agreement]:
    """Per metric, compare judge ``b`` with judge ``a`` on the episodes both judged.

    Episodes are paired by ``episode_id``; an episode only one judge scored is left out.

    Example:
        >>> a = [{"episode_id": "x", "scores": {"DA": 1.0}}, {"episode_id": "y", "scores": {"DA": 0.0}}]
        >>> b = [{"episode_id": "x", "scores": {"DA": 0.5}}, {"episode_id": "y", "scores": {"DA": 0.0}}]
        >>> da = agreement(a, b)[0]
        >>> da.mean_diff, da.correlation, da.spearman
        (-0.25, 1.0, 1.0)
    """
    by_id = {r["episode_id"]: r["scores"] for r in rows_b}
    out = []
    for m in METRICS:
        pairs = [
            (a, b)
            for r in rows_a
            if r["episode_id"] in by_id
            and (a := r["scores"].get(m)) is not None
            and (b := by_id[r["episode_id"]].get(m)) is not None
        ]
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        out.append(
            Agreement(
                metric=m,
                n=len(pairs),
                mean_a=statistics.fmean(xs) if xs else None,
                mean_b=statistics.fmean(ys) if ys else None,
                mean_diff=statistics.fmean(y - x for x, y in pairs) if pairs else None,
                correlation=_pearson(xs, ys),
                spearman=_spearman(xs, ys),
            )
        )
    return out


def _pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r, or None where it is undefined (fewer than 2 pairs, a constant side)."""
    if len(xs) < 2 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    r = statistics.correlation(xs, ys)
    return None if math.isnan(r) else r


def _spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rho: Pearson's r of the ranks (ties share their mean rank); None as for it."""
    from scipy.stats import rankdata  # the bench extra; only agreement needs it here

    return _pearson([float(x) for x in rankdata(xs)], [float(y) for y in rankdata(ys)])


class UnknownJudge(ValueError):
    """A run folder holds no scores of the judge asked for."""


def judge_rows(out: Path, judge: str, records: Sequence[EpisodeRecord]) -> list[dict[str, Any]]:
    """The per-episode scores of ``judge`` for the episodes of ``records``.

    They come from ``out/judged-<judge>.jsonl`` where ``sotopia-tom judge`` wrote one (a
    damaged line or a row of another folder's episode is skipped, with a warning for damage);
    otherwise from the records' own judgments when the run was judged by ``judge`` (a judge
    named ``llm:<model>`` counts as ``llm``).

    Raises:
        UnknownJudge: neither source exists for ``judge``.
    """
    path = out / f"judged-{judge}.jsonl"
    if path.exists():
        return read_judged(path, (r.episode_id for r in records))
    own = [
        {"episode_id": r.episode_id, "scores": r.scores.summary() if r.scores else {}}
        for r in records
        if r.judgment is not None and r.judgment.judge.split(":", 1)[0] == judge
    ]
    if not own:
        raise UnknownJudge(
            f"no scores of judge {judge!r} in {out}: run `sotopia-tom judge {out} --judge {judge}` "
            "first (the run's own judge needs no file)"
        )
    return own
