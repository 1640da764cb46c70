"""``sotopia-tom run``: play one episode, judge it, print it (and save it with ``--out``)."""

from __future__ import annotations

import asyncio
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer

import scenarios
from policies.budgets import BudgetChoice
from sotopia_tom_app.cli import errors as checks
from sotopia_tom_app.cli.options import (
    BaseUrlOpt,
    JudgeOpt,
    MaxTokensOpt,
    MaxTurnsOpt,
    ModelOpt,
    PlayerOptionsOpt,
    max_tokens_choice,
    player_options_choice,
)
from sotopia_tom_app.cli.output import print_episode, refuse_duplicate, save_episode


def run(
    scenario_set: Annotated[
        str, typer.Option("--scenarios", help="Shipped set name or scenario file.")
    ] = "tiny",
    scenario_id: Annotated[
        str | None, typer.Option(help="Scenario to play; default: sampled with --seed.")
    ] = None,
    policy: Annotated[
        str,
        typer.Option(help="Policy for every agent, e.g. ideal, random, basic (`list policies`)."),
    ] = "ideal",
    judge: JudgeOpt = "rule",
    seed: Annotated[
        int, typer.Option(min=0, help="Seed of the scenario draw and of the players' choices.")
    ] = 0,
    max_turns: MaxTurnsOpt = 60,
    player_options: PlayerOptionsOpt = "",
    max_tokens: MaxTokensOpt = "auto",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(file_okay=False, help="Append the episode record to OUT/episodes.jsonl."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print only the scores as JSON.")] = False,
) -> None:
    """Play one episode, judge it and print the transcript and scores.

    While an LLM plays, a bar on stderr shows the steps played, the calls done and the tokens
    generated.
    """
    from policies import SCRIPTED
    from sotopia_tom_app.bench.lock import hold
    from sotopia_tom_app.bench.orchestrate import players_client

    trained = checks.policies([policy], "--policy", base_url, "policy")
    options = player_options_choice(player_options)
    budget = max_tokens_choice(max_tokens)
    checks.endpoint(model, base_url)
    with checks.scenario_errors(scenario_set, "--scenarios"):
        chosen = scenarios.load(scenario_set)
    if scenario_id is not None and scenario_id not in {s.id for s in chosen}:
        raise checks.bad("--scenario-id", f"{scenario_id!r} is not in {scenario_set!r}")
    needs_llm = policy not in SCRIPTED or judge == "llm"
    with hold(out) if out is not None else nullcontext():
        if out is not None and scenario_id is not None:
            refuse_duplicate(out, f"{policy}/{scenario_id}/{seed}")
        # One episode: a local server needs only the smallest KV cache, which it makes faster.
        with players_client(needs_llm, model, base_url, trained, episodes=1) as client:
            if policy not in SCRIPTED:
                typer.echo(_budgets_line(options, budget, client), err=True)
            record = asyncio.run(
                _play(chosen, scenario_id, policy, judge, seed, max_turns, client, options, budget)
            )
        print_episode(record, as_json, judge)
        if out is not None:
            save_episode(out, record)


async def _play(
    chosen: list[scenarios.Scenario],
    scenario_id: str | None,
    policy: str,
    judge_kind: str,
    seed: int,
    max_turns: int,
    client: Any,
    options: tuple[str, ...],
    budget: BudgetChoice,
) -> Any:
    """The episode's record; without ``scenario_id`` the env draws the scenario with ``seed``."""
    from sotopia_tom_app.bench.episode import (
        episode_progress,
        play_recorded,
        players_model,
        players_of,
    )
    from sotopia_tom_app.bench.judging import make_judge
    from sotopia_tom_env.env import SotopiaToMEnv

    players = players_of(policy, seed=seed, client=client, options=options, max_tokens=budget)
    return await play_recorded(
        SotopiaToMEnv(scenarios=chosen, max_turns=max_turns), players, label=policy, seed=seed,
        judge=make_judge(judge_kind, client), model=players_model(policy, client),
        scenario=scenario_id, refuse_failed=False,
        watch=lambda env: episode_progress(client, policy, env),
    )  # fmt: skip


def _budgets_line(options: tuple[str, ...], budget: BudgetChoice, client: Any) -> str:
    """What each call of the players may generate, and why (printed before an episode starts)."""
    from policies.budgets import is_small, of_players

    context = getattr(client, "context_tokens", None)
    table = of_players(options, budget, context).as_dict()
    if all(v is None for v in table.values()):
        return "token budgets: none (the server's own limit applies, as in the paper)"
    shown = ", ".join(f"{k} {'none' if v is None else v}" for k, v in table.items())
    if budget == "auto" and is_small(context):
        why = f"fitted to the served model's {context}-token context"
    else:
        why = "as asked" if budget != "auto" else "as the player options ask"
    return f"token budgets per call: {shown} ({why}; --max-tokens changes them)"
