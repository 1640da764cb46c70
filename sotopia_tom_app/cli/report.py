"""``sotopia-tom report``: rebuild a results folder's report, with judge agreement or paired differences."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sotopia_tom_app.cli import errors as checks

RunDirArg = Annotated[
    Path, typer.Argument(exists=True, file_okay=False, help="A bench results folder.")
]
OpenOpt = Annotated[
    bool, typer.Option("--open", help="Open report.html in the default web browser.")
]
JudgesOpt = Annotated[
    str | None,
    typer.Option(
        help="Two judges to compare per episode, e.g. rule,llm: Pearson and Spearman "
        "correlations per metric (scores from judged-<judge>.jsonl or the run's own judge)."
    ),
]
PairedOpt = Annotated[
    str | None,
    typer.Option(
        help="Two or more policies A,B[,C...] (as the report names them), e.g. a training "
        "pipeline's stages in order: the paired difference B - A (then C - B, ...) of every "
        "metric and the episode reward over the scenarios both played, with its 95% "
        "bootstrap interval."
    ),
]


def report(
    run_dir: RunDirArg,
    open_html: OpenOpt = False,
    judges: JudgesOpt = None,
    paired: PairedOpt = None,
) -> None:
    """Rebuild the report (summary.json, report.md/html, plots, episode pages) from saved results."""
    from sotopia_tom_app.bench.agreement import UnknownJudge
    from sotopia_tom_app.bench.report import (
        agreement_markdown,
        build_report,
        paired_markdown,
        results_table,
    )

    pair, both = _judge_pair(judges), _paired(paired)
    try:
        summary = build_report(run_dir, judges=pair, paired=both)
    except UnknownJudge as e:
        raise checks.UsageError(f"--judges: {e}") from None
    except KeyError as e:
        raise checks.bad("--paired", str(e.args[0])) from None
    typer.echo(results_table(summary))
    for p in summary.get("paired", []):
        typer.echo(f"\npaired difference, {p['b']} - {p['a']} ({p['pairs']} scenario-seed pairs):")
        typer.echo(paired_markdown(p))
    if "judge_agreement" in summary:
        a, b = pair or ("", "")
        typer.echo(f"\njudge agreement, {b} vs {a} (per-episode scores):")
        typer.echo(agreement_markdown(summary["judge_agreement"]))
    html = run_dir / "report.html"
    typer.echo(f"report: {run_dir / 'report.md'}, {html}")
    if open_html:
        _open_in_browser(html)


def _judge_pair(judges: str | None) -> tuple[str, str] | None:
    """The two judges ``--judges`` names, checked (None without the option)."""
    from sotopia_tom_app.bench.judging import check_judge

    if judges is None:
        return None
    chosen = checks.names(judges, "--judges")
    if len(chosen) != 2:
        raise checks.bad("--judges", f"{judges!r}: name two judges, e.g. rule,llm")
    try:
        return (check_judge(chosen[0]), check_judge(chosen[1]))
    except ValueError as e:
        raise checks.bad("--judges", str(e)) from None


def _paired(paired: str | None) -> tuple[str, ...] | None:
    """The chain of policies ``--paired`` names (None without the option)."""
    if paired is None:
        return None
    both = tuple(p.strip() for p in paired.split(","))
    if len(both) < 2 or not all(both):
        raise checks.bad("--paired", f"{paired!r}: name two or more policies, e.g. sft,grpo")
    return both


def _open_in_browser(html: Path) -> None:
    """Open ``html`` in the default browser; without one, say so (the report is written)."""
    import webbrowser

    if not webbrowser.open(html.resolve().as_uri()):
        typer.echo(f"warning: no browser could be opened; open {html} by hand", err=True)
