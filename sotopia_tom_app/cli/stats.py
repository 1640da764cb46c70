"""``sotopia-tom stats``: how scenario sets are written, beside the paper authors' file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

import scenarios
from scenarios import stats as scenario_stats
from sotopia_tom_app.cli import errors as checks

AUTHORS = Path("../shared/reference-scenarios/rebuttal_ablation_scenarios.json")


def stats(
    sets: Annotated[
        list[str], typer.Argument(help="Shipped set names (gold, silver, ...) or scenario files.")
    ],
    authors: Annotated[
        Path,
        typer.Option(
            exists=True, dir_okay=False, help="The authors' scenario file the range comes from."
        ),
    ] = AUTHORS,
    embeddings: Annotated[
        bool,
        typer.Option(
            "--embeddings",
            help="Add the need-objective embedding rows (all-mpnet-base-v2; minutes).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
) -> None:
    """How scenario sets are written, beside the authors' range; exit 1 if a set leaves it.

    Objective length, need-name overlap, needs, privacy and domain-map statistics per set
    (docs/datasets.md).
    """
    loaded = {}
    for name in [*sets, str(authors)]:
        with checks.scenario_errors(name):
            loaded[name] = scenario_stats.valid_only(scenarios.load(name))
    model = None
    if embeddings:
        from scenarios.embedding import load_embedder

        _, model = load_embedder()
    ours = {name: loaded[name] for name in sets}
    rows = scenario_stats.report(ours, loaded[str(authors)], model)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
    else:
        typer.echo(scenario_stats.markdown(rows))
    outside = scenario_stats.outside(rows)
    if outside and not as_json:
        typer.echo("outside the authors' range: " + "; ".join(outside))
    raise typer.Exit(1 if outside else 0)
