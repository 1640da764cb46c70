"""A GRPO step with the multi-turn env rollout next to a single-turn TRL GRPO step.

Both trainers use the embedded model with the same LoRA, the same turn-state prompts, the same
batch (2 prompts x 4 samples per step) and the same completion budget, and both sample in
process (TRL's own ``generate`` for the single-turn step, ``InProcessGenerator`` inside the env
rollout), so the difference is what the env adds: replaying each episode, playing the sample,
finishing the episode and judging it. Steps alternate between the two, so machine load hits
both alike. Time is compared per generated token, since sampled lengths differ.

    python benchmarks/grpo_step.py [--steps 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer, ModelConfig, get_peft_config

import scenarios
from rewards import format_reward
from sotopia_tom_env.llm.models import resolve_model
from training.generate import InProcessGenerator
from training.rollout import EnvRollout, reward_functions, teacher_states


class TimedRollout(EnvRollout):
    """The env rollout, timing the env's share (everything but sampling)."""

    env_s = 0.0

    def __call__(self, prompts, trainer):
        start = time.perf_counter()
        sample_s0 = self.generate.seconds
        out = super().__call__(prompts, trainer)
        self.env_s += time.perf_counter() - start - (self.generate.seconds - sample_s0)
        return out


class TimedGenerator(InProcessGenerator):
    seconds = 0.0

    def __call__(self, prompts, trainer):
        start = time.perf_counter()
        out = super().__call__(prompts, trainer)
        self.seconds += time.perf_counter() - start
        return out


def trainer(kind: str, states, chosen, out: str) -> GRPOTrainer:
    args = GRPOConfig(output_dir=out, max_steps=1, per_device_train_batch_size=2,
                      gradient_accumulation_steps=4, num_generations=4, max_completion_length=96,
                      beta=0.0, use_cpu=True, bf16=False, gradient_checkpointing=False,
                      logging_steps=1, save_strategy="no", report_to="none", seed=0)  # fmt: skip
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": s.prompt}]} for s in states])
    lora = get_peft_config(ModelConfig(use_peft=True, lora_r=8, lora_alpha=16, lora_dropout=0.0,
                                       lora_target_modules=["all-linear"]))  # fmt: skip
    if kind == "single-turn":
        return GRPOTrainer(model=resolve_model(None), reward_funcs=[format_reward], args=args,
                           train_dataset=data, peft_config=lora)  # fmt: skip
    funcs, weights = reward_functions()
    args.reward_weights = weights
    rollout = TimedRollout(states, chosen, TimedGenerator(96, 1.0), 24)
    return GRPOTrainer(model=resolve_model(None), reward_funcs=funcs, args=args,
                       train_dataset=data, peft_config=lora, rollout_func=rollout)  # fmt: skip


def one_step(t: GRPOTrainer) -> tuple[float, float]:
    """Seconds and generated tokens of one optimiser step (8 samples)."""
    t.train()
    log = next(e for e in t.state.log_history if "step_time" in e)
    return log["step_time"], log["completions/mean_length"] * 8


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2, help="steps of each kind, alternating")
    steps = p.parse_args().steps
    chosen = scenarios.load("silver")[:2]
    states = teacher_states(chosen, max_turns=24, every=4)
    with tempfile.TemporaryDirectory() as tmp:
        trainers = {k: trainer(k, states, chosen, f"{tmp}/{k}") for k in ("single-turn", "env")}
        totals = {k: [0.0, 0.0] for k in trainers}
        for _ in range(steps):
            for kind, t in trainers.items():
                seconds, tokens = one_step(t)
                totals[kind][0] += seconds
                totals[kind][1] += tokens
    per_k = {k: 1000 * s / max(tok, 1) for k, (s, tok) in totals.items()}
    for kind, (s, tok) in totals.items():
        print(
            f"{kind:12s} {s / steps:7.1f} s/step  {tok / steps:6.0f} tokens/step  {per_k[kind]:6.1f} s per 1k tokens"
        )
    env = trainers["env"].rollout_func
    print(
        f"env rollout / single-turn, per generated token: {per_k['env'] / per_k['single-turn']:.2f}x"
    )
    print(f"env share of the env step (replay, play, judge): {env.env_s / totals['env'][0]:.1%}")


if __name__ == "__main__":
    main()
