"""``sotopia-tom train``: every stage of a training pipeline, one of them, or a GRPO config."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sotopia_tom_app.cli import errors as checks


def train(
    config: Annotated[
        Path,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="A pipeline (training/configs/pipeline-cpu-small.yaml) or one GRPO stage's config.",
        ),
    ],
    stage: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Run only this stage of the pipeline, named by its output folder "
            "(e.g. sft-cpu-small).",
        ),
    ] = None,
    settings: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="FIELD=VALUE",
            help="FIELD=VALUE: run the --stage with this field changed (a value in YAML); "
            "repeat for more, and give it an output_dir (or out) of its own.",
        ),
    ] = None,
) -> None:
    """Train a player on Silver: every stage of a pipeline in order (SFT, DAgger, best-of-K, GRPO).

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

    if not pipeline.is_pipeline(config) and (stage or settings):
        raise checks.bad("--stage", f"{config} is one stage's config, not a pipeline")
    try:
        changes = pipeline.parse_settings(settings or [])
    except ValueError as e:
        raise checks.bad("--set", str(e)) from None
    try:
        out = (
            pipeline.run(config, typer.echo, only=stage, settings=changes)
            if pipeline.is_pipeline(config)
            else grpo.run_config(config)
        )
    except ValueError as e:
        raise checks.bad("--config", str(e)) from None
    typer.echo(f"trained player: {out}")
