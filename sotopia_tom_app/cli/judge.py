"""``sotopia-tom judge``: re-judge saved episodes, and compare the rule and LLM judges."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from sotopia_tom_app.cli import errors as checks
from sotopia_tom_app.cli.options import (
    BaseUrlOpt,
    JudgeBaseUrlOpt,
    JudgeModelOpt,
    JudgeOpt,
    ModelOpt,
    checked_judge_endpoint,
)
from sotopia_tom_app.cli.output import metric_line, scores_json


def judge_cmd(
    run_dir: Annotated[
        Path,
        typer.Argument(
            exists=True,
            file_okay=False,
            help="A folder with episodes.jsonl (from run --out or bench).",
        ),
    ],
    judge: JudgeOpt = "rule",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    judge_model: JudgeModelOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the per-episode scores as JSON.")
    ] = False,
) -> None:
    """Re-judge saved episodes; writes RUN_DIR/judged-<judge>.jsonl beside them.

    Prints each episode's scores (sorted by episode id), the mean of each metric, and, once
    both judged-rule.jsonl and judged-llm.jsonl exist, how the two judges differ per metric.
    """
    from sotopia_tom_app.bench.agreement import metric_means
    from sotopia_tom_app.bench.judging import judge_client
    from sotopia_tom_app.bench.records import EPISODES_FILE, read_episodes
    from sotopia_tom_app.bench.report import NoEpisodes

    endpoint = checked_judge_endpoint(judge, model, base_url, judge_model, judge_base_url)
    records = read_episodes(run_dir / EPISODES_FILE)  # one per episode id
    if not records:
        raise NoEpisodes(f"no episodes in {run_dir / EPISODES_FILE}")
    with judge_client(judge, None, (model, base_url), endpoint) as client:
        rows = asyncio.run(_rejudge(records, judge, client))
    rows.sort(key=lambda r: r["episode_id"])
    out = run_dir / f"judged-{judge}.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for r in rows:
        typer.echo(f"{r['episode_id']}: {metric_line(r['scores'])}")
    typer.echo(f"mean over {len(rows)} episodes: {metric_line(metric_means(rows))}")
    _print_judge_comparison(run_dir)
    typer.echo(f"wrote {out}")


def _print_judge_comparison(run_dir: Path) -> None:
    """With both judges' files in ``run_dir``, print how the LLM judge differs from the rule one."""
    from sotopia_tom_app.bench.agreement import agreement

    files = [run_dir / f"judged-{kind}.jsonl" for kind in ("rule", "llm")]
    if not all(f.exists() for f in files):
        return
    rule, llm = (_read_judged(f) for f in files)
    typer.echo("llm vs rule judge (episodes both scored; diff = llm - rule):")
    for a in agreement(rule, llm):
        if a.n == 0:
            typer.echo(f"  {a.metric:<4} no episode scored by both")
            continue
        r, rho = ("n/a" if x is None else f"{x:+.3f}" for x in (a.correlation, a.spearman))
        typer.echo(f"  {a.metric:<4} n={a.n}  rule={a.mean_a:.4f}  llm={a.mean_b:.4f}  "
                   f"diff={a.mean_diff:+.4f}  r={r}  rho={rho}")  # fmt: skip


def _read_judged(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``judged-*.jsonl`` file; a damaged file is a usage error naming the line."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rows.append({"episode_id": row["episode_id"], "scores": dict(row["scores"])})
        except (ValueError, KeyError, TypeError) as e:
            raise checks.UsageError(
                f"{path}, line {n}: not a judged episode ({e!r}); rerun `sotopia-tom judge` "
                f"with --judge {path.stem.removeprefix('judged-')} to rewrite it"
            ) from None
    return rows


async def _rejudge(records: list[Any], kind: str, client: Any) -> list[dict[str, Any]]:
    from sotopia_tom_app.bench.judging import judge_episode, make_judge

    judge = make_judge(kind, client)
    done = await asyncio.gather(*(judge_episode(judge, r.scenario, r.transcript) for r in records))
    return [
        {
            "episode_id": r.episode_id,
            "judgment": j.model_dump(),
            "failures": s.failures,
            **scores_json(s),
        }
        for r, (j, s) in zip(records, done, strict=True)
    ]
