"""The options several commands share, and the checks of their values before anything runs."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from policies.budgets import BudgetChoice
from policies.prompts import PLAYER_OPTIONS
from sotopia_tom_app.cli import errors as checks

AsJsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

ModelOpt = Annotated[
    str | None,
    typer.Option(help="Model: a served name with --base-url, else a local folder or HF id."),
]
BaseUrlOpt = Annotated[
    str | None, typer.Option(help="OpenAI-compatible endpoint; default: start a local vLLM server.")
]
JudgeOpt = Annotated[
    Literal["rule", "llm"],
    typer.Option(help="Judge: rule (deterministic, no LLM) or llm (see `list policies`)."),
]
MaxTurnsOpt = Annotated[
    int, typer.Option(min=1, help="Steps before an episode is cut off (truncated).")
]
PlayerOptionsOpt = Annotated[
    str,
    typer.Option(
        help=f"Comma-separated refinements of the LLM players ({', '.join(PLAYER_OPTIONS)}; "
        "see docs/players.md); none: the paper's players."
    ),
]
MaxTokensOpt = Annotated[
    str,
    typer.Option(
        help="Token budget of each LLM call of the players: auto (fitted to the call's purpose "
        "when the served model's context is small, as the embedded default's; none for a large "
        "or unknown context), none (no budget, as the paper) or a number (docs/players.md)."
    ),
]
JudgeModelOpt = Annotated[
    str | None, typer.Option(help="Model of the LLM judge; default: the same as --model.")
]
JudgeBaseUrlOpt = Annotated[
    str | None, typer.Option(help="Endpoint of the LLM judge; default: the same as --base-url.")
]


def max_tokens_choice(value: str) -> BudgetChoice:
    """The ``--max-tokens`` choice (``"auto"``, None or a number), checked before anything runs."""
    from policies.budgets import parse_choice

    try:
        return parse_choice(value)
    except ValueError as e:
        raise checks.bad("--max-tokens", str(e)) from None


def player_options_choice(value: str) -> tuple[str, ...]:
    """The ``--player-options``, checked before any folder, file or server exists."""
    from policies.prompts import check_options

    try:
        return check_options(value.split(","))
    except ValueError as e:
        raise checks.bad("--player-options", str(e)) from None


def limit_seed_choice(limit: int | None, seed: int) -> int:
    """The seed of the ``--limit`` draw; without ``--limit`` a seed would silently do nothing."""
    if limit is None and seed != 0:
        raise checks.bad("--limit-seed", "it seeds the --limit draw: give --limit too")
    return seed


def checked_judge_endpoint(
    judge: str,
    model: str | None,
    base_url: str | None,
    judge_model: str | None,
    judge_base_url: str | None,
) -> tuple[str | None, str | None]:
    """Check ``--judge`` and the judge's endpoint options before anything starts (exit 2 if bad)."""
    from sotopia_tom_app.bench.judging import check_judge, judge_endpoint

    try:
        check_judge(judge)
        return judge_endpoint(model, base_url, judge_model, judge_base_url)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
