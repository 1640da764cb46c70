"""PNG plots of a benchmark summary (matplotlib, imported only here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_plots(summary: dict[str, Any], out: Path) -> list[str]:
    """Write the behavioural plots into ``out``; return their file names."""
    import matplotlib

    matplotlib.use("Agg")  # no display; files only
    import matplotlib.pyplot as plt

    files = []
    curves = summary["acquisition"]
    if curves:
        fig, ax = plt.subplots(figsize=(6.4, 4))
        for name, ys in sorted(curves.items()):
            ax.plot(range(len(ys)), ys, marker="o", label=name)
        ax.set(xlabel="round", ylabel="share of desired knowledge acquired", ylim=(0, 1.02),
               title="Cumulative knowledge acquisition")  # fmt: skip
        ax.legend(fontsize=7)
        files.append(_save(fig, out / "acquisition.png"))
    stats = summary["interaction"]
    if stats:
        names = sorted(stats)
        fig, axes = plt.subplots(1, 3, figsize=(11, 3.8), sharey=True)
        for ax, key, title in zip(axes, ("private_rate", "stale_rate", "violation_rate"),
                                  ("private messages", "stale conversations (EFF = 0)", "episodes with a violation"),
                                  strict=True):  # fmt: skip
            ax.barh(names, [stats[n][key] for n in names])
            ax.set(title=title, xlim=(0, 1))
        files.append(_save(fig, out / "behaviour.png"))
    metrics = summary["metrics"]
    if metrics:
        names = sorted(metrics)
        fig, ax = plt.subplots(figsize=(7, 0.5 + 0.45 * len(names)))
        cms = [metrics[n]["CM"]["mean"] for n in names]
        lows = [max(0.0, metrics[n]["CM"]["mean"] - metrics[n]["CM"]["ci"][0]) for n in names]
        highs = [max(0.0, metrics[n]["CM"]["ci"][1] - metrics[n]["CM"]["mean"]) for n in names]
        ax.barh(names, cms, xerr=[lows, highs], capsize=3)
        ax.set(xlabel="InfoMgmt (CM), 95% bootstrap CI", xlim=(0, 1))
        files.append(_save(fig, out / "infomgmt.png"))
    return files


def _save(fig: Any, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path.name
