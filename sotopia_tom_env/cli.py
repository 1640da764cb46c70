"""The ``sotopia-tom`` command line (the application layer: it may import every package)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

import scenarios

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Sotopia-ToM environment tools.")


@app.callback()
def _root() -> None:
    """Sotopia-ToM: privacy-aware multi-agent information sharing, as an RL environment."""


@app.command()
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
        try:
            loaded += scenarios.load(p)
        except (scenarios.ScenarioFormatError, FileNotFoundError) as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
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


if __name__ == "__main__":  # pragma: no cover
    app()
