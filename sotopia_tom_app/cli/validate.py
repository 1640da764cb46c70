"""``sotopia-tom validate``: scenarios checked against the benchmark's review rules."""

from __future__ import annotations

import json
from typing import Annotated

import typer

import scenarios
from sotopia_tom_app.cli import errors as checks


def validate(
    paths: Annotated[
        list[str], typer.Argument(help="Scenario files or folders, or a shipped set name.")
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON list of per-scenario reports.")
    ] = False,
) -> None:
    """Check scenarios against the benchmark's review rules; exit 1 if any has errors."""
    loaded: list[scenarios.Scenario] = []
    for p in paths:
        with checks.scenario_errors(p):
            loaded += scenarios.load(p)
    reports = scenarios.validate_all(loaded)
    if as_json:
        typer.echo(json.dumps([r.to_json() for r in reports], indent=2, ensure_ascii=False))
    else:
        _print_reports(reports)
    raise typer.Exit(1 if any(r.errors for r in reports) else 0)


def _print_reports(reports: list[scenarios.Report]) -> None:
    for r in reports:
        for f in [*r.errors, *r.warnings]:
            typer.echo(str(f))
    bad = sum(1 for r in reports if r.errors)
    warned = sum(1 for r in reports if r.warnings)
    typer.echo(
        f"{len(reports)} scenarios: {len(reports) - bad} without errors, {bad} with errors, {warned} with warnings"
    )
