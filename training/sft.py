"""Warm start: supervised fine-tuning on the ideal player's Silver turns (TRL ``SFTTrainer``, LoRA).

Launch::

    python -m training.sft --config training/configs/sft-cpu-smoke.yaml

The data come from :mod:`training.data` (prompts exactly as the ``basic`` player sends them,
replies as its JSON action), the loss is on the reply only, and LoRA is the default. The model
defaults to the embedded SmolLM2-135M-Instruct (converted once to a local folder). A run killed
midway resumes from its last checkpoint when started again with the same ``output_dir``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import scenarios
from sotopia_tom_env.llm.models import cache_dir, resolve_model
from training.data import MixConfig, build_sft_dataset

_DROP = ["scenario_id", "agent", "step", "kind"]  # bookkeeping columns, not model inputs


@dataclass
class SFTScriptArguments:
    """What to train on and how to adapt the model (the trainer's own settings are TRL's)."""

    model: str | None = field(
        default=None,
        metadata={"help": "Model folder or cached Hugging Face id; default: the embedded model."},
    )
    scenarios: str = field(
        default="silver", metadata={"help": "Training scenarios: 'silver' or a file of your own."}
    )
    limit: int | None = field(
        default=None, metadata={"help": "Use only the first N scenarios (for smoke runs)."}
    )
    strategy: str = field(
        default="basic", metadata={"help": "Prompted strategy whose prompt is used."}
    )
    upweight: int = field(default=2, metadata={"help": "Copies of each DM and ask turn."})
    keep_none: float = field(default=0.25, metadata={"help": "Share of silent turns kept."})
    keep_leave: float = field(default=0.25, metadata={"help": "Share of leave turns kept."})
    mix_seed: int = field(default=0, metadata={"help": "Seed of the data mix."})
    use_lora: bool = field(default=True, metadata={"help": "Train a LoRA adapter (else full)."})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank."})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha."})
    lora_dropout: float = field(default=0.05, metadata={"help": "LoRA dropout."})

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"limit must be at least 1, got {self.limit}")
        for name in ("keep_none", "keep_leave"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} is a share between 0 and 1, got {getattr(self, name)}")


def lora_config(args: Any) -> Any:
    """The PEFT LoRA configuration (all linear layers), or ``None`` for a full fine-tune."""
    if not args.use_lora:
        return None
    from peft import LoraConfig

    return LoraConfig(r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout,
                      target_modules="all-linear", task_type="CAUSAL_LM")  # fmt: skip


def main(script_args: SFTScriptArguments, training_args: Any) -> Path:
    """Build the data, fine-tune, save the adapter (or model) to ``output_dir``, return it."""
    from datasets import load_dataset
    from trl import SFTTrainer

    from training.allocator import PurgeRetainedPages

    chosen = scenarios.load(script_args.scenarios)[: script_args.limit]
    mix = MixConfig(strategy=script_args.strategy, upweight=script_args.upweight,
                    keep_none=script_args.keep_none, keep_leave=script_args.keep_leave,
                    seed=script_args.mix_seed)  # fmt: skip
    data_path = build_sft_dataset(chosen, mix, cache_dir() / "sft-data")
    dataset = load_dataset("json", data_files=str(data_path), split="train").remove_columns(_DROP)
    trainer = SFTTrainer(model=resolve_model(script_args.model), args=training_args,
                         train_dataset=dataset, peft_config=lora_config(script_args),
                         callbacks=[PurgeRetainedPages()])  # fmt: skip
    out = Path(training_args.output_dir)
    trainer.train(resume_from_checkpoint=last_checkpoint(out))
    trainer.save_model(str(out))
    save_log(trainer, out)
    return out


def run_config(path: str | Path) -> Path:
    """Run the SFT stage described by a YAML config; a finished stage is reused, not redone."""
    from trl import SFTConfig, TrlParser

    script_args, training_args = TrlParser((SFTScriptArguments, SFTConfig)).parse_args_and_config(
        args=["--config", str(path)]
    )
    out = Path(training_args.output_dir)
    return out if (out / "adapter_config.json").is_file() else main(script_args, training_args)


def save_log(trainer: Any, out: Path) -> None:
    """Write the trainer's logged metrics (loss, rewards and their parts per step) to ``out``."""
    (out / "log_history.json").write_text(json.dumps(trainer.state.log_history, indent=1))


def last_checkpoint(out: Path) -> str | None:
    """The newest checkpoint in ``out``, so a killed run resumes where it stopped."""
    from transformers.trainer_utils import get_last_checkpoint

    return get_last_checkpoint(str(out)) if out.is_dir() else None


if __name__ == "__main__":
    from trl import SFTConfig, TrlParser

    main(*TrlParser((SFTScriptArguments, SFTConfig)).parse_args_and_config())
