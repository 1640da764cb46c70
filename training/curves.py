"""Training curves of a run, from the ``log_history.json`` each stage saves next to its adapter.

Launch::

    python -m training.curves runs/train/sft-cpu-small runs/train/cpu-small \
        --out docs/img/cpu-small-curves.png

One panel per stage: the SFT loss and token accuracy; the GRPO reward and its parts (DA, IA,
EFF, CPV, CM, malformed share), the share of samples in tied groups per step, the reward's mean
over the last :data:`WINDOW` steps (a step of one turn state is noisy) and, on its own axis,
the KL to the starting adapter. A stage still running is drawn from its newest checkpoint's
``trainer_state.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

SFT_KEYS = {"loss": "loss", "mean_token_accuracy": "token accuracy"}
GRPO_KEYS = {  # logged key -> legend label
    "reward": "reward (the stage's, per sample)",
    "rewards/cm_reward/mean": "CM",
    "rewards/da_reward/mean": "DA",
    "rewards/ia_reward/mean": "IA",
    "rewards/eff_reward/mean": "EFF",
    "rewards/cpv_reward/mean": "CPV",
    "rewards/malformed_reward/mean": "malformed share",
    "rewards/tied_reward/mean": "tied share (no gradient)",
}

WINDOW = 10  # steps in the reward's running mean


def log_history(run: Path) -> list[dict[str, Any]]:
    """The logged rows of a stage: its final log, else its newest checkpoint's state."""
    final = run / "log_history.json"
    if final.is_file():
        return json.loads(final.read_text())
    states = sorted(run.glob("checkpoint-*/trainer_state.json"), key=lambda p: int(p.parent.name.split("-")[1]))  # fmt: skip
    if not states:
        raise FileNotFoundError(f"{run}: no log_history.json and no checkpoint yet")
    return json.loads(states[-1].read_text())["log_history"]


def series(rows: list[dict[str, Any]], key: str) -> tuple[list[int], list[float]]:
    """(steps, values) of one logged key, skipping rows without it."""
    pts = [(int(r["step"]), float(r[key])) for r in rows if key in r and "step" in r]
    return [s for s, _ in pts], [v for _, v in pts]


def plot(runs: list[Path], out: Path) -> None:
    """Draw one panel per run (SFT or GRPO, told apart by what it logged) into ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(runs), figsize=(6 * len(runs), 5), squeeze=False)
    for ax, run in zip(axes[0], runs, strict=True):
        rows = log_history(run)
        grpo = any("reward" in r for r in rows)
        for key, name in (GRPO_KEYS if grpo else SFT_KEYS).items():
            steps, values = series(rows, key)
            if steps:
                ax.plot(steps, values, marker="." if grpo else None, label=name)
        if grpo:
            _trend(ax, rows)
        ax.set(title=f"{run.name} ({'GRPO' if grpo else 'SFT'})", xlabel="step")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.15))  # below
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)


def _trend(ax: Any, rows: list[dict[str, Any]]) -> None:
    """The reward's running mean, and the KL to the starting adapter on a right-hand axis."""
    import numpy as np

    steps, values = series(rows, "reward")
    if len(steps) >= WINDOW:
        mean = np.convolve(values, np.ones(WINDOW) / WINDOW, mode="valid")
        ax.plot(steps[WINDOW - 1 :], mean, color="black", linewidth=2,
                label=f"reward, mean of {WINDOW} steps")  # fmt: skip
    steps, values = series(rows, "kl")
    if steps:
        right = ax.twinx()
        right.plot(steps, values, color="grey", linestyle=":", label="KL to the start")
        right.set_ylabel("KL")
        right.legend(fontsize=7, loc="lower right")


def main() -> None:
    """Command line: draw the given runs into --out."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="Stage output folders, in order.")
    parser.add_argument("--out", type=Path, required=True, help="The PNG to write.")
    args = parser.parse_args()
    plot(args.runs, args.out)
    print(args.out)


if __name__ == "__main__":
    main()
