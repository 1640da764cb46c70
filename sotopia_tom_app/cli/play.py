"""``sotopia-tom play``: a person plays one seat in the terminal; judged and saved like any episode."""

from __future__ import annotations

import asyncio
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import typer

import scenarios
from sotopia_tom_app.cli import errors as checks
from sotopia_tom_app.cli.options import BaseUrlOpt, JudgeOpt, MaxTurnsOpt, ModelOpt
from sotopia_tom_app.cli.output import print_episode, refuse_duplicate, save_episode

ScenarioIdOpt = Annotated[str, typer.Option(help="Scenario to play, e.g. gold-defense-01.")]
SeatOpt = Annotated[
    str, typer.Option("--as", help="The role (or agent id) you play, e.g. 'Finance Director'.")
]
ScenarioSetOpt = Annotated[
    str, typer.Option("--scenarios", help="Shipped set name or scenario file.")
]
PartnersOpt = Annotated[
    str,
    typer.Option(
        help="Policy of the other agents (ideal, random, basic, …), or one per other agent "
        "in agent order, comma-separated; prompted ones need the LLM (--model/--base-url)."
    ),
]
SeedOpt = Annotated[int, typer.Option(min=0, help="Seed of the partners' choices.")]
OutOpt = Annotated[
    Path | None,
    typer.Option(file_okay=False, help="Append the episode record to OUT/episodes.jsonl."),
]


def play(
    scenario_id: ScenarioIdOpt,
    seat: SeatOpt,
    scenario_set: ScenarioSetOpt = "gold",
    partners: PartnersOpt = "ideal",
    judge: JudgeOpt = "rule",
    seed: SeedOpt = 0,
    max_turns: MaxTurnsOpt = 60,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    out: OutOpt = None,
) -> None:
    """Play one agent yourself, in the terminal, against scripted or prompted partners.

    Each turn shows your agent's observation and the reply instructions, exactly as a model
    sees them; type a message (then whom it is for), /none or /leave. The episode is judged
    and saved as policy `human`, like a benchmark episode.
    """
    from policies import SCRIPTED
    from sotopia_tom_app.bench.judging import make_judge
    from sotopia_tom_app.bench.lock import hold
    from sotopia_tom_app.bench.orchestrate import players_client
    from sotopia_tom_app.bench.seat import play_seat

    names = checks.names(partners, "--partners")
    trained = checks.policies(names, "--partners", base_url, "policy")
    checks.endpoint(model, base_url)
    scenario, agent = _seat(scenario_set, scenario_id, seat, names)
    needs_llm = any(n not in SCRIPTED for n in names) or judge == "llm"
    with hold(out) if out is not None else nullcontext():
        if out is not None:
            refuse_duplicate(out, f"human:{agent}/{scenario_id}/{seed}")
        with players_client(needs_llm, model, base_url, trained) as client:
            record = asyncio.run(
                play_seat(scenario, agent, names, make_judge(judge, client), seed=seed,
                          max_turns=max_turns, client=client)
            )  # fmt: skip
        print_episode(record, False, judge)
        if out is not None:
            save_episode(out, record)
            typer.echo(f"saved {record.episode_id} to {out}")


def _seat(
    scenario_set: str, scenario_id: str, seat: str, partners: list[str]
) -> tuple[scenarios.Scenario, str]:
    """The scenario and the person's agent id, with the partners checked against its seats."""
    from sotopia_tom_app.bench.seat import partner_names, seat_of

    with checks.scenario_errors(scenario_set, "--scenarios"):
        chosen = {s.id: s for s in scenarios.load(scenario_set)}
    if scenario_id not in chosen:
        raise checks.bad("--scenario-id", f"{scenario_id!r} is not in {scenario_set!r}")
    scenario = chosen[scenario_id]
    try:
        agent = seat_of(scenario, seat)
    except ValueError as e:
        raise checks.bad("--as", str(e)) from None
    try:
        partner_names(partners, len(scenario.agents) - 1)
    except ValueError as e:
        raise checks.bad("--partners", str(e)) from None
    return scenario, agent
