"""``sotopia-tom show``: one scenario as a card, or as its JSON record."""

from __future__ import annotations

from typing import Annotated

import typer

from sotopia_tom_app.cli import errors as checks


def show(
    scenario_id: Annotated[str, typer.Argument(help="A scenario id, e.g. tiny-3-agents.")],
    scenario_set: Annotated[
        str | None,
        typer.Option("--set", help="Set or file holding it; default: search the shipped sets."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the scenario record as JSON.")
    ] = False,
) -> None:
    """Print one scenario as a card: goal, agents, facts, sharing rules, evaluation targets."""
    from sotopia_tom_app.catalog import find_scenario, scenario_card

    with checks.scenario_errors(scenario_set or "the shipped sets", "--set"):
        scenario, found_in = find_scenario(scenario_id, scenario_set)
    if as_json:
        typer.echo(scenario.model_dump_json(indent=2))
    else:
        typer.echo(scenario_card(scenario, found_in))
