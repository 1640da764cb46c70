"""``sotopia-tom list``: the shipped scenario sets, their scenarios, the policies and judges."""

from __future__ import annotations

import json
from typing import Annotated

import typer

import scenarios
from sotopia_tom_app.cli import errors as checks
from sotopia_tom_app.cli.options import AsJsonOpt

list_app = typer.Typer(
    no_args_is_help=True,
    help="List what exists: scenario sets, scenarios, policies and judges.",
)


@list_app.command("sets")
def list_sets(as_json: AsJsonOpt = False) -> None:
    """The shipped scenario sets: size, sectors, agent counts and what each is for."""
    from sotopia_tom_app.catalog import set_rows

    rows = set_rows()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    width = max(len(r["set"]) for r in rows) + 1
    for r in rows:
        agents = "/".join(map(str, r["agents"]))
        typer.echo(f"{r['set']:<{width}}{r['scenarios']:>4} scenarios  {len(r['sectors'])} sectors  "
                   f"{agents} agents  {r['about']}")  # fmt: skip
    typer.echo(
        "Any scenario file or folder in the benchmark's format works too (validate it first)."
    )


@list_app.command("scenarios")
def list_scenarios(
    scenario_set: Annotated[
        str, typer.Option("--set", help="Shipped set name or scenario file/folder.")
    ] = "gold",
    sector: Annotated[str | None, typer.Option(help="Only scenarios of this sector.")] = None,
    as_json: AsJsonOpt = False,
) -> None:
    """The scenarios of a set: id, sector and agent count (`show ID` prints one in full)."""
    from sotopia_tom_app.catalog import scenario_rows

    with checks.scenario_errors(scenario_set, "--set"):
        loaded = scenarios.load(scenario_set)
    rows = scenario_rows(loaded, sector)
    if sector is not None and not rows:
        known = sorted({s.sector or "-" for s in loaded})
        raise checks.bad(
            "--sector", f"no {sector!r} scenarios in {scenario_set!r}; sectors: {known}"
        )
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max(len(r["id"]) for r in rows) + 2 if rows else 4
    typer.echo(f"{'id':<{width}}{'sector':<15}agents")
    for r in rows:
        typer.echo(f"{r['id']:<{width}}{r['sector']:<15}{r['agents']}")
    typer.echo(f"{len(rows)} scenarios")


@list_app.command("policies")
def list_policies(as_json: AsJsonOpt = False) -> None:
    """Every name --policy/--policies accept (scripted, prompted, trained) and every --judge."""
    from sotopia_tom_app.catalog import policy_rows

    rows = policy_rows()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    kind = None
    for r in rows:
        if r["kind"] != kind:
            kind = r["kind"]
            typer.echo(f"{kind}{'s' if kind == 'judge' else ''}:")
        typer.echo(f"  {r['name']:<25}{r['about']}")
