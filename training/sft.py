"""Supervised fine-tuning on the observable teacher's Silver turns (TRL ``SFTTrainer``, LoRA).

Launch::

    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml --stage sft-cpu-small   # a stage of a pipeline
    python -m training.sft --config FILE.yaml   # a config file of its own

The data come from :mod:`training.data` (prompts exactly as the prompted player sends them,
in the layout its ``options`` choose, replies as its JSON action), the loss is on the reply
only; ``use_peft: true`` trains a LoRA adapter, ``false`` every weight (TRL's ``ModelConfig``,
see :mod:`training.arguments`). The strategy and options the player was trained with are saved
next to the weights (:mod:`training.card`), and ``trained:PATH`` plays with them. The model
defaults to the embedded SmolLM2-135M-Instruct (converted once to a local folder). A run killed
midway resumes from its last checkpoint when started again with the same ``output_dir``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import scenarios
from policies.prompts import check_options
from sotopia_tom_env.llm.models import cache_dir
from training.arguments import PromptArguments, parse_config, start_from
from training.card import CARD, write_card
from training.data import MixConfig, build_sft_dataset, read_rows
from training.data import mix as mix_rows


@dataclass
class SFTScriptArguments(PromptArguments):
    """The data mix (the trainer's settings are TRL's ``SFTConfig``)."""

    extra_data: list[str] = field(
        default_factory=list,
        metadata={"help": "More JSONL example files to train on too (e.g. DAgger rounds)."},
    )
    upweight: int = field(default=2, metadata={"help": "Copies of each DM and ask turn."})
    keep_none: float = field(default=0.25, metadata={"help": "Share of silent turns kept."})
    keep_leave: float = field(default=0.25, metadata={"help": "Share of leave turns kept."})
    mix_seed: int = field(default=0, metadata={"help": "Seed of the data mix."})
    merge_adapter: bool = field(
        default=False,
        metadata={"help": "Merge the starting adapter into its base and train every weight "
                  "(with use_peft: false): a full fine-tune that goes on from a LoRA stage."},
    )  # fmt: skip

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("keep_none", "keep_leave"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} is a share between 0 and 1, got {getattr(self, name)}")


def main(script_args: SFTScriptArguments, training_args: Any, model_args: Any) -> Path:
    """Build the data, fine-tune, save the adapter (or model) to ``output_dir``, return it."""
    from datasets import Dataset
    from trl import SFTTrainer

    from training.allocator import PurgeRetainedPages
    from training.fused_head import score_labelled_positions_only

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
    model, peft_config = start_from(model_args, training_args, merge=script_args.merge_adapter)
    trainer = SFTTrainer(model=model, args=training_args, train_dataset=dataset,
                         peft_config=peft_config, callbacks=[PurgeRetainedPages()])  # fmt: skip
    out = Path(training_args.output_dir)
    with score_labelled_positions_only():  # 0.73x the step time on the CPU, the same gradients
        trainer.train(resume_from_checkpoint=last_checkpoint(out))
    trainer.save_model(str(out))
    save_log(trainer, out)
    write_card(out, strategy=script_args.strategy, options=options, stage="sft")
    return out


def run_config(config: str | Path | Mapping[str, Any]) -> Path:
    """Run the SFT stage a config (a YAML file or its mapping) describes; a finished stage is reused."""
    from trl import SFTConfig

    script_args, training_args, model_args = parse_config(config, SFTScriptArguments, SFTConfig)
    out = Path(training_args.output_dir)
    return out if is_trained(out) else main(script_args, training_args, model_args)


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
    from trl import ModelConfig, SFTConfig, TrlParser

    main(*TrlParser((SFTScriptArguments, SFTConfig, ModelConfig)).parse_args_and_config())
