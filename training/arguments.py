"""What the stages share: the scenarios and the prompt, the model to start from, the configs.

A training stage's YAML config holds three parts, each parsed by its own dataclass: the stage's
script arguments (a subclass of :class:`PromptArguments`), the trainer's (TRL's ``SFTConfig`` or
``GRPOConfig``) and the model's (TRL's :class:`trl.ModelConfig`: ``model_name_or_path``,
``use_peft``, ``lora_r``, ``lora_alpha``, ``lora_dropout``, ``lora_target_modules``, ``dtype``).
A stage that only plays (DAgger, self-imitation) has one dataclass: :func:`play_arguments`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

import yaml

from policies.trained import TrainedSpec
from sotopia_tom_env.llm.models import resolve_model


@dataclass
class PromptArguments:
    """Which scenarios a stage trains on and which prompt the trained player sees."""

    scenarios: str = field(
        default="silver", metadata={"help": "Training scenarios: 'silver' or a file of your own."}
    )
    limit: int | None = field(
        default=None,
        metadata={"help": "Use only the first N scenarios (0: none, to train on extra_data only)."},
    )
    strategy: str = field(
        default="basic", metadata={"help": "Prompted strategy whose prompt is used."}
    )
    options: list[str] = field(
        default_factory=list,
        metadata={"help": "Player options of the prompt, e.g. [compact] (the compact layout)."},
    )

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 0:
            raise ValueError(f"limit must be at least 0, got {self.limit}")


T = TypeVar("T")


def play_arguments(kind: type[T], argv: Sequence[str] | None, description: str) -> T:
    """A playing stage's arguments: ``--config FILE`` (a YAML of the fields) or the fields as options."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", type=Path, help="a YAML file of the fields below")
    for f in fields(kind):  # type: ignore[arg-type]
        default = None if f.default is MISSING else f.default
        parser.add_argument(
            f"--{f.name.replace('_', '-')}",
            type=type(default) if default is not None else str,
            default=default,
        )
    args = parser.parse_args(argv)
    if args.config:
        return read_play_config(kind, args.config)
    return kind(**{f.name: getattr(args, f.name) for f in fields(kind)})  # type: ignore[arg-type]


def read_play_config(kind: type[T], path: str | Path) -> T:
    """A playing stage's arguments from its YAML config."""
    return kind(**yaml.safe_load(Path(path).read_text()))


def parse_config(path: str | Path, script: type, trainer: type) -> tuple[Any, Any, Any]:
    """A stage config's script, trainer and model (``trl.ModelConfig``) arguments."""
    from trl import ModelConfig, TrlParser

    return TrlParser((script, trainer, ModelConfig)).parse_args_and_config(
        args=["--config", str(path)]
    )


def start_from(model_args: Any, training_args: Any, merge: bool = False) -> tuple[Any, Any]:
    """The model to train and its LoRA config; an adapter folder continues as that adapter.

    ``model_name_or_path`` unset means the embedded default model; the model's ``dtype`` and
    ``revision`` reach the trainer's loading, as in TRL's own scripts. ``merge`` merges the
    adapter folder into its base and trains every weight of the result (a full fine-tune that
    goes on from a LoRA stage); it needs ``use_peft: false``.

    Raises:
        ValueError: ``merge`` with ``use_peft: true`` or without an adapter folder to merge.
    """
    from trl import get_peft_config

    path = model_args.model_name_or_path
    adapter = _adapter_config(path)
    if merge and (model_args.use_peft or adapter is None):
        raise ValueError(f"merge_adapter: true needs use_peft: false and an adapter folder as model_name_or_path, got use_peft: {model_args.use_peft}, {path}")  # fmt: skip
    if adapter is not None:
        from peft import AutoPeftModelForCausalLM

        if not merge:
            return AutoPeftModelForCausalLM.from_pretrained(path, is_trainable=True), None
        model = AutoPeftModelForCausalLM.from_pretrained(path, dtype=model_args.dtype)
        return model.merge_and_unload().requires_grad_(True), None  # PEFT froze the base
    training_args.model_init_kwargs = {
        "dtype": model_args.dtype,
        "revision": model_args.model_revision,
        **(training_args.model_init_kwargs or {}),
    }
    return resolve_model(path), get_peft_config(model_args)


def base_model(model_args: Any) -> str:
    """The base model under the policy: an adapter folder's own base, or the model itself."""
    path = model_args.model_name_or_path
    if _adapter_config(path) is not None:
        return TrainedSpec(path).base()
    return resolve_model(path)


def lora_rank(model_args: Any) -> int:
    """The rank of the LoRA being trained: a continued adapter's own, else the config's."""
    if (config := _adapter_config(model_args.model_name_or_path)) is not None:
        return int(json.loads(config.read_text())["r"])
    return model_args.lora_r


def _adapter_config(path: str | None) -> Path | None:
    """The PEFT adapter config of ``path`` when it is an adapter folder, else None."""
    config = Path(path) / "adapter_config.json" if path is not None else None
    return config if config is not None and config.is_file() else None
