"""GRPO with TRL on Silver: each prompt is a turn of an env episode, each reward the env's.

Launch::

    python -m training.grpo --config training/configs/cpu-smoke.yaml

Reads top to bottom: turn states of Silver episodes become the dataset, the env rollout
(:class:`training.rollout.EnvRollout`) samples each seat's reply and finishes the episode, the
env's reward (the seat's own ``JudgeReward``) is optimised and its components are logged, then
the adapter is saved. A run killed midway resumes from its last checkpoint.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import scenarios
from sotopia_tom_env.llm.models import resolve_model
from training.rollout import EnvRollout, reward_functions, turn_states
from training.sft import last_checkpoint, save_log


@dataclass
class GRPOScriptArguments:
    """What to train on, how to sample, and how to adapt the model."""

    model: str | None = field(
        default=None,
        metadata={
            "help": "Model folder, cached Hugging Face id or an SFT output folder; default: the embedded model."
        },
    )
    scenarios: str = field(
        default="silver", metadata={"help": "Training scenarios: 'silver' or a file."}
    )
    limit: int | None = field(default=None, metadata={"help": "Use only the first N scenarios."})
    strategy: str = field(
        default="basic", metadata={"help": "Prompted strategy whose prompt is used."}
    )
    every: int = field(default=1, metadata={"help": "Keep every N-th turn state of each episode."})
    max_turns: int = field(default=40, metadata={"help": "Episode length cap in the rollout."})
    sft_config: str | None = field(
        default=None,
        metadata={
            "help": "An SFT config to run first (skipped once done); GRPO starts from its adapter."
        },
    )
    generator: str = field(
        default="server",
        metadata={
            "help": "Sampling backend: 'server' (a local vLLM server with the adapter "
            "reloaded after each step) or 'in-process' (the trainer's model; small runs)."
        },
    )
    use_lora: bool = field(default=True, metadata={"help": "Train a LoRA adapter (else full)."})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank."})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha."})
    lora_dropout: float = field(default=0.0, metadata={"help": "LoRA dropout."})

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"limit must be at least 1, got {self.limit}")
        if self.every < 1:
            raise ValueError(f"every must be at least 1, got {self.every}")
        if self.generator not in ("server", "trl-vllm", "in-process"):
            raise ValueError(
                f"generator must be 'server', 'trl-vllm' or 'in-process', got {self.generator!r}"
            )
        if self.generator == "server" and not self.use_lora:
            raise ValueError("generator 'server' reloads a LoRA adapter: set use_lora: true")


def main(script_args: GRPOScriptArguments, training_args: Any) -> Path:
    """Build the turn-state dataset, train with GRPO, save to ``output_dir``, return it."""
    from datasets import Dataset
    from trl import GRPOTrainer

    from training.allocator import PurgeRetainedPages

    if script_args.sft_config:
        from training.sft import run_config

        script_args.model = str(run_config(script_args.sft_config))
    chosen = scenarios.load(script_args.scenarios)[: script_args.limit]
    states = turn_states(chosen, strategy=script_args.strategy, max_turns=script_args.max_turns,
                         every=script_args.every)  # fmt: skip
    dataset = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": s.prompt}]} for s in states]
    )
    funcs, weights = reward_functions()
    training_args.reward_weights = weights
    model, peft_config = _policy(script_args)
    with _generator(script_args, training_args) as generate:
        trainer = GRPOTrainer(
            model=model,
            reward_funcs=funcs,
            args=training_args,
            train_dataset=dataset,
            peft_config=peft_config,
            rollout_func=EnvRollout(states, chosen, generate, script_args.max_turns),
            callbacks=[PurgeRetainedPages()],
        )
        out = Path(training_args.output_dir)
        trainer.train(resume_from_checkpoint=last_checkpoint(out))
    trainer.save_model(str(out))
    save_log(trainer, out)
    return out


def _generator(args: GRPOScriptArguments, training_args: Any) -> Any:
    """The sampling backend named by the config, as a context manager (a server is stopped)."""
    from contextlib import nullcontext

    from training.generate import InProcessGenerator, ServerGenerator, TRLVLLMGenerator

    length, temperature = training_args.max_completion_length, training_args.temperature
    if args.generator == "trl-vllm":
        if not training_args.use_vllm:
            raise ValueError("generator 'trl-vllm' samples with TRL's engine: set use_vllm: true")
        return nullcontext(TRLVLLMGenerator())
    if args.generator == "in-process":
        return nullcontext(InProcessGenerator(length, temperature))
    return ServerGenerator(length, temperature, lora_rank=args.lora_r, model=_base_model(args))


def _base_model(args: GRPOScriptArguments) -> str:
    """The base model under the policy: an SFT adapter's own base, or the model itself."""
    path = Path(args.model) if args.model else None
    if path is not None and (path / "adapter_config.json").is_file():
        return json.loads((path / "adapter_config.json").read_text())["base_model_name_or_path"]
    return resolve_model(args.model)


def _policy(args: GRPOScriptArguments) -> tuple[Any, Any]:
    """The model to train and the LoRA config; an SFT adapter folder continues as that adapter."""
    from training.sft import lora_config

    path = Path(args.model) if args.model else None
    if path is not None and (path / "adapter_config.json").is_file():
        from peft import AutoPeftModelForCausalLM

        return AutoPeftModelForCausalLM.from_pretrained(str(path), is_trainable=True), None
    return resolve_model(args.model), lora_config(args)


if __name__ == "__main__":
    from trl import GRPOConfig, TrlParser

    parser = TrlParser((GRPOScriptArguments, GRPOConfig))
    main(*parser.parse_args_and_config())
