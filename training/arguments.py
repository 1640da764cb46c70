"""What the SFT and GRPO stages share: the scenarios and the prompt, then the model to start from.

A stage's YAML config holds three parts, each parsed by its own dataclass: the stage's script
arguments (a subclass of :class:`PromptArguments`), the trainer's (TRL's ``SFTConfig`` or
``GRPOConfig``) and the model's (TRL's :class:`trl.ModelConfig`: ``model_name_or_path``,
``use_peft``, ``lora_r``, ``lora_alpha``, ``lora_dropout``, ``lora_target_modules``, ``dtype``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policies.trained import TrainedSpec
from sotopia_tom_env.llm.models import resolve_model


@dataclass
class PromptArguments:
    """Which scenarios a stage trains on and which prompt the trained player sees."""

    scenarios: str = field(
        default="silver", metadata={"help": "Training scenarios: 'silver' or a file of your own."}
    )
    limit: int | None = field(
        default=None, metadata={"help": "Use only the first N scenarios (for smoke runs)."}
    )
    strategy: str = field(
        default="basic", metadata={"help": "Prompted strategy whose prompt is used."}
    )
    options: list[str] = field(
        default_factory=list,
        metadata={"help": "Player options of the prompt, e.g. [compact] (the compact layout)."},
    )

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"limit must be at least 1, got {self.limit}")


def parse_config(path: str | Path, script: type, trainer: type) -> tuple[Any, Any, Any]:
    """A stage config's script, trainer and model (``trl.ModelConfig``) arguments."""
    from trl import ModelConfig, TrlParser

    return TrlParser((script, trainer, ModelConfig)).parse_args_and_config(
        args=["--config", str(path)]
    )


def start_from(model_args: Any, training_args: Any) -> tuple[Any, Any]:
    """The model to train and its LoRA config; an adapter folder continues as that adapter.

    ``model_name_or_path`` unset means the embedded default model; the model's ``dtype`` and
    ``revision`` reach the trainer's loading, as in TRL's own scripts.
    """
    from trl import get_peft_config

    path = model_args.model_name_or_path
    if _adapter_config(path) is not None:
        from peft import AutoPeftModelForCausalLM

        return AutoPeftModelForCausalLM.from_pretrained(path, is_trainable=True), None
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
