"""A training pipeline: stages run in order, each skipped once its output exists.

Launch::

    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml

A pipeline file lists its stages, each one line naming its kind and its config::

    stages:
      - sft: training/configs/sft-cpu-small.yaml          # SFT on the teacher's episodes
      - dagger: training/configs/dagger-cpu-small.yaml    # the student plays, the teacher labels
      - sft: training/configs/sft-dagger-cpu-small.yaml   # SFT again, on both
      - grpo: training/configs/cpu-small.yaml             # RL on the student's own states

Every stage resumes where it stopped (SFT and GRPO from their last checkpoint, DAgger from its
last finished episode), so rerunning the command after an interruption finishes the pipeline.
The last stage's output is the trained player.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

KINDS = ("sft", "dagger", "best_of", "best_reply", "grpo")


def stages(path: str | Path) -> list[tuple[str, Path]]:
    """The ``(kind, config)`` stages of a pipeline file, checked.

    Raises:
        ValueError: naming the stage that is malformed, of an unknown kind or has no config.
    """
    data = yaml.safe_load(Path(path).read_text()) or {}
    out = []
    for k, stage in enumerate(data.get("stages") or []):
        if not isinstance(stage, dict) or len(stage) != 1:
            raise ValueError(
                f"{path}: stage {k + 1} must be one 'kind: config' pair, got {stage!r}"
            )
        ((kind, config),) = stage.items()
        if kind not in KINDS:
            raise ValueError(
                f"{path}: stage {k + 1}: unknown kind {kind!r}; known: {', '.join(KINDS)}"
            )
        if not Path(config).is_file():
            raise ValueError(f"{path}: stage {k + 1}: no config file {config}")
        out.append((kind, Path(config)))
    if not out:
        raise ValueError(f"{path}: no stages (a pipeline file lists 'stages:')")
    return out


def is_pipeline(path: str | Path) -> bool:
    """Whether a config file is a pipeline (it lists ``stages``) rather than one stage's config."""
    data = yaml.safe_load(Path(path).read_text())
    return isinstance(data, dict) and "stages" in data


def run(path: str | Path, echo: Callable[[str], Any] = print) -> Path:
    """Run every stage of the pipeline in order and return the last stage's output folder.

    Each stage's wall time is echoed (a finished stage that is reused takes seconds), so the
    log of an uninterrupted run says what the whole pipeline costs.
    """
    out, start = Path(), time.monotonic()
    for kind, config in stages(path):
        echo(f"stage {kind}: {config}")
        began = time.monotonic()
        out = RUNNERS[kind](config)
        echo(f"  -> {out} ({_minutes(began)})")
    echo(f"pipeline {path}: {_minutes(start)}")
    return out


def _minutes(since: float) -> str:
    return f"{(time.monotonic() - since) / 60:.1f} min"


def _sft(config: Path) -> Path:
    from training.sft import run_config

    return run_config(config)


def _dagger(config: Path) -> Path:
    from training.dagger import run_config

    return run_config(config)


def _best_of(config: Path) -> Path:
    from training.best_of import run_config

    return run_config(config)


def _best_reply(config: Path) -> Path:
    from training.best_reply import run_config

    return run_config(config)


def _grpo(config: Path) -> Path:
    from training.grpo import run_config

    return run_config(config)


RUNNERS: dict[str, Callable[[Path], Path]] = {
    "sft": _sft,
    "dagger": _dagger,
    "best_of": _best_of,
    "best_reply": _best_reply,
    "grpo": _grpo,
}
