"""SFT step time on CPU: batch shape, LoRA dropout and the positions the LM head scores.

Every variant trains the first steps of the cpu-small pipeline's first stage (on 20 of its
Silver scenarios) from the same seed, so the steps see the same examples; only the batch shape
(2 examples a forward pass x 2 accumulated, or 1 x 4: the same 4 examples a step), the LoRA
dropout and whether TRL's fused LM head scores every position or only the reply's
(:mod:`training.fused_head`) change. Prints each variant's train time, its ratio to the old
setting (2 x 2, dropout 0.05, every position) and its losses, which show that 1 x 4 and
scoring the reply alone are the same computation.

    python benchmarks/sft_step.py [--steps 5]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
from pathlib import Path

from trl import SFTConfig

from training import fused_head, pipeline, sft
from training.arguments import parse_config

PIPELINE = Path("training/configs/pipeline-cpu-small.yaml")
STAGE = "sft-cpu-small"
SCENARIOS = 20  # the teacher's turns of 20 Silver scenarios, about 500 examples: quick to tokenize
VARIANTS = {  # name: (examples a forward pass, accumulated, LoRA dropout, reply positions only)
    "2 x 2, dropout 0.05, every position (old)": (2, 2, 0.05, False),
    "1 x 4, dropout 0.05, every position": (1, 4, 0.05, False),
    "2 x 2, dropout 0, every position": (2, 2, 0.0, False),
    "1 x 4, dropout 0, every position": (1, 4, 0.0, False),
    "1 x 4, dropout 0, reply positions (cpu-small)": (1, 4, 0.0, True),
}
SCORE_LABELLED_ONLY = fused_head.score_labelled_positions_only


def run(
    batch: int, accumulate: int, dropout: float, labelled: bool, steps: int, tmp: Path
) -> list[dict]:
    """Train ``steps`` steps of the first stage with these settings; its log history."""
    # sft.main enters fused_head.score_labelled_positions_only; the old setting replaces it
    fused_head.score_labelled_positions_only = (
        SCORE_LABELLED_ONLY if labelled else contextlib.nullcontext
    )
    config = dict(pipeline.find(PIPELINE, STAGE).fields)
    out = tmp / f"{batch}x{accumulate}-{dropout}-{labelled}"
    config.update(output_dir=str(out), limit=SCENARIOS, max_steps=steps, warmup_steps=1, logging_steps=1,
                  save_strategy="no", per_device_train_batch_size=batch,
                  gradient_accumulation_steps=accumulate, lora_dropout=dropout)  # fmt: skip
    sft.main(*parse_config(config, sft.SFTScriptArguments, SFTConfig))
    return json.loads((out / "log_history.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    steps = parser.parse_args().steps
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape in VARIANTS.items():
            log = run(*shape, steps, Path(tmp))
            seconds = next(e["train_runtime"] for e in log if "train_runtime" in e)
            losses = [round(e["loss"], 3) for e in log if "loss" in e]
            rows.append((name, seconds, losses))
    old = rows[0][1]
    print(f"\n| variant | {steps} steps, s | time / old | losses |\n|---|---|---|---|")
    for name, seconds, losses in rows:
        print(f"| {name} | {seconds:.1f} | {seconds / old:.2f} | {losses} |")


if __name__ == "__main__":
    main()
