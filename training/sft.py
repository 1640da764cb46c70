"""Supervised fine-tuning on the observable teacher's Silver turns (TRL ``SFTTrainer``, LoRA).

Launch::

    python -m training.sft --config training/configs/sft-cpu-smoke.yaml

The data come from :mod:`training.data` (prompts exactly as the prompted player sends them,
in the layout its ``options`` choose, replies as its JSON action), the loss is on the reply
only, and LoRA is the default (``use_lora: false`` trains every weight). The strategy and
options the player was trained with are saved next to the weights (:mod:`training.card`), and
``trained:PATH`` plays with them. The model
defaults to the embedded SmolLM2-135M-Instruct (converted once to a local folder). A run killed
midway resumes from its last checkpoint when started again with the same ``output_dir``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import scenarios
from policies.prompts import check_options
from sotopia_tom_env.llm.models import cache_dir, resolve_model
from training.card import CARD, write_card
from training.data import MixConfig, build_sft_dataset, read_rows
from training.data import mix as mix_rows


@dataclass
class SFTScriptArguments:
    """What to train on and how to adapt the model (the trainer's own settings are TRL's)."""

    model: str | None = field(
        default=None,
        metadata={
            "help": "Model folder, cached Hugging Face id, or an adapter folder to go on "
            "training; default: the embedded model."
        },
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
    options: list[str] = field(
        default_factory=list,
        metadata={"help": "Player options of the prompt, e.g. [compact] (the compact layout)."},
    )
    extra_data: list[str] = field(
        default_factory=list,
        metadata={"help": "More JSONL example files to train on too (e.g. DAgger rounds)."},
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
    from datasets import Dataset
    from trl import SFTTrainer

    from training.allocator import PurgeRetainedPages

    chosen = scenarios.load(script_args.scenarios)[: script_args.limit]
    options = check_options(script_args.options)
    mix = MixConfig(strategy=script_args.strategy, options=options, upweight=script_args.upweight,
                    keep_none=script_args.keep_none, keep_leave=script_args.keep_leave,
                    seed=script_args.mix_seed)  # fmt: skip
    rows = read_rows(build_sft_dataset(chosen, mix, cache_dir() / "sft-data"))
    for path in script_args.extra_data:  # e.g. DAgger rounds: the student's states, mixed alike
        rows += mix_rows(read_rows(Path(path)), mix)
    dataset = Dataset.from_list(
        [{"prompt": r["prompt"], "completion": r["completion"]} for r in rows]
    )
    dataset = dataset.shuffle(seed=script_args.mix_seed)
    model, peft_config = start_from(script_args.model, script_args)
    trainer = SFTTrainer(model=model, args=training_args, train_dataset=dataset,
                         peft_config=peft_config, callbacks=[PurgeRetainedPages()])  # fmt: skip
    out = Path(training_args.output_dir)
    trainer.train(resume_from_checkpoint=last_checkpoint(out))
    trainer.save_model(str(out))
    save_log(trainer, out)
    write_card(out, strategy=script_args.strategy, options=options, stage="sft")
    return out


def start_from(model: str | None, args: Any) -> tuple[Any, Any]:
    """The model to train and its LoRA config; an adapter folder continues as that adapter."""
    path = Path(model) if model else None
    if path is not None and (path / "adapter_config.json").is_file():
        from peft import AutoPeftModelForCausalLM

        return AutoPeftModelForCausalLM.from_pretrained(str(path), is_trainable=True), None
    return resolve_model(model), lora_config(args)


def run_config(path: str | Path) -> Path:
    """Run the SFT stage described by a YAML config; a finished stage is reused, not redone."""
    from trl import SFTConfig, TrlParser

    script_args, training_args = TrlParser((SFTScriptArguments, SFTConfig)).parse_args_and_config(
        args=["--config", str(path)]
    )
    out = Path(training_args.output_dir)
    return out if is_trained(out) else main(script_args, training_args)


def is_trained(out: Path) -> bool:
    """Whether ``out`` holds a finished stage: an adapter, or a full model, with its card."""
    return (out / CARD).is_file()


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
