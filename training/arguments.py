"""What the stages share: the scenarios and the prompt, the model to start from, the configs.

A training stage's YAML config holds three parts, each parsed by its own dataclass: the stage's
script arguments (a subclass of :class:`PromptArguments`), the trainer's (TRL's ``SFTConfig`` or
``GRPOConfig``) and the model's (TRL's :class:`trl.ModelConfig`: ``model_name_or_path``,
``use_peft``, ``lora_r``, ``lora_alpha``, ``lora_dropout``, ``lora_target_modules``, ``dtype``).
A stage that only plays (DAgger, self-imitation) has one dataclass: :func:`play_arguments`.
A config is a YAML file or, for a stage of a pipeline (:mod:`training.pipeline`), its mapping.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
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


def read_play_config(kind: type[T], config: str | Path | Mapping[str, Any]) -> T:
    """A playing stage's arguments from its YAML config (a file or its mapping).

    Raises:
        ValueError: naming the fields ``kind`` does not have.
    """
    values = _mapping(config)
    known = {f.name for f in fields(kind)}  # type: ignore[arg-type]
    if unknown := [k for k in values if k not in known]:
        raise ValueError(f"unknown fields {unknown} (known: {', '.join(sorted(known))})")
    return kind(**values)


def parse_config(
    config: str | Path | Mapping[str, Any], script: type, trainer: type
) -> tuple[Any, Any, Any]:
    """A stage config's script, trainer and model (``trl.ModelConfig``) arguments.

    A mapping is parsed as TRL parses a ``--config`` file: its values become the parser's
    defaults (strings converted by each field's type), and the dataclasses are built from them.

    Raises:
        ValueError: naming the fields that none of the three dataclasses has.
    """
    from trl import ModelConfig, TrlParser

    parser = TrlParser((script, trainer, ModelConfig))
    if not isinstance(config, Mapping):
        return parser.parse_args_and_config(args=["--config", str(config)])
    if unknown := parser.set_defaults_with_config(**config)[::2]:  # ["--name", "value", ...]
        raise ValueError(f"unknown fields {[u.removeprefix('--') for u in unknown]}")
    parser.exit_on_error = False  # a value its field's type refuses: an error, not an exit
    try:
        return tuple(parser.parse_args_into_dataclasses(args=[]))
    except argparse.ArgumentError as e:
        raise ValueError(str(e)) from None


def _mapping(config: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A config's fields: the mapping itself, or the YAML file's."""
    if isinstance(config, Mapping):
        return dict(config)
    values = yaml.safe_load(Path(config).read_text()) or {}
    if not isinstance(values, dict):
        raise ValueError(f"{config}: a config is a YAML mapping of fields, got {values!r}")
    return values


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
    """The PEFT adapter config of ``path`` when it is an adapter folder, else None.

    Raises:
        ValueError: ``path`` is a local path (a Hub id has at most one "/") that does not exist,
            e.g. the output of a stage that has not run yet.
    """
    if path is None:
        return None
    if not Path(path).exists() and (path.count("/") > 1 or path.startswith((".", "/"))):
        raise ValueError(
            f"model_name_or_path: nothing at {path}; run the stage that writes it first "
            "(in a pipeline file, the stage whose output_dir it is)"
        )
    config = Path(path) / "adapter_config.json"
    return config if config.is_file() else None
