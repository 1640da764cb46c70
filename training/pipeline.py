r"""A training pipeline: stages run in order, each skipped once its output exists.

Launch::

    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml
    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml --stage sft-cpu-small \
        --set use_peft=false --set output_dir=runs/train/sft-full   # one stage alone, changed

A pipeline file gives each stage kind its shared settings under ``base:``, then lists its
stages in order under ``stages:``, each as its kind and the fields in which it differs from
its kind's base (or the path of a config file of its own, taken whole)::

    base:
      sft: {scenarios: silver, options: [compact], max_length: 2048, use_cpu: true}
    stages:
      - sft: {output_dir: runs/train/sft, use_peft: true, max_steps: 160}
      - dagger: {player: runs/train/sft, out: runs/train/dagger}  # the student plays
      - sft: {model_name_or_path: runs/train/sft, extra_data: [runs/train/dagger/data.jsonl],
              output_dir: runs/train/sft-dagger, max_steps: 80}   # SFT again, on the labels
      - grpo: my-grpo.yaml                                        # a config file, taken whole

A stage's fields are its script's dataclass (``training/sft.py``, ``dagger.py``, ``best_of.py``,
``best_reply.py``, ``grpo.py``) and, for SFT and GRPO, TRL's ``SFTConfig`` / ``GRPOConfig`` and
``ModelConfig``. Every stage is parsed before the first one runs, so a misspelt field fails at
once, naming its stage. A stage is named by its output folder (``output_dir``, or ``out`` for the
stages that play).

Every stage resumes where it stopped (SFT and GRPO from their last checkpoint, DAgger from its
last finished episode), so rerunning the command after an interruption finishes the pipeline.
The last stage's output is the trained player. ``until: NAME`` at the top ends the pipeline at
that stage: the stages listed after it stay parsed and checked, and run only by name
(``--stage``), as measured variants that did not add.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

KINDS = ("sft", "dagger", "best_of", "best_reply", "grpo")
# The kinds that play episodes: they write to ``out``, the trainers to ``output_dir``.
PLAYING = ("dagger", "best_of", "best_reply")


@dataclass(frozen=True)
class Stage:
    """One stage of a pipeline: its kind and its whole config (its kind's base, then its own)."""

    kind: str
    fields: dict[str, Any]
    source: str  # "PIPELINE: stage K", for messages

    @property
    def out(self) -> str:
        """The folder the stage writes."""
        return str(self.fields["out" if self.kind in PLAYING else "output_dir"])

    @property
    def name(self) -> str:
        """The stage's name: its output folder's."""
        return Path(self.out).name

    @property
    def label(self) -> str:
        """Where the stage is and what it is, for messages."""
        return f"{self.source} ({self.kind} {self.name})"


def stages(path: str | Path) -> list[Stage]:
    """The stages of a pipeline file, each with its whole config, checked for shape (not parsed).

    Raises:
        ValueError: naming the stage that is malformed, of an unknown kind, without a config
            file it names or an output folder, or writing where an earlier stage writes.
    """
    data = _read(path)
    bases = _bases(path, data.get("base") or {})
    out = [_stage(path, k + 1, entry, bases) for k, entry in enumerate(data.get("stages") or [])]
    if not out:
        raise ValueError(f"{path}: no stages (a pipeline file lists 'stages:')")
    written: dict[str, Stage] = {}
    for stage in out:
        if (earlier := written.setdefault(stage.out, stage)) is not stage:
            raise ValueError(f"{stage.label}: writes {stage.out}, as {earlier.source} does")
    return out


def is_pipeline(path: str | Path) -> bool:
    """Whether a config file is a pipeline (it lists ``stages``) rather than one stage's config."""
    data = yaml.safe_load(Path(path).read_text())
    return isinstance(data, dict) and "stages" in data


def find(path: str | Path, name: str) -> Stage:
    """The stage of a pipeline named ``name`` (its output folder's name).

    Raises:
        ValueError: listing the pipeline's stage names when none is ``name``.
    """
    found = stages(path)
    for stage in found:
        if stage.name == name:
            return stage
    raise ValueError(f"{path}: no stage {name!r}; its stages: {', '.join(s.name for s in found)}")


def changed(stage: Stage, settings: Mapping[str, Any]) -> Stage:
    """The stage with some of its fields set otherwise (a variant of it, run alone)."""
    return replace(stage, fields={**stage.fields, **settings})


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    """``FIELD=VALUE`` items as fields, each value read as YAML (``2``, ``false``, ``[a, b]``).

    Raises:
        ValueError: for an item without ``=``.
    """
    settings = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"a setting is FIELD=VALUE, got {item!r}")
        settings[name.strip()] = yaml.safe_load(value)
    return settings


def parse(stage: Stage) -> Any:
    """The stage's arguments, parsed by its dataclasses (the script's, TRL's for a trainer).

    Raises:
        ValueError: naming the stage and what its dataclasses refused (an unknown field, a
            value out of range).
    """
    from training.arguments import parse_config, read_play_config

    try:
        if stage.kind in PLAYING:
            return read_play_config(_play_arguments(stage.kind), stage.fields)
        return parse_config(stage.fields, *_trainer_arguments(stage.kind))
    except (TypeError, ValueError) as e:
        raise ValueError(f"{stage.label}: {e}") from e


def run(
    path: str | Path,
    echo: Callable[[str], Any] = print,
    only: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Path:
    """Run the pipeline's stages in order (to ``until``) and return the last one's output folder.

    ``only`` runs the stage of that name alone, its fields changed by ``settings``. Every stage
    is parsed first. Each stage's wall time is echoed (a finished stage that is reused takes
    seconds), so the log of an uninterrupted run says what the whole pipeline costs.

    Raises:
        ValueError: a stage that does not parse, or ``settings`` without ``only``.
    """
    if only is not None:
        listed = [changed(find(path, only), settings or {})]
    elif settings:
        raise ValueError("settings change one stage: name it (--stage NAME)")
    else:
        listed = stages(path)
    for stage in listed:
        parse(stage)  # the stages after ``until`` too: a broken one fails at once
    chosen = listed if only is not None else listed[: _until(path, listed) + 1]
    out, start = Path(), time.monotonic()
    for stage in chosen:
        echo(f"stage {stage.kind}: {stage.name}")
        began = time.monotonic()
        out = RUNNERS[stage.kind](stage.fields)
        echo(f"  -> {out} ({_minutes(began)})")
    echo(f"pipeline {path}: {_minutes(start)}")
    return out


def _until(path: str | Path, found: list[Stage]) -> int:
    """The index of the stage named by the pipeline's ``until:`` (the last one without it)."""
    name = _read(path).get("until")
    if name is None:
        return len(found) - 1
    names = [s.name for s in found]
    if name not in names:
        raise ValueError(f"{path}: until: no stage {name!r}; its stages: {', '.join(names)}")
    return names.index(name)


def _read(path: str | Path) -> dict[str, Any]:
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a pipeline is a YAML mapping with 'stages:', got {data!r}")
    return data


def _bases(path: str | Path, base: Any) -> dict[str, dict[str, Any]]:
    """The ``base:`` section: each stage kind's shared fields."""
    if not isinstance(base, dict) or not all(isinstance(v, dict) for v in base.values()):
        raise ValueError(f"{path}: base maps a stage kind to its fields, got {base!r}")
    if unknown := [k for k in base if k not in KINDS]:
        raise ValueError(f"{path}: base: unknown kind {unknown[0]!r}; known: {', '.join(KINDS)}")
    return base


def _stage(path: str | Path, k: int, entry: Any, bases: dict[str, dict[str, Any]]) -> Stage:
    """Stage ``k`` of the list: its base's fields and its own, or its config file's."""
    source = f"{path}: stage {k}"
    if not isinstance(entry, dict) or len(entry) != 1:
        raise ValueError(f"{source} must be one 'kind: fields' or 'kind: config file' pair, got {entry!r}")  # fmt: skip
    ((kind, given),) = entry.items()
    if kind not in KINDS:
        raise ValueError(f"{source}: unknown kind {kind!r}; known: {', '.join(KINDS)}")
    if isinstance(given, str):
        if not Path(given).is_file():
            raise ValueError(f"{source}: no config file {given}")
        fields = yaml.safe_load(Path(given).read_text()) or {}
    elif isinstance(given, dict):
        fields = {**bases.get(kind, {}), **given}
    else:
        raise ValueError(f"{source}: a {kind} stage is its fields or a config file, got {given!r}")
    key = "out" if kind in PLAYING else "output_dir"
    if not isinstance(fields, dict) or not fields.get(key):
        raise ValueError(f"{source} ({kind}): no {key}, the folder it writes (which names it)")
    return Stage(kind, fields, source)


def _play_arguments(kind: str) -> type:
    if kind == "dagger":
        from training.dagger import DaggerArguments

        return DaggerArguments
    if kind == "best_of":
        from training.best_of import BestOfArguments

        return BestOfArguments
    from training.best_reply import BestReplyArguments

    return BestReplyArguments


def _trainer_arguments(kind: str) -> tuple[type, type]:
    if kind == "sft":
        from trl import SFTConfig

        from training.sft import SFTScriptArguments

        return SFTScriptArguments, SFTConfig
    from trl import GRPOConfig

    from training.grpo import GRPOScriptArguments

    return GRPOScriptArguments, GRPOConfig


def _minutes(since: float) -> str:
    return f"{(time.monotonic() - since) / 60:.1f} min"


def _sft(config: Mapping[str, Any]) -> Path:
    from training.sft import run_config

    return run_config(config)


def _dagger(config: Mapping[str, Any]) -> Path:
    from training.dagger import run_config

    return run_config(config)


def _best_of(config: Mapping[str, Any]) -> Path:
    from training.best_of import run_config

    return run_config(config)


def _best_reply(config: Mapping[str, Any]) -> Path:
    from training.best_reply import run_config

    return run_config(config)


def _grpo(config: Mapping[str, Any]) -> Path:
    from training.grpo import run_config

    return run_config(config)


RUNNERS: dict[str, Callable[[Mapping[str, Any]], Path]] = {
    "sft": _sft,
    "dagger": _dagger,
    "best_of": _best_of,
    "best_reply": _best_reply,
    "grpo": _grpo,
}
