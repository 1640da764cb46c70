"""``sotopia-tom train``: every stage of a training pipeline, or one GRPO stage."""

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
