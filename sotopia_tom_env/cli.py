"""The ``sotopia-tom`` command line (the application layer: it may import every package).

Bad option values and unreadable inputs end in one ``error:`` line with exit status 2, failures
of an LLM server or endpoint with status 1 (see ``cli_errors``); values are checked before any
server starts or any file is written.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

import scenarios
from policies.budgets import BudgetChoice
from policies.prompts import PLAYER_OPTIONS
from sotopia_tom_env import cli_errors as checks

app = typer.Typer(
    cls=checks.CommandGroup,
    add_completion=True,
    no_args_is_help=True,
    help="Sotopia-ToM environment tools.",
)
list_app = typer.Typer(
    no_args_is_help=True,
    help="List what exists: scenario sets, scenarios, policies and judges.",
)
app.add_typer(list_app, name="list")


def _print_version(value: bool) -> None:
    """Print the installed version and stop (an eager option: runs before anything else)."""
    if value:
        typer.echo(f"sotopia-tom {checks.installed_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    """Sotopia-ToM: privacy-aware multi-agent information sharing, as an RL environment."""
    checks.show_warnings()


AsJsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@list_app.command("sets")
def list_sets(as_json: AsJsonOpt = False) -> None:
    """The shipped scenario sets: size, sectors, agent counts and what each is for."""
    from sotopia_tom_env.catalog import set_rows

    rows = set_rows()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        agents = "/".join(map(str, r["agents"]))
        typer.echo(f"{r['set']:<8}{r['scenarios']:>5} scenarios  {len(r['sectors'])} sectors  "
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
    from sotopia_tom_env.catalog import scenario_rows

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
    from sotopia_tom_env.catalog import policy_rows

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


@app.command()
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
    from sotopia_tom_env.catalog import find_scenario, scenario_card

    with checks.scenario_errors(scenario_set or "the shipped sets", "--set"):
        scenario, found_in = find_scenario(scenario_id, scenario_set)
    if as_json:
        typer.echo(scenario.model_dump_json(indent=2))
    else:
        typer.echo(scenario_card(scenario, found_in))


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


ModelOpt = Annotated[
    str | None,
    typer.Option(help="Model: a served name with --base-url, else a local folder or HF id."),
]
BaseUrlOpt = Annotated[
    str | None, typer.Option(help="OpenAI-compatible endpoint; default: start a local vLLM server.")
]
METRICS = ("DA", "IA", "EFF", "CPV", "CM")
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


@app.command()
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
    from sotopia_tom_env.bench.lock import hold

    trained = checks.policies([policy], "--policy", base_url, "policy")
    options = _player_options(player_options)
    budget = _max_tokens(max_tokens)
    checks.endpoint(model, base_url)
    with checks.scenario_errors(scenario_set, "--scenarios"):
        chosen = scenarios.load(scenario_set)
    if scenario_id is not None and scenario_id not in {s.id for s in chosen}:
        raise checks.bad("--scenario-id", f"{scenario_id!r} is not in {scenario_set!r}")
    needs_llm = policy not in SCRIPTED or judge == "llm"
    with hold(out) if out is not None else nullcontext():
        if out is not None and scenario_id is not None:
            _refuse_duplicate(out, f"{policy}/{scenario_id}/{seed}")
        # One episode: a local server needs only the smallest KV cache, which it makes faster.
        with _client(needs_llm, model, base_url, trained, episodes=1) as client:
            if policy not in SCRIPTED:
                typer.echo(_budgets_line(options, budget, client), err=True)
            record = asyncio.run(
                _play_one(chosen, scenario_id, policy, judge, seed, max_turns, client, options,
                          budget)
            )  # fmt: skip
        _print_episode(record, as_json, judge)
        if out is not None:
            _save_episode(out, record)


def _refuse_duplicate(out: Path, episode_id: str) -> None:
    """Refuse to add an episode the folder already holds (a report counts each id once)."""
    from sotopia_tom_env.bench.records import EPISODES_FILE, drop_torn_tail, read_records

    drop_torn_tail(out / EPISODES_FILE)  # safe: the caller holds the folder's lock
    if any(r.episode_id == episode_id for r in read_records(out / EPISODES_FILE)):
        raise checks.UsageError(
            f"--out: {out} already holds episode {episode_id}; use another --out folder"
        )


def _save_episode(out: Path, record: Any) -> None:
    """Append the record to ``OUT/episodes.jsonl`` unless its episode is there already."""
    from sotopia_tom_env.bench.records import EPISODES_FILE, append_record

    _refuse_duplicate(out, record.episode_id)
    append_record(out / EPISODES_FILE, record)


@contextmanager
def _client(
    needed: bool,
    model: str | None,
    base_url: str | None,
    trained: Any = (),
    concurrency: int = 16,
    episodes: int | None = None,
) -> Iterator[Any]:
    """The players' chat client for ``concurrency`` requests (and ``episodes``) in flight.

    A local server also loads the trained adapters named, and then serves the base model
    through a zero adapter (``policies.trained.BASE_ADAPTER`` says why).
    """
    from policies.trained import BASE_ADAPTER, lora_server_args
    from sotopia_tom_env.serving import chat_client

    if not needed:
        yield None
        return
    server_args = () if base_url else lora_server_args(trained)
    with chat_client(
        model, base_url, max_concurrency=concurrency, server_args=server_args, episodes=episodes
    ) as client:
        yield client.routed(BASE_ADAPTER) if server_args else client


async def _play_one(
    scenario_set: list[scenarios.Scenario],
    scenario_id: str | None,
    policy: str,
    judge_kind: str,
    seed: int,
    max_turns: int,
    client: Any,
    options: tuple[str, ...] = (),
    budget: BudgetChoice = "auto",
) -> Any:
    from policies import Setup, make_policy, play_episode
    from policies.prompted import with_budget
    from sotopia_tom_env.bench.judging import judge_episode, make_judge
    from sotopia_tom_env.bench.records import EpisodeRecord
    from sotopia_tom_env.env import SotopiaToMEnv

    env = SotopiaToMEnv(scenarios=scenario_set, max_turns=max_turns)
    players: dict[str, Any] = {}

    def player(agent: str, scenario: scenarios.Scenario) -> Any:
        setup = Setup(agent, scenario, seed=seed, client=client, options=options)
        return players.setdefault(agent, with_budget(make_policy(policy, setup), budget))

    async with _episode_progress(client, policy, env):
        result = await play_episode(env, player, seed=seed, scenario=scenario_id)
    judgment, scores = await judge_episode(
        make_judge(judge_kind, client), result.scenario, result.transcript
    )
    llm = client.stats.as_dict() if client is not None else {}
    cuts = sum(getattr(p, "stats", {}).get("budget_cuts", 0) for p in players.values())
    return EpisodeRecord.of_episode(
        result, (judgment, scores), episode_id=f"{policy}/{result.scenario.id}/{seed}",
        policy=policy, model=getattr(client, "model", None), seed=seed, max_turns=max_turns,
        llm={**llm, "budget_cuts": cuts} if client is not None else llm,
    )  # fmt: skip


@asynccontextmanager
async def _episode_progress(client: Any, label: str, env: Any) -> AsyncIterator[None]:
    """A bar of the episode's steps, LLM calls and tokens on stderr, when an LLM plays."""
    if client is None:
        yield
        return
    from tqdm import tqdm

    from sotopia_tom_env.bench.progress import CallProgress

    def steps() -> int:
        transcript = getattr(env, "transcript", None)  # set by the episode's reset
        return transcript.steps if transcript is not None else 0

    with tqdm(total=env.config.max_turns, unit="step", desc=label) as bar:
        async with CallProgress(bar, client.stats, steps=steps):
            yield


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


def _scores_json(scores: Any) -> dict[str, Any]:
    """``{"scores": {DA, IA, EFF, CPV, CM}, "per_agent": {role: {DA, IA, EFF, CPV, CM}}}``.

    One key style for both levels, the metric names as the paper writes them; a failed metric
    is null.
    """
    return {
        "scores": scores.summary(),
        "per_agent": {role: _upper_keys(parts) for role, parts in scores.per_agent.items()},
    }


def _upper_keys(parts: Any) -> dict[str, float]:
    """A per-agent breakdown keyed like the scenario scores (``cm`` -> ``CM``), in their order."""
    dumped = {k.upper(): v for k, v in parts.model_dump().items()}
    return {k: dumped[k] for k in METRICS if k in dumped}


def _print_episode(record: Any, as_json: bool, judge: str) -> None:
    if as_json:
        head = {"episode_id": record.episode_id, "scenario": record.scenario.id,
                "policy": record.policy, "seed": record.seed, "judge": judge}  # fmt: skip
        typer.echo(json.dumps({**head, **_scores_json(record.scores)}))
        return
    typer.echo(record.transcript.judge_text())
    summary = record.scores.summary()
    typer.echo("  ".join(f"{k}={'n/a' if v is None else f'{v:.4f}'}" for k, v in summary.items()))
    for role, parts in record.scores.per_agent.items():
        typer.echo(f"  {role}: " + "  ".join(f"{k}={v:.4f}" for k, v in _upper_keys(parts).items()))
    for metric, why in record.scores.failures.items():
        typer.echo(f"  judge failure for {metric}: {why}")


@app.command()
def play(
    scenario_id: Annotated[str, typer.Option(help="Scenario to play, e.g. gold-defense-01.")],
    seat: Annotated[
        str, typer.Option("--as", help="The role (or agent id) you play, e.g. 'Finance Director'.")
    ],
    scenario_set: Annotated[
        str, typer.Option("--scenarios", help="Shipped set name or scenario file.")
    ] = "gold",
    partners: Annotated[
        str,
        typer.Option(
            help="Policy of the other agents (ideal, random, basic, …), or one per other agent "
            "in agent order, comma-separated; prompted ones need the LLM (--model/--base-url)."
        ),
    ] = "ideal",
    judge: JudgeOpt = "rule",
    seed: Annotated[int, typer.Option(min=0, help="Seed of the partners' choices.")] = 0,
    max_turns: MaxTurnsOpt = 60,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(file_okay=False, help="Append the episode record to OUT/episodes.jsonl."),
    ] = None,
) -> None:
    """Play one agent yourself, in the terminal, against scripted or prompted partners.

    Each turn shows your agent's observation and the reply instructions, exactly as a model
    sees them; type a message (then whom it is for), /none or /leave. The episode is judged
    and saved as policy `human`, like a benchmark episode.
    """
    from policies import SCRIPTED
    from sotopia_tom_env.bench.judging import make_judge
    from sotopia_tom_env.bench.lock import hold
    from sotopia_tom_env.bench.seat import partner_names, play_seat, seat_of

    names = checks.names(partners, "--partners")
    trained = checks.policies(names, "--partners", base_url, "policy")
    checks.endpoint(model, base_url)
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
        partner_names(names, len(scenario.agents) - 1)
    except ValueError as e:
        raise checks.bad("--partners", str(e)) from None
    needs_llm = any(n not in SCRIPTED for n in names) or judge == "llm"
    with hold(out) if out is not None else nullcontext():
        if out is not None:
            _refuse_duplicate(out, f"human:{agent}/{scenario_id}/{seed}")
        with _client(needs_llm, model, base_url, trained) as client:
            record = asyncio.run(
                play_seat(
                    scenario,
                    agent,
                    names,
                    make_judge(judge, client),
                    seed=seed,
                    max_turns=max_turns,
                    client=client,
                )
            )
        _print_episode(record, False, judge)
        if out is not None:
            _save_episode(out, record)
            typer.echo(f"saved {record.episode_id} to {out}")


@app.command("judge")
def judge_cmd(
    run_dir: Annotated[
        Path,
        typer.Argument(
            exists=True,
            file_okay=False,
            help="A folder with episodes.jsonl (from run --out or bench).",
        ),
    ],
    judge: JudgeOpt = "rule",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    judge_model: JudgeModelOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the per-episode scores as JSON.")
    ] = False,
) -> None:
    """Re-judge saved episodes; writes RUN_DIR/judged-<judge>.jsonl beside them.

    Prints each episode's scores (sorted by episode id), the mean of each metric, and, once
    both judged-rule.jsonl and judged-llm.jsonl exist, how the two judges differ per metric.
    """
    from sotopia_tom_env.bench.agreement import metric_means
    from sotopia_tom_env.bench.judging import judge_client
    from sotopia_tom_env.bench.records import EPISODES_FILE, read_episodes
    from sotopia_tom_env.bench.report import NoEpisodes

    endpoint = _judge_endpoint(judge, model, base_url, judge_model, judge_base_url)
    records = read_episodes(run_dir / EPISODES_FILE)  # one per episode id
    if not records:
        raise NoEpisodes(f"no episodes in {run_dir / EPISODES_FILE}")
    with judge_client(judge, None, (model, base_url), endpoint) as client:
        rows = asyncio.run(_rejudge(records, judge, client))
    rows.sort(key=lambda r: r["episode_id"])
    out = run_dir / f"judged-{judge}.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for r in rows:
        typer.echo(f"{r['episode_id']}: {_metric_line(r['scores'])}")
    typer.echo(f"mean over {len(rows)} episodes: {_metric_line(metric_means(rows))}")
    _print_judge_comparison(run_dir)
    typer.echo(f"wrote {out}")


def _metric_line(scores: dict[str, float | None]) -> str:
    """``DA=1.0000  IA=...`` in the metrics' order; a failed or missing metric reads n/a."""
    return "  ".join(
        f"{m}={'n/a' if scores.get(m) is None else f'{scores[m]:.4f}'}" for m in METRICS
    )


def _print_judge_comparison(run_dir: Path) -> None:
    """With both judges' files in ``run_dir``, print how the LLM judge differs from the rule one."""
    from sotopia_tom_env.bench.agreement import agreement

    files = [run_dir / f"judged-{kind}.jsonl" for kind in ("rule", "llm")]
    if not all(f.exists() for f in files):
        return
    rule, llm = (_read_judged(f) for f in files)
    typer.echo("llm vs rule judge (episodes both scored; diff = llm - rule):")
    for a in agreement(rule, llm):
        if a.n == 0:
            typer.echo(f"  {a.metric:<4} no episode scored by both")
            continue
        r, rho = ("n/a" if x is None else f"{x:+.3f}" for x in (a.correlation, a.spearman))
        typer.echo(f"  {a.metric:<4} n={a.n}  rule={a.mean_a:.4f}  llm={a.mean_b:.4f}  "
                   f"diff={a.mean_diff:+.4f}  r={r}  rho={rho}")  # fmt: skip


def _read_judged(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``judged-*.jsonl`` file; a damaged file is a usage error naming the line."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rows.append({"episode_id": row["episode_id"], "scores": dict(row["scores"])})
        except (ValueError, KeyError, TypeError) as e:
            raise checks.UsageError(
                f"{path}, line {n}: not a judged episode ({e!r}); rerun `sotopia-tom judge` "
                f"with --judge {path.stem.removeprefix('judged-')} to rewrite it"
            ) from None
    return rows


def _judge_endpoint(
    judge: str,
    model: str | None,
    base_url: str | None,
    judge_model: str | None,
    judge_base_url: str | None,
) -> tuple[str | None, str | None]:
    """Check ``--judge`` and the judge's endpoint options before anything starts (exit 2 if bad)."""
    from sotopia_tom_env.bench.judging import check_judge, judge_endpoint

    try:
        check_judge(judge)
        return judge_endpoint(model, base_url, judge_model, judge_base_url)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


async def _rejudge(records: list[Any], kind: str, client: Any) -> list[dict[str, Any]]:
    from sotopia_tom_env.bench.judging import judge_episode, make_judge

    judge = make_judge(kind, client)
    done = await asyncio.gather(*(judge_episode(judge, r.scenario, r.transcript) for r in records))
    return [
        {
            "episode_id": r.episode_id,
            "judgment": j.model_dump(),
            "failures": s.failures,
            **_scores_json(s),
        }
        for r, (j, s) in zip(records, done, strict=True)
    ]


@app.command()
def bench(
    policies: Annotated[
        str, typer.Option(help="Comma-separated policies (`sotopia-tom list policies`).")
    ] = "basic,cot,tom_coach,tom_belief,self_focused,ideal,random",
    scenario_set: Annotated[
        str, typer.Option("--scenarios", help="gold, silver, tiny or a path.")
    ] = "gold",
    scenario_ids: Annotated[
        str | None, typer.Option(help="Comma-separated scenario ids to play.")
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Only N scenarios, drawn round-robin over sectors in a seeded shuffle "
            "(N >= the number of sectors covers them all).",
        ),
    ] = None,
    limit_seed: Annotated[
        int, typer.Option(min=0, help="Seed of the --limit draw (same set + seed: same scenarios).")
    ] = 0,
    seeds: Annotated[str, typer.Option(help="Comma-separated seeds.")] = "0",
    judge: JudgeOpt = "rule",
    max_turns: MaxTurnsOpt = 60,
    max_stale_turns: Annotated[
        int,
        typer.Option(
            min=0,
            help="Silent steps tolerated in a row; one more ends an episode. 4 is the paper's "
            "code (its text says 3 idle turns).",
        ),
    ] = 4,
    player_options: PlayerOptionsOpt = "",
    max_tokens: MaxTokensOpt = "auto",
    save_calls: Annotated[
        bool,
        typer.Option(help="Keep each LLM call's prompt and reply with its episode (viewer)."),
    ] = True,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Episodes in flight at once (with Ray: per worker).")
    ] = 16,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    judge_model: JudgeModelOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
    out: Annotated[
        Path,
        typer.Option(file_okay=False, help="Results folder; rerun the same command to resume."),
    ] = Path("runs/bench"),
    executor: Annotated[
        Literal["local", "ray"],
        typer.Option(help="local: this process; ray: workers of a Ray cluster (docs/scale.md)."),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            help="Ray cluster to join ('auto': the one `ray start` made here); "
            "default: a local two-CPU cluster."
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(min=1, help="Ray worker processes (default: one per CPU of the cluster)."),
    ] = None,
) -> None:
    """Run policies x scenarios x seeds, save each episode as it ends, and write the report.

    One run at a time writes into ``--out``: a second one is refused while the first runs.
    """
    from policies import SCRIPTED
    from sotopia_tom_env.bench.judging import judge_client
    from sotopia_tom_env.bench.lock import hold
    from sotopia_tom_env.bench.report import build_report, results_table
    from sotopia_tom_env.bench.runner import (
        BenchConfig,
        iter_jobs,
        prepare_out,
        record_budgets,
        select_scenarios,
    )

    judge_ep = _judge_endpoint(judge, model, base_url, judge_model, judge_base_url)
    names = checks.names(policies, "--policies")
    checks.policies(names, "--policies", base_url, "policies")
    checks.endpoint(model, base_url)
    players_need_llm = any(p not in SCRIPTED for p in names)
    needs_llm = judge == "llm" or players_need_llm
    own_judge = judge == "llm" and judge_ep != (model, base_url)
    config = BenchConfig(
        scenarios=scenario_set,
        scenario_ids=checks.names(scenario_ids, "--scenario-ids") if scenario_ids else None,
        limit=limit,
        limit_seed=_limit_seed(limit, limit_seed),
        policies=names,
        seeds=checks.seeds(seeds),
        judge=judge,
        judge_model=(judge_ep[0] or "default") if own_judge else None,
        max_turns=max_turns,
        max_stale_turns=max_stale_turns,
        player_options=list(_player_options(player_options)),
        max_tokens=_max_tokens(max_tokens),
        save_calls=save_calls,
        model=(model or "default") if needs_llm else None,
    )
    ray_endpoints = _ray_endpoints(
        executor, address, workers, (model, base_url) if players_need_llm else None,
        judge_ep if judge == "llm" else None,
    )  # fmt: skip
    with checks.scenario_errors(scenario_set):  # before any folder, file or server exists
        chosen = select_scenarios(config)
    if not chosen:
        raise checks.bad("--scenarios", f"{scenario_set!r} holds no scenarios to play")
    with hold(out):  # for the whole run: a second run into `out` is refused at once
        done = prepare_out(out, config)
        # Counted, not listed: the runners make jobs only as slots free up.
        todo = sum(1 for j in iter_jobs(config, chosen) if j.episode_id not in done)
        typer.echo(f"{len(done)} episodes already in {out}, {todo} to play")
        if todo and ray_endpoints:
            if players_need_llm:  # the workers' --base-url endpoints do not say their context
                config = record_budgets(out, config, None)
            _bench_ray(config, out, ray_endpoints, concurrency, workers, address, todo)
        elif todo:
            for only, spec in _phases(names, base_url):
                left = sum(1 for j in iter_jobs(config, chosen)
                           if j.policy in only and j.episode_id not in done)  # fmt: skip
                if not left:
                    continue
                need = any(p not in SCRIPTED for p in only)
                with (
                    _merged_client(model, spec, concurrency)
                    if spec
                    else _client(need, model, base_url, (), concurrency) as client,
                    # The merged weights are not the base model: an LLM judge gets its own.
                    judge_client(
                        judge, None if spec else client, (model, base_url), judge_ep
                    ) as judge_llm,
                ):
                    if need:
                        config = record_budgets(out, config, client)
                    asyncio.run(_bench(config, out, client, judge_llm, concurrency, left, only))
        summary = build_report(out)
    typer.echo(results_table(summary))
    typer.echo(f"report: {out / 'report.md'}, {out / 'report.html'}")


def _max_tokens(value: str) -> BudgetChoice:
    """The ``--max-tokens`` choice (``"auto"``, None or a number), checked before anything runs."""
    from policies.budgets import parse_choice

    try:
        return parse_choice(value)
    except ValueError as e:
        raise checks.bad("--max-tokens", str(e)) from None


def _player_options(value: str) -> tuple[str, ...]:
    """The ``--player-options``, checked before any folder, file or server exists."""
    from policies.prompts import check_options

    try:
        return check_options(value.split(","))
    except ValueError as e:
        raise checks.bad("--player-options", str(e)) from None


def _limit_seed(limit: int | None, seed: int) -> int:
    """The seed of the ``--limit`` draw; without ``--limit`` a seed would silently do nothing."""
    if limit is None and seed != 0:
        raise checks.bad("--limit-seed", "it seeds the --limit draw: give --limit too")
    return seed


def _ray_endpoints(
    executor: str,
    address: str | None,
    workers: int | None,
    players: tuple[str | None, str | None] | None,
    judge: tuple[str | None, str | None] | None,
) -> Any:
    """The Ray workers' LLM endpoints (None for the local executor), checked before anything runs.

    Workers cannot share a server this process would start, so every LLM needs ``--base-url``.
    """
    if executor != "ray":
        for flag, value in (("--address", address), ("--workers", workers)):
            if value is not None:
                raise checks.bad(flag, "it is for the Ray executor: give --executor ray too")
        return None
    import importlib.util

    from sotopia_tom_env.bench.ray_executor import Endpoints

    if importlib.util.find_spec("ray") is None:
        raise checks.bad("--executor", 'ray needs Ray: pip install "sotopia-tom-env[ray]"')
    for who, ep in (("players'", players), ("judge's", judge)):
        if ep is not None and not ep[1]:
            raise checks.bad(
                "--executor",
                f"with Ray the {who} LLM needs --base-url (a server on each node, e.g. "
                "http://localhost:8000/v1, or one shared endpoint); see docs/scale.md",
            )
    return Endpoints(players=players, judge=judge)


def _bench_ray(
    config: Any,
    out: Path,
    endpoints: Any,
    concurrency: int,
    workers: int | None,
    address: str | None,
    total: int,
) -> None:
    from tqdm import tqdm

    from sotopia_tom_env.bench.ray_executor import play_bench_ray

    with tqdm(total=total, unit="ep", desc="episodes") as bar:
        play_bench_ray(config, out, endpoints=endpoints, concurrency=concurrency,
                       workers=workers, address=address, on_record=lambda _: bar.update())  # fmt: skip


def _phases(names: list[str], base_url: str | None) -> list[tuple[set[str], Any]]:
    """The bench's policies grouped by the weights they play with, as ``(names, adapter)``.

    A local run plays the base model's policies first, then each adapter's on its own server
    with the adapter merged in (``policies.trained`` says why); an endpoint of your own
    (``--base-url``) serves them all at once.
    """
    from policies.trained import parse_trained

    if base_url:
        return [(set(names), None)]
    groups: dict[str | None, tuple[set[str], Any]] = {}
    for n in names:  # trained:X and trained:X+cot share the same weights
        spec = parse_trained(n)
        groups.setdefault(spec and spec.path, (set(), spec))[0].add(n)
    return sorted(groups.values(), key=lambda phase: phase[1] is not None)


@contextmanager
def _merged_client(model: str | None, spec: Any, concurrency: int) -> Iterator[Any]:
    """A client of a local server of ``spec``'s adapter merged into ``model``.

    Records keep the base model's name; the requests reach the merged weights.
    """
    from policies.trained import merged_model
    from sotopia_tom_env.llm.models import resolve_model, served_model_name
    from sotopia_tom_env.serving import chat_client

    base = resolve_model(model)
    merged = str(merged_model(spec, base))
    with chat_client(merged, served_name=spec.served_name, max_concurrency=concurrency) as client:
        yield client.with_model(served_model_name(base)).routed(spec.served_name)


async def _bench(
    config: Any,
    out: Path,
    client: Any,
    judge_llm: Any,
    concurrency: int,
    total: int,
    policies: set[str] | None = None,
) -> None:
    from tqdm import tqdm

    from sotopia_tom_env.bench.judging import make_judge
    from sotopia_tom_env.bench.progress import CallProgress
    from sotopia_tom_env.bench.runner import play_bench
    from sotopia_tom_env.llm import ClientStats

    # The calls and tokens move while episodes are in flight, not only when one ends.
    stats = client.stats if client is not None else ClientStats()
    with tqdm(total=total, unit="ep", desc="episodes") as bar:
        async with CallProgress(bar, stats) as progress:

            def tick(record: Any) -> None:
                progress.last = record.episode_id[:40]
                bar.update()

            await play_bench(config, out, client=client, judge=make_judge(config.judge, judge_llm),
                             concurrency=concurrency, on_record=tick, policies=policies)  # fmt: skip


@app.command()
def report(
    run_dir: Annotated[
        Path, typer.Argument(exists=True, file_okay=False, help="A bench results folder.")
    ],
    open_html: Annotated[
        bool, typer.Option("--open", help="Open report.html in the default web browser.")
    ] = False,
    judges: Annotated[
        str | None,
        typer.Option(
            help="Two judges to compare per episode, e.g. rule,llm: Pearson and Spearman "
            "correlations per metric (scores from judged-<judge>.jsonl or the run's own judge)."
        ),
    ] = None,
    paired: Annotated[
        str | None,
        typer.Option(
            help="Two or more policies A,B[,C...] (as the report names them), e.g. a training "
            "pipeline's stages in order: the paired difference B - A (then C - B, ...) of every "
            "metric and the episode reward over the scenarios both played, with its 95% "
            "bootstrap interval."
        ),
    ] = None,
) -> None:
    """Rebuild the report (summary.json, report.md/html, plots, episode pages) from saved results."""
    from sotopia_tom_env.bench.agreement import UnknownJudge
    from sotopia_tom_env.bench.judging import check_judge
    from sotopia_tom_env.bench.report import (
        agreement_markdown,
        build_report,
        paired_markdown,
        results_table,
    )

    pair = None
    if judges is not None:
        chosen = checks.names(judges, "--judges")
        if len(chosen) != 2:
            raise checks.bad("--judges", f"{judges!r}: name two judges, e.g. rule,llm")
        try:
            pair = (check_judge(chosen[0]), check_judge(chosen[1]))
        except ValueError as e:
            raise checks.bad("--judges", str(e)) from None
    both = None
    if paired is not None:
        both = tuple(p.strip() for p in paired.split(","))
        if len(both) < 2 or not all(both):
            raise checks.bad("--paired", f"{paired!r}: name two or more policies, e.g. sft,grpo")
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


def _open_in_browser(html: Path) -> None:
    """Open ``html`` in the default browser; without one, say so (the report is written)."""
    import webbrowser

    if not webbrowser.open(html.resolve().as_uri()):
        typer.echo(f"warning: no browser could be opened; open {html} by hand", err=True)


@app.command()
def generate(
    sector: Annotated[
        list[str], typer.Option(help="Sector(s) to generate for; repeat the option.")
    ],
    agents: Annotated[int, typer.Option(min=3, max=5, help="Agents per scenario.")] = 3,
    number: Annotated[int, typer.Option(min=1, help="Accepted scenarios wanted per sector.")] = 5,
    out: Annotated[Path, typer.Option(help="Accepted scenarios (JSON list).")] = Path(
        "generated.json"
    ),
    audit: Annotated[
        Path, typer.Option(help="Rejected and corrected originals with their reasons.")
    ] = Path("generated-audit.json"),
    errors: Annotated[
        Path, typer.Option(help="Malformed replies and failed calls, with the reason.")
    ] = Path("generated-errors.json"),
    seeds: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="Seeds file (a list; bad ones carry "
            "'reason'), e.g. a previous --seeds-out; default: curated from Gold.",
        ),
    ] = None,
    seeds_out: Annotated[
        Path | None, typer.Option(help="Write the seed pool, grown by this run's audit, here.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seeds the sampling of examples per call.")] = 7,
    good_examples: Annotated[int, typer.Option(min=1, help="Good examples per call.")] = 1,
    bad_examples: Annotated[int, typer.Option(min=0, help="Bad examples per call.")] = 2,
    learn_good: Annotated[
        bool, typer.Option(help="Scenarios accepted without corrections become good seeds.")
    ] = True,
    max_attempts: Annotated[int, typer.Option(min=1, help="Attempts per wanted scenario.")] = 4,
    temperature: Annotated[float, typer.Option(min=0, help="Generator temperature.")] = 0.9,
    max_tokens: Annotated[int, typer.Option(min=1, help="Generation budget per call.")] = 4000,
    judge_temperature: Annotated[float, typer.Option(min=0, help="Judge temperature.")] = 0.0,
    judge_max_tokens: Annotated[int, typer.Option(min=1, help="Judge budget per call.")] = 6000,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    judge_model: JudgeModelOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
) -> None:
    """Generate scenarios with an LLM: generate, judge and correct, validate, de-duplicate."""
    from scenarios.generate.llm import GenerationResult, Sampling, ScenarioPipeline
    from scenarios.generate.seeds import SeedPool
    from sotopia_tom_env.bench.judging import judge_client

    checks.endpoint(model, base_url)
    judge_ep = _judge_endpoint("llm", model, base_url, judge_model, judge_base_url)
    pool = SeedPool.from_file(seeds) if seeds else SeedPool.curated()
    result = GenerationResult()
    with (
        _client(True, model, base_url) as client,
        judge_client("llm", client, (model, base_url), judge_ep) as judge,
    ):
        pipeline = ScenarioPipeline(
            client, judge_client=judge, pool=pool, seed=seed,
            generation=Sampling(temperature, max_tokens),
            judging=Sampling(judge_temperature, judge_max_tokens),
            examples=(good_examples, bad_examples), learn_good=learn_good,
            max_attempts=max_attempts,
        )  # fmt: skip
        for name in sector:
            asyncio.run(pipeline.run(name, agents, number, result))
    scenarios.dump(result.accepted, out)
    _write_json(audit, result.audit)
    _write_json(errors, result.errors)
    if seeds_out:
        _write_json(seeds_out, pool.records())
    typer.echo(json.dumps(result.summary(), indent=2))
    typer.echo(
        f"{len(result.accepted)} accepted -> {out}; {len(result.audit)} audit entries -> {audit}; "
        f"{len(result.errors)} errors -> {errors}"
    )


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@app.command()
def serve(
    model: ModelOpt = None,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="TCP port; default: a free one.")
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(dir_okay=False, help="File for the server's output; default: a temp file."),
    ] = None,
) -> None:
    """Start a local vLLM server in the foreground (Ctrl-C stops it)."""
    from sotopia_tom_env.llm import serve as serve_forever

    serve_forever(model, port, log)


@app.command()
def train(
    config: Annotated[
        Path,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="A pipeline (training/configs/pipeline-cpu-small.yaml) or one GRPO stage's config.",
        ),
    ],
) -> None:
    """Train a player on Silver: every stage of a pipeline in order (SFT, DAgger, GRPO).

    Each stage is skipped once done and resumes where it stopped, so rerunning finishes an
    interrupted run. A GRPO config alone runs that stage (``python -m training.grpo``).
    """
    try:
        import trl  # noqa: F401
    except ImportError:
        raise checks.bad(
            "--config", 'training needs its extra: pip install "sotopia-tom-env[train]"'
        ) from None
    from training import grpo, pipeline

    try:
        out = (
            pipeline.run(config, typer.echo)
            if pipeline.is_pipeline(config)
            else grpo.run_config(config)
        )
    except ValueError as e:
        raise checks.bad("--config", str(e)) from None
    typer.echo(f"trained player: {out}")


if __name__ == "__main__":  # pragma: no cover
    app()
