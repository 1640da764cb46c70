"""``sotopia-tom generate``: new scenarios from an LLM, judged, corrected and validated."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

import scenarios
from sotopia_tom_app.cli import errors as checks
from sotopia_tom_app.cli.options import (
    BaseUrlOpt,
    JudgeBaseUrlOpt,
    JudgeModelOpt,
    ModelOpt,
    checked_judge_endpoint,
)

SectorOpt = Annotated[list[str], typer.Option(help="Sector(s) to generate for; repeat the option.")]
OutOpt = Annotated[Path, typer.Option(help="Accepted scenarios (JSON list).")]
AuditOpt = Annotated[
    Path, typer.Option(help="Rejected and corrected originals with their reasons.")
]
ErrorsOpt = Annotated[
    Path, typer.Option(help="Malformed replies and failed calls, with the reason.")
]
SeedsOpt = Annotated[
    Path | None,
    typer.Option(
        exists=True,
        dir_okay=False,
        help="Seeds file (a list; bad ones carry "
        "'reason'), e.g. a previous --seeds-out; default: curated from Gold.",
    ),
]
SeedsOutOpt = Annotated[
    Path | None, typer.Option(help="Write the seed pool, grown by this run's audit, here.")
]
LearnGoodOpt = Annotated[
    bool, typer.Option(help="Scenarios accepted without corrections become good seeds.")
]


def generate(
    sector: SectorOpt,
    agents: Annotated[int, typer.Option(min=3, max=5, help="Agents per scenario.")] = 3,
    number: Annotated[int, typer.Option(min=1, help="Accepted scenarios wanted per sector.")] = 5,
    out: OutOpt = Path("generated.json"),
    audit: AuditOpt = Path("generated-audit.json"),
    errors: ErrorsOpt = Path("generated-errors.json"),
    seeds: SeedsOpt = None,
    seeds_out: SeedsOutOpt = None,
    seed: Annotated[int, typer.Option(help="Seeds the sampling of examples per call.")] = 7,
    good_examples: Annotated[int, typer.Option(min=1, help="Good examples per call.")] = 1,
    bad_examples: Annotated[int, typer.Option(min=0, help="Bad examples per call.")] = 2,
    learn_good: LearnGoodOpt = True,
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
    from sotopia_tom_app.bench.judging import judge_client
    from sotopia_tom_app.bench.orchestrate import players_client

    checks.endpoint(model, base_url)
    judge_ep = checked_judge_endpoint("llm", model, base_url, judge_model, judge_base_url)
    pool = SeedPool.from_file(seeds) if seeds else SeedPool.curated()
    result = GenerationResult()
    with (
        players_client(True, model, base_url) as client,
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
