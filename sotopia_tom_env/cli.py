"""The ``sotopia-tom`` command line (the application layer: it may import every package)."""

from __future__ import annotations

import asyncio
import json
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

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


ModelOpt = Annotated[
    str | None,
    typer.Option(help="Model: a served name with --base-url, else a local folder or HF id."),
]
BaseUrlOpt = Annotated[
    str | None, typer.Option(help="OpenAI-compatible endpoint; default: start a local vLLM server.")
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
        str, typer.Option(help="Policy for every agent, e.g. ideal, random, basic.")
    ] = "ideal",
    judge: Annotated[str, typer.Option(help="rule or llm.")] = "rule",
    seed: int = 0,
    max_turns: int = 60,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    out: Annotated[
        Path | None, typer.Option(help="Append the episode record to OUT/episodes.jsonl.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print only the scores as JSON.")] = False,
) -> None:
    """Play one episode, judge it and print the transcript and scores."""
    from policies import SCRIPTED

    needs_llm = policy not in SCRIPTED or judge == "llm"
    with _client(needs_llm, model, base_url) as client:
        record = asyncio.run(
            _play_one(scenario_set, scenario_id, policy, judge, seed, max_turns, client)
        )
    if out is not None:
        from sotopia_tom_env.bench.records import EPISODES_FILE, append_record

        out.mkdir(parents=True, exist_ok=True)
        append_record(out / EPISODES_FILE, record)
    _print_episode(record, as_json)


def _client(needed: bool, model: str | None, base_url: str | None) -> Any:
    from sotopia_tom_env.serving import chat_client

    return chat_client(model, base_url) if needed else nullcontext(None)


async def _play_one(
    scenario_set: str,
    scenario_id: str | None,
    policy: str,
    judge_kind: str,
    seed: int,
    max_turns: int,
    client: Any,
) -> Any:
    from policies import Setup, make_policy, play_episode
    from sotopia_tom_env.bench.judging import judge_episode, make_judge
    from sotopia_tom_env.bench.records import EpisodeRecord
    from sotopia_tom_env.env import SotopiaToMEnv

    env = SotopiaToMEnv(scenarios=scenario_set, max_turns=max_turns)
    result = await play_episode(
        env,
        lambda a, s: make_policy(policy, Setup(a, s, seed=seed, client=client)),
        seed=seed,
        scenario=scenario_id,
    )
    judgment, scores = await judge_episode(
        make_judge(judge_kind, client), result.scenario, result.transcript
    )
    return EpisodeRecord(
        episode_id=f"{policy}/{result.scenario.id}/{seed}",
        policy=policy,
        model=getattr(client, "model", None),
        seed=seed,
        max_turns=max_turns,
        scenario=result.scenario,
        transcript=result.transcript,
        turn_log=result.turn_log,
        returns=result.returns,
        judgment=judgment,
        scores=scores,
        llm=client.stats.as_dict() if client is not None else {},
        policy_errors=result.policy_errors,
        wall_s=result.wall_s,
    )


def _scores_json(scores: Any) -> dict[str, Any]:
    """``{"scores": {DA, IA, EFF, CPV, CM}, "per_agent": {role: {...}}}`` (a failed metric is null)."""
    return {
        "scores": scores.summary(),
        "per_agent": {role: parts.model_dump() for role, parts in scores.per_agent.items()},
    }


def _print_episode(record: Any, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(_scores_json(record.scores)))
        return
    typer.echo(record.transcript.judge_text())
    summary = record.scores.summary()
    typer.echo("  ".join(f"{k}={'n/a' if v is None else f'{v:.4f}'}" for k, v in summary.items()))
    for role, parts in record.scores.per_agent.items():
        typer.echo(f"  {role}: " + "  ".join(f"{k}={v:.4f}" for k, v in parts.model_dump().items()))
    for metric, why in record.scores.failures.items():
        typer.echo(f"  judge failure for {metric}: {why}")


@app.command("judge")
def judge_cmd(
    run_dir: Annotated[
        Path, typer.Argument(help="A folder with episodes.jsonl (from run --out or bench).")
    ],
    judge: Annotated[str, typer.Option(help="rule or llm.")] = "rule",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the per-episode scores as JSON.")
    ] = False,
) -> None:
    """Re-judge saved episodes; writes RUN_DIR/judged-<judge>.jsonl beside them."""
    from sotopia_tom_env.bench.records import EPISODES_FILE, read_records

    records = list(read_records(run_dir / EPISODES_FILE))
    if not records:
        typer.echo(f"error: no episodes in {run_dir / EPISODES_FILE}", err=True)
        raise typer.Exit(2)
    with _client(judge == "llm", model, base_url) as client:
        rows = asyncio.run(_rejudge(records, judge, client))
    out = run_dir / f"judged-{judge}.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(rows))
    else:
        for r in rows:
            typer.echo(
                f"{r['episode_id']}: " + "  ".join(f"{k}={v}" for k, v in r["scores"].items())
            )
        typer.echo(f"wrote {out}")


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
        str, typer.Option(help="Comma-separated policies.")
    ] = "basic,cot,tom_coach,tom_belief,self_focused,ideal,random",
    scenario_set: Annotated[
        str, typer.Option("--scenarios", help="gold, silver, tiny or a path.")
    ] = "gold",
    scenario_ids: Annotated[
        str | None, typer.Option(help="Comma-separated scenario ids to play.")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N scenarios.")] = None,
    seeds: Annotated[str, typer.Option(help="Comma-separated seeds.")] = "0",
    judge: Annotated[str, typer.Option(help="rule or llm.")] = "rule",
    max_turns: int = 60,
    concurrency: Annotated[int, typer.Option(help="Episodes in flight at once.")] = 16,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    out: Annotated[
        Path, typer.Option(help="Results folder; rerun the same command to resume.")
    ] = Path("runs/bench"),
) -> None:
    """Run policies x scenarios x seeds, save each episode as it ends, and write the report."""
    from policies import POLICIES, SCRIPTED
    from sotopia_tom_env.bench.runner import BenchConfig, ConfigMismatch, plan, prepare_out

    names = [p.strip() for p in policies.split(",") if p.strip()]
    unknown = [p for p in names if p not in POLICIES]
    if unknown:
        typer.echo(
            f"error: unknown policies {unknown}; known: {', '.join(sorted(POLICIES))}", err=True
        )
        raise typer.Exit(2)
    needs_llm = judge == "llm" or any(p not in SCRIPTED for p in names)
    config = BenchConfig(
        scenarios=scenario_set,
        scenario_ids=scenario_ids.split(",") if scenario_ids else None,
        limit=limit,
        policies=names,
        seeds=[int(x) for x in seeds.split(",")],
        judge=judge,
        max_turns=max_turns,
        model=(model or "default") if needs_llm else None,
    )
    try:
        done = prepare_out(out, config)
    except ConfigMismatch as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    todo = [j for j in plan(config) if j.episode_id not in done]
    typer.echo(f"{len(done)} episodes already in {out}, {len(todo)} to play")
    if todo:
        with _client(needs_llm, model, base_url) as client:
            asyncio.run(_bench(config, out, client, concurrency, len(todo)))
    from sotopia_tom_env.bench.report import build_report, results_table

    summary = build_report(out)
    typer.echo(results_table(summary))
    typer.echo(f"report: {out / 'report.md'}, {out / 'report.html'}")


async def _bench(config: Any, out: Path, client: Any, concurrency: int, total: int) -> None:
    from tqdm import tqdm

    from sotopia_tom_env.bench.judging import make_judge
    from sotopia_tom_env.bench.runner import run_bench

    tokens = 0
    with tqdm(total=total, unit="ep", desc="episodes") as bar:

        def tick(record: Any) -> None:
            nonlocal tokens
            tokens += record.llm.get("completion_tokens", 0)
            bar.set_postfix(tokens=tokens, last=record.episode_id[:40])
            bar.update()

        await run_bench(config, out, client=client, judge=make_judge(config.judge, client),
                        concurrency=concurrency, on_record=tick)  # fmt: skip


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="A bench results folder.")]) -> None:
    """Rebuild the report (summary.json, report.md/html, plots, episode pages) from saved results."""
    from sotopia_tom_env.bench.report import build_report, results_table

    summary = build_report(run_dir)
    typer.echo(results_table(summary))


@app.command()
def generate(
    sector: Annotated[
        list[str], typer.Option(help="Sector(s) to generate for; repeat the option.")
    ],
    agents: Annotated[int, typer.Option(help="Agents per scenario.")] = 3,
    number: Annotated[int, typer.Option(help="Accepted scenarios wanted per sector.")] = 5,
    out: Annotated[Path, typer.Option(help="Accepted scenarios (JSON list).")] = Path(
        "generated.json"
    ),
    audit: Annotated[
        Path, typer.Option(help="Rejected and corrected originals with their reasons.")
    ] = Path("generated-audit.json"),
    max_attempts: Annotated[int, typer.Option(help="Attempts per wanted scenario.")] = 4,
    max_tokens: Annotated[int, typer.Option(help="Generation budget per call.")] = 3000,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
) -> None:
    """Generate scenarios with an LLM: generate, judge and correct, validate, de-duplicate."""
    from scenarios.generate.llm import GenerationResult, ScenarioPipeline

    result = GenerationResult()
    with _client(True, model, base_url) as client:
        pipeline = ScenarioPipeline(client, max_attempts=max_attempts, max_tokens=max_tokens)
        for name in sector:
            asyncio.run(pipeline.run(name, agents, number, result))
    scenarios.dump(result.accepted, out)
    audit.write_text(
        json.dumps(result.audit, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    typer.echo(json.dumps(result.summary(), indent=2))
    typer.echo(
        f"{len(result.accepted)} accepted -> {out}; {len(result.audit)} audit entries -> {audit}"
    )


@app.command()
def serve(model: ModelOpt = None, port: int | None = None, log: Path | None = None) -> None:
    """Start a local vLLM server in the foreground (Ctrl-C stops it)."""
    from sotopia_tom_env.llm import serve as serve_forever

    serve_forever(model, port, log)


if __name__ == "__main__":  # pragma: no cover
    app()
