"""``sotopia-tom bench``: policies x scenarios x seeds into a results folder, then the report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from sotopia_tom_app.cli import errors as checks
from sotopia_tom_app.cli.options import (
    BaseUrlOpt,
    JudgeBaseUrlOpt,
    JudgeModelOpt,
    JudgeOpt,
    MaxTokensOpt,
    MaxTurnsOpt,
    ModelOpt,
    PlayerOptionsOpt,
    checked_judge_endpoint,
    limit_seed_choice,
    max_tokens_choice,
    player_options_choice,
)

PoliciesOpt = Annotated[
    str, typer.Option(help="Comma-separated policies (`sotopia-tom list policies`).")
]
ScenarioSetOpt = Annotated[str, typer.Option("--scenarios", help="gold, silver, tiny or a path.")]
ScenarioIdsOpt = Annotated[str | None, typer.Option(help="Comma-separated scenario ids to play.")]
PartnersOpt = Annotated[
    str | None,
    typer.Option(
        help="Cross-play: seat each policy among partners of this policy. Every seat of a "
        "scenario is played in turn by the policy under test, the others by the partners; the "
        "report gives the tested seat's own scores (`POLICY beside PARTNERS` rows).",
    ),
]
SkipInvalidOpt = Annotated[
    bool,
    typer.Option(
        "--skip-invalid",
        help="Leave out scenarios that fail `sotopia-tom validate` instead of refusing the run "
        "(third-party files; config.json records it).",
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Only N scenarios, drawn round-robin over sectors in a seeded shuffle "
        "(N >= the number of sectors covers them all).",
    ),
]
LimitSeedOpt = Annotated[
    int, typer.Option(min=0, help="Seed of the --limit draw (same set + seed: same scenarios).")
]
SeedsOpt = Annotated[str, typer.Option(help="Comma-separated seeds.")]
MaxStaleTurnsOpt = Annotated[
    int,
    typer.Option(
        min=0,
        help="Silent steps tolerated in a row; one more ends an episode. 4 is the paper's "
        "code (its text says 3 idle turns).",
    ),
]
SaveCallsOpt = Annotated[
    bool,
    typer.Option(help="Keep each LLM call's prompt and reply with its episode (viewer)."),
]
ConcurrencyOpt = Annotated[
    int, typer.Option(min=1, help="Episodes in flight at once (with Ray: per worker).")
]
OutOpt = Annotated[
    Path,
    typer.Option(file_okay=False, help="Results folder; rerun the same command to resume."),
]
ExecutorOpt = Annotated[
    Literal["local", "ray"],
    typer.Option(help="local: this process; ray: workers of a Ray cluster (docs/scale.md)."),
]
AddressOpt = Annotated[
    str | None,
    typer.Option(
        help="Ray cluster to join ('auto': the one `ray start` made here); "
        "default: a local two-CPU cluster."
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(min=1, help="Ray worker processes (default: one per CPU of the cluster)."),
]


def bench(
    policies: PoliciesOpt = "basic,cot,tom_coach,tom_belief,self_focused,ideal,random",
    partners: PartnersOpt = None,
    scenario_set: ScenarioSetOpt = "gold",
    scenario_ids: ScenarioIdsOpt = None,
    skip_invalid: SkipInvalidOpt = False,
    limit: LimitOpt = None,
    limit_seed: LimitSeedOpt = 0,
    seeds: SeedsOpt = "0",
    judge: JudgeOpt = "rule",
    max_turns: MaxTurnsOpt = 60,
    max_stale_turns: MaxStaleTurnsOpt = 4,
    player_options: PlayerOptionsOpt = "",
    max_tokens: MaxTokensOpt = "auto",
    save_calls: SaveCallsOpt = True,
    concurrency: ConcurrencyOpt = 16,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    judge_model: JudgeModelOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
    out: OutOpt = Path("runs/bench"),
    executor: ExecutorOpt = "local",
    address: AddressOpt = None,
    workers: WorkersOpt = None,
) -> None:
    """Run policies x scenarios x seeds, save each episode as it ends, and write the report.

    One run at a time writes into ``--out``: a second one is refused while the first runs.
    """
    from sotopia_tom_app.bench import orchestrate
    from sotopia_tom_app.bench.report import build_report, results_table
    from sotopia_tom_app.bench.runner import open_run, select_scenarios

    judge_ep = checked_judge_endpoint(judge, model, base_url, judge_model, judge_base_url)
    config = _config(
        policies=policies, partners=partners, scenario_set=scenario_set, scenario_ids=scenario_ids,
        skip_invalid=skip_invalid, limit=limit, limit_seed=limit_seed, seeds=seeds, judge=judge,
        judge_ep=judge_ep, max_turns=max_turns, max_stale_turns=max_stale_turns,
        player_options=player_options, max_tokens=max_tokens, save_calls=save_calls, model=model,
        base_url=base_url,
    )  # fmt: skip
    try:
        ray = orchestrate.ray_endpoints(
            executor, address, workers,
            (model, base_url) if _players_need_llm(config) else None,
            judge_ep if judge == "llm" else None,
        )  # fmt: skip
    except orchestrate.OptionError as e:
        raise checks.bad(e.option, str(e)) from None
    with checks.scenario_errors(scenario_set):  # before any folder, file or server exists
        chosen = select_scenarios(config)
    if not chosen:
        raise checks.bad("--scenarios", f"{scenario_set!r} holds no scenarios to play")
    backends = orchestrate.Backends(model, base_url, judge_ep, ray, workers, address)
    with open_run(config, out, chosen) as run:  # the run's folder is ours until the report is out
        todo = run.count()
        typer.echo(f"{len(run.done)} episodes already in {out}, {todo} to play")
        if todo:
            orchestrate.play(run, backends, concurrency)
        summary = build_report(out)
    typer.echo(results_table(summary))
    typer.echo(f"report: {out / 'report.md'}, {out / 'report.html'}")


def _players_need_llm(config: Any) -> bool:
    """Some of the run's policies are played by an LLM."""
    from policies import SCRIPTED

    return any(p not in SCRIPTED for p in config.policies)


def _config(
    *,
    policies: str,
    partners: str | None,
    scenario_set: str,
    scenario_ids: str | None,
    skip_invalid: bool,
    limit: int | None,
    limit_seed: int,
    seeds: str,
    judge: str,
    judge_ep: tuple[str | None, str | None],
    max_turns: int,
    max_stale_turns: int,
    player_options: str,
    max_tokens: str,
    save_calls: bool,
    model: str | None,
    base_url: str | None,
) -> Any:
    """The run's configuration from the options, each checked before anything runs."""
    from policies import SCRIPTED
    from policies.trained import fingerprints
    from sotopia_tom_app.bench.runner import BenchConfig

    names = checks.names(policies, "--policies")
    checks.policies(names, "--policies", base_url, "policies")
    if partners is not None:
        given = checks.names(partners, "--partners")
        if len(given) != 1:
            raise checks.bad("--partners", f"{partners!r}: name one policy for the other seats")
        partners = given[0]
        checks.policies(given, "--partners", base_url, "policy")
    checks.endpoint(model, base_url)
    needs_llm = judge == "llm" or any(p not in SCRIPTED for p in [*names, partners or "silent"])
    own_judge = judge == "llm" and judge_ep != (model, base_url)
    return BenchConfig(
        scenarios=scenario_set,
        scenario_ids=checks.names(scenario_ids, "--scenario-ids") if scenario_ids else None,
        skip_invalid=skip_invalid,
        limit=limit,
        limit_seed=limit_seed_choice(limit, limit_seed),
        policies=names,
        partners=partners,
        seeds=checks.seeds(seeds),
        judge=judge,
        judge_model=(judge_ep[0] or "default") if own_judge else None,
        max_turns=max_turns,
        max_stale_turns=max_stale_turns,
        player_options=list(player_options_choice(player_options)),
        max_tokens=max_tokens_choice(max_tokens),
        save_calls=save_calls,
        model=(model or "default") if needs_llm else None,
        adapters={} if base_url else fingerprints([*names, *([partners] if partners else [])]),
    )
