"""SFT step time on CPU: batch shape and LoRA dropout, on the first cpu-small stage's settings.

Every variant trains the first steps of ``training/configs/sft-cpu-small.yaml`` (on 20 of its
Silver scenarios) from the same seed, so the steps see the same examples; only the batch shape
(2 examples a forward pass x 2 accumulated, or 1 x 4: the same 4 examples a step) and the LoRA
dropout change. Prints each
variant's train time, its ratio to the old setting (2 x 2, dropout 0.05) and its losses, which
show that 1 x 4 is the same computation.

    python benchmarks/sft_step.py [--steps 5]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import yaml
from trl import SFTConfig

from training import sft
from training.arguments import parse_config

CONFIG = Path("training/configs/sft-cpu-small.yaml")
SCENARIOS = 20  # the teacher's turns of 20 Silver scenarios, about 500 examples: quick to tokenize
VARIANTS = {  # name: (examples a forward pass, accumulated, LoRA dropout)
    "2 x 2, dropout 0.05 (old)": (2, 2, 0.05),
    "1 x 4, dropout 0.05": (1, 4, 0.05),
    "2 x 2, dropout 0": (2, 2, 0.0),
    "1 x 4, dropout 0 (cpu-small)": (1, 4, 0.0),
}


def run(batch: int, accumulate: int, dropout: float, steps: int, tmp: Path) -> list[dict]:
    """Train ``steps`` steps of the first stage with this batch shape; its log history."""
    config = yaml.safe_load(CONFIG.read_text())
    out = tmp / f"{batch}x{accumulate}-{dropout}"
    config.update(output_dir=str(out), limit=SCENARIOS, max_steps=steps, warmup_steps=1, logging_steps=1,
                  save_strategy="no", per_device_train_batch_size=batch,
                  gradient_accumulation_steps=accumulate, lora_dropout=dropout)  # fmt: skip
    path = tmp / f"{out.name}.yaml"
    path.write_text(yaml.safe_dump(config))
    sft.main(*parse_config(path, sft.SFTScriptArguments, SFTConfig))
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
