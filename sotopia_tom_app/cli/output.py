"""How commands print an episode and its scores, and how they save one into ``--out``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from sotopia_tom_app.cli import errors as checks

METRICS = ("DA", "IA", "EFF", "CPV", "CM")


def refuse_duplicate(out: Path, episode_id: str) -> None:
    """Refuse to add an episode the folder already holds (a report counts each id once)."""
    from sotopia_tom_app.bench.records import EPISODES_FILE, drop_torn_tail, read_records

    drop_torn_tail(out / EPISODES_FILE)  # safe: the caller holds the folder's lock
    if any(r.episode_id == episode_id for r in read_records(out / EPISODES_FILE)):
        raise checks.UsageError(
            f"--out: {out} already holds episode {episode_id}; use another --out folder"
        )


def save_episode(out: Path, record: Any) -> None:
    """Append the record to ``OUT/episodes.jsonl`` unless its episode is there already."""
    from sotopia_tom_app.bench.records import EPISODES_FILE, append_record

    refuse_duplicate(out, record.episode_id)
    append_record(out / EPISODES_FILE, record)


def scores_json(scores: Any) -> dict[str, Any]:
    """``{"scores": {DA, IA, EFF, CPV, CM}, "per_agent": {role: {DA, IA, EFF, CPV, CM}}}``.

    One key style for both levels, the metric names as the paper writes them; a failed metric
    is null.
    """
    return {
        "scores": scores.summary(),
        "per_agent": {role: upper_keys(parts) for role, parts in scores.per_agent.items()},
    }


def upper_keys(parts: Any) -> dict[str, float]:
    """A per-agent breakdown keyed like the scenario scores (``cm`` -> ``CM``), in their order."""
    dumped = {k.upper(): v for k, v in parts.model_dump().items()}
    return {k: dumped[k] for k in METRICS if k in dumped}


def print_episode(record: Any, as_json: bool, judge: str) -> None:
    """Print the episode's transcript and scores, or (``as_json``) its id and scores as JSON."""
    if as_json:
        head = {"episode_id": record.episode_id, "scenario": record.scenario.id,
                "policy": record.policy, "seed": record.seed, "judge": judge}  # fmt: skip
        typer.echo(json.dumps({**head, **scores_json(record.scores)}))
        return
    typer.echo(record.transcript.judge_text())
    summary = record.scores.summary()
    typer.echo("  ".join(f"{k}={'n/a' if v is None else f'{v:.4f}'}" for k, v in summary.items()))
    for role, parts in record.scores.per_agent.items():
        typer.echo(f"  {role}: " + "  ".join(f"{k}={v:.4f}" for k, v in upper_keys(parts).items()))
    for metric, why in record.scores.failures.items():
        typer.echo(f"  judge failure for {metric}: {why}")


def metric_line(scores: dict[str, float | None]) -> str:
    """``DA=1.0000  IA=...`` in the metrics' order; a failed or missing metric reads n/a."""
    return "  ".join(
        f"{m}={'n/a' if scores.get(m) is None else f'{scores[m]:.4f}'}" for m in METRICS
    )
