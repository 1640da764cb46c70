"""GRPO with TRL on Silver: each prompt is a turn of an env episode, each reward the env's.

Launch::

    python -m training.grpo --config training/configs/cpu-small.yaml
    sotopia-tom train --config training/configs/pipeline-cpu-smoke.yaml --stage cpu-smoke

Reads top to bottom: turn states of Silver episodes become the dataset (the student's own
episodes when ``episodes`` names a ``training.dagger`` record, else the teacher's), the env
rollout (:class:`training.rollout.EnvRollout`) samples the seat's reply as the benchmark would
(the reply schema, its temperature) and plays the episode on (the student in its seat, the
observable teacher in the others, see ``continuation``) or scores the reply at its turn alone
(``continuation: none``), the seat's training reward is optimised and its components are logged, then the adapter is saved with its card. A run
killed midway resumes from its last checkpoint.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import scenarios
from training.arguments import PromptArguments, base_model, lora_rank, parse_config, start_from
from training.card import write_card
from training.rollout import (
    CONTINUATIONS,
    GUIDES,
    EnvRollout,
    recorded_states,
    reward_functions,
    teacher_states,
)
from training.sft import last_checkpoint, save_log


@dataclass
class GRPOScriptArguments(PromptArguments):
    """Which turn states to train on and how to sample (trainer: ``GRPOConfig``)."""

    episodes: str | None = field(
        default=None,
        metadata={
            "help": "The student's own episodes: comma-separated episodes.jsonl files of "
            "training.dagger or training.best_of runs, or the folders holding them."
        },
    )
    every: int = field(default=1, metadata={"help": "Keep every N-th turn state of each episode."})
    probe: int = field(
        default=0,
        metadata={
            "help": "Samples per turn state drawn from the starting policy before training; "
            "states whose samples all earn the same reward (no gradient) are dropped. 0: keep all."
        },
    )
    max_turns: int = field(default=40, metadata={"help": "Episode length cap in the rollout."})
    continuation: str = field(
        default="student",
        metadata={
            "help": "Who plays the trained seat after the sampled turn: 'student' (the policy "
            "being trained, so an omission stays one), 'teacher' (the observable teacher, "
            "which says what the sample left out: on it GRPO learnt to ask and share nothing), "
            "or 'none': the episode ends at the sampled turn and the reply earns its one-step "
            "score (training.rollout.turn_score), one judge call a sample, as best-of-K scores."
        },
    )
    guide: str = field(
        default="",
        metadata={
            "help": "Replace the first sample of each group (off-policy guidance) with the "
            "observable teacher's reply at the state ('teacher') or a leave ('leave'), so a move "
            "the student never samples, such as leaving once its plan is said, is tried and "
            "paid like its own samples. Empty: the student's own samples only."
        },
    )
    generator: str = field(
        default="server",
        metadata={
            "help": "Sampling backend: 'server' (a local vLLM server with the adapter "
            "reloaded after each step) or 'in-process' (the trainer's model; small runs)."
        },
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.every < 1:
            raise ValueError(f"every must be at least 1, got {self.every}")
        if self.probe < 0 or self.probe == 1:
            raise ValueError(f"probe is 0 (off) or at least 2 samples per state, got {self.probe}")
        if self.continuation not in CONTINUATIONS:
            raise ValueError(
                f"continuation must be one of {CONTINUATIONS}, got {self.continuation!r}"
            )
        if self.guide not in ("", *GUIDES):
            raise ValueError(f"guide must be one of {GUIDES} or empty, got {self.guide!r}")
        if self.generator not in ("server", "trl-vllm", "in-process"):
            raise ValueError(
                f"generator must be 'server', 'trl-vllm' or 'in-process', got {self.generator!r}"
            )


def main(script_args: GRPOScriptArguments, training_args: Any, model_args: Any) -> Path:
    """Build the turn-state dataset, train with GRPO, save to ``output_dir``, return it."""
    from datasets import Dataset
    from trl import GRPOTrainer

    from training.allocator import PurgeRetainedPages
    from training.fused_head import score_labelled_positions_only
    from training.generate import colocated_on_cpu, sync_by_reload

    chosen = scenarios.load(script_args.scenarios)[: script_args.limit]
    states = _states(script_args, chosen)
    dataset = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": s.prompt}]} for s in states]
    )
    funcs, weights = reward_functions(bool(script_args.guide))
    training_args.reward_weights = weights
    model, peft_config = start_from(model_args, training_args)
    out = Path(training_args.output_dir)
    with _generator(script_args, training_args, model_args) as generate:
        rollout = EnvRollout(
            states,
            chosen,
            generate,
            script_args.max_turns,
            script_args.continuation,
            script_args.strategy,
            script_args.options,
            script_args.guide,
        )
        with colocated_on_cpu(training_args) as on_cpu:
            trainer = skipping_tied(GRPOTrainer)(
                model=model,
                reward_funcs=funcs,
                args=training_args,
                train_dataset=dataset,
                peft_config=peft_config,
                rollout_func=rollout,
                callbacks=[PurgeRetainedPages()],
            )
        if on_cpu:  # TRL's own weight sync needs a GPU build of vLLM
            sync_by_reload(trainer.vllm_generation)
        if script_args.probe:  # the trainer's sampler reads its dataset when training starts
            trainer.train_dataset = probed(dataset, rollout, trainer, script_args.probe, out)
        with score_labelled_positions_only():
            trainer.train(resume_from_checkpoint=last_checkpoint(out))
    trainer.save_model(str(out))
    save_log(trainer, out)
    write_card(out, strategy=script_args.strategy, options=tuple(script_args.options), stage="grpo")
    return out


def skipping_tied(trainer_class: type) -> type:
    """``trainer_class`` (TRL's ``GRPOTrainer``) with no model pass for a batch that teaches nothing.

    The rollout masks every token of a group whose samples tie (``env_mask``): such a group's
    advantages are zero, so its loss, KL term included, is exactly zero. About half the steps on
    2 cores are all ties, and their reference, forward and backward passes were three quarters of
    a step's time. When every token of a generation batch is masked, the reference (and
    old-policy) log-probs are not computed and the loss is a zero with all-zero gradients, so the
    optimizer sees exactly what it saw before and training is unchanged.
    """
    import torch

    class SkippingTied(trainer_class):  # type: ignore[misc,valid-type]
        idle = False  # every token of the current generation batch is masked

        def _generate(self, prompts: list) -> tuple:
            out = super()._generate(prompts)
            env_mask = out[2]  # TRL's tool_mask, here the rollout's env_mask
            self.idle = env_mask is not None and not any(any(m) for m in env_mask)
            return out

        def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask,
                                               logits_to_keep, *args, **kwargs):  # fmt: skip
            if self.idle and not torch.is_grad_enabled():  # read only by the loss, skipped below
                return input_ids.new_zeros(input_ids.size(0), logits_to_keep).float(), None, None
            return super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            if not return_outputs and not teaches(inputs):
                return zero_loss(model)
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)

    return SkippingTied


def teaches(inputs: Mapping[str, Any]) -> bool:
    """Whether any completion token of a TRL GRPO batch counts in its loss."""
    mask = inputs["completion_mask"]
    if "tool_mask" in inputs:  # TRL's name for the rollout's env_mask
        mask = mask * inputs["tool_mask"]
    return bool(mask.any())


def zero_loss(model: Any) -> Any:
    """A loss of exactly 0 whose gradient is 0 for every trainable parameter (none left unset)."""
    return sum((p * 0).sum() for p in model.parameters() if p.requires_grad)


def _states(args: GRPOScriptArguments, chosen: list[Any]) -> list[Any]:
    """The turn states to train on: the student's recorded episodes, else the teacher's."""
    kwargs = {"strategy": args.strategy, "options": args.options, "max_turns": args.max_turns,
              "every": args.every}  # fmt: skip
    if not args.episodes:
        return teacher_states(chosen, **kwargs)
    paths = [Path(p) for p in args.episodes.split(",")]
    files = [p / "episodes.jsonl" if p.is_dir() else p for p in paths]
    if missing := [str(f) for f in files if not f.is_file()]:
        raise ValueError(
            f"episodes: no recorded episodes at {', '.join(missing)}; run the stage that plays "
            "them first (a DAgger or best-of-K stage: in pipeline-cpu-small.yaml, "
            "--stage best-of-cpu-small), or leave episodes out to train on the teacher's states"
        )
    return [s for f in files for s in recorded_states(f, chosen, **kwargs)]


def probed(dataset: Any, rollout: EnvRollout, trainer: Any, samples: int, out: Path) -> Any:
    """The turn states whose probe samples differ in reward (see ``GRPOScriptArguments.probe``).

    The verdicts are saved to ``out/probe.json`` first, so a resumed run trains on the same
    states rather than on a new random draw.
    """
    path = out / "probe.json"
    if path.is_file():
        untied = json.loads(path.read_text())["untied"]
        if len(untied) != len(dataset):
            raise ValueError(f"{path} holds verdicts of {len(untied)} turn states, the run has "
                             f"{len(dataset)}: the states changed; delete it to probe again")  # fmt: skip
    else:
        untied = rollout.probe(list(dataset["prompt"]), trainer, samples)
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"samples": samples, "untied": untied}))
    keep = [k for k, u in enumerate(untied) if u]
    args = trainer.args
    need = (
        args.per_device_train_batch_size * args.gradient_accumulation_steps // args.num_generations
    )
    print(f"probe: {len(keep)} of {len(untied)} turn states have samples that differ in reward")
    if len(keep) < need:
        raise ValueError(
            f"the probe ({samples} samples a state) found {len(keep)} of {len(untied)} turn states "
            f"whose samples differ in reward, and a step takes {need}: give it more states (a "
            f"lower `every`, more episodes) or more samples; delete {path} to probe again"
        )
    return dataset.select(keep)


def _generator(args: GRPOScriptArguments, training_args: Any, model_args: Any) -> Any:
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
    if not model_args.use_peft:
        raise ValueError("generator 'server' reloads a LoRA adapter: set use_peft: true")
    return ServerGenerator(length, temperature, lora_rank=lora_rank(model_args),
                           model=base_model(model_args))  # fmt: skip


def run_config(config: str | Path | Mapping[str, Any]) -> Path:
    """Run the GRPO stage a config (a YAML file or its mapping) describes; a finished stage is reused."""
    from trl import GRPOConfig

    from training.sft import is_trained

    script_args, training_args, model_args = parse_config(config, GRPOScriptArguments, GRPOConfig)
    out = Path(training_args.output_dir)
    return out if is_trained(out) else main(script_args, training_args, model_args)


if __name__ == "__main__":
    from trl import GRPOConfig, ModelConfig, TrlParser

    parser = TrlParser((GRPOScriptArguments, GRPOConfig, ModelConfig))
    main(*parser.parse_args_and_config())
