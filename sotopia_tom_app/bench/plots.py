"""Plots of a benchmark summary, as PNG (for the pages) and SVG and PDF (for papers).

matplotlib is imported only here. Policies appear in the summary's one order (best InfoMgmt
first) in every plot, the same order as in the report's tables. Each figure has its own builder
(``*_figure``), so tests can check what is drawn on the matplotlib objects, not on pixels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FORMATS = ("png", "svg", "pdf")
_BEHAVIOUR = (
    ("private_rate", "private messages"),
    ("stale_rate", "stale conversations (EFF = 0)"),
    ("violation_rate", "episodes with a violation"),
)
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
_DASHES = ("-", "--", ":", "-.")
# Fixed metadata, so the same summary gives the same vector files byte for byte.
_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None}, "png": {}}


def order(summary: dict[str, Any], names: Any) -> list[str]:
    """``names`` in the summary's policy order (summaries without one: alphabetical)."""
    names = set(names)
    ranked = [n for n in summary.get("order", []) if n in names]
    return ranked + sorted(names - set(ranked))


def write_plots(summary: dict[str, Any], out: Path) -> list[str]:
    """Write every plot into ``out`` in each of :data:`FORMATS`; return the PNG file names."""
    builders = (
        ("acquisition", acquisition_figure),
        ("behaviour", behaviour_figure),
        ("infomgmt", infomgmt_figure),
    )
    files = []
    for stem, build in builders:
        fig = build(summary)
        if fig is not None:
            files.append(_save(fig, out, stem))
    return files


def acquisition_figure(summary: dict[str, Any]) -> Any:
    """Cumulative share of desired knowledge acquired by the end of each round (1-based)."""
    curves = summary["acquisition"]
    if not curves:
        return None
    plt, ticker = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for i, name in enumerate(order(summary, curves)):
        ys = curves[name]
        # Marker and dash vary too, so curves that coincide (e.g. two flat at 0) stay visible.
        style = {"marker": _MARKERS[i % len(_MARKERS)], "linestyle": _DASHES[i % len(_DASHES)]}
        ax.plot(range(1, len(ys) + 1), ys, markersize=4, label=name, **style)
    ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.set(xlabel="round", ylabel="share of desired knowledge acquired", ylim=(-0.02, 1.02),
           title="Cumulative knowledge acquisition")  # fmt: skip
    ax.grid(alpha=0.3)
    # Outside the axes, so no curve (even one flat at 0) hides behind the legend.
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def behaviour_figure(summary: dict[str, Any]) -> Any:
    """Private-message, stale-conversation and violation shares per policy, each bar labelled."""
    stats = summary["interaction"]
    if not stats:
        return None
    plt, _ = _pyplot()
    names = order(summary, stats)
    fig, axes = plt.subplots(1, 3, figsize=(11, 0.9 + 0.45 * len(names)), sharey=True)
    for ax, (key, title) in zip(axes, _BEHAVIOUR, strict=True):
        values = [stats[n][key] for n in names]
        bars = ax.barh(names, values)
        # A zero bar has no area; its label keeps it from reading as a missing value.
        ax.bar_label(bars, labels=[f"{v:.0%}" for v in values], padding=2, fontsize=8)
        ax.set(title=title, xlim=(0, 1.15))
        ax.axvline(0, color="black", linewidth=0.8)
    axes[0].invert_yaxis()  # best policy on top, as in the tables (the y axis is shared)
    return fig


def infomgmt_figure(summary: dict[str, Any]) -> Any:
    """Mean InfoMgmt per policy with its 95% bootstrap interval, each bar labelled."""
    metrics = summary["metrics"]
    if not metrics:
        return None
    plt, _ = _pyplot()
    names = order(summary, metrics)
    cm = [metrics[n]["CM"] for n in names]
    means = [0.0 if _nan(c["mean"]) else c["mean"] for c in cm]
    lows = [0.0 if _nan(c["mean"]) else max(0.0, c["mean"] - c["ci"][0]) for c in cm]
    highs = [0.0 if _nan(c["mean"]) else max(0.0, c["ci"][1] - c["mean"]) for c in cm]
    fig, ax = plt.subplots(figsize=(7, 0.9 + 0.45 * len(names)))
    bars = ax.barh(names, means, xerr=[lows, highs], capsize=3)
    labels = ["n/a" if _nan(c["mean"]) else f"{c['mean']:.3f}" for c in cm]
    ax.bar_label(bars, labels=labels, padding=4, fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set(xlabel="InfoMgmt (CM), 95% bootstrap CI", xlim=(0, 1.15))
    ax.invert_yaxis()
    return fig


def _pyplot() -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")  # no display; files only
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    return plt, ticker


def _save(fig: Any, out: Path, stem: str) -> str:
    """Save ``fig`` as ``stem`` in every format, close it, and return the PNG's name."""
    plt, _ = _pyplot()
    fig.tight_layout()
    for fmt in FORMATS:
        fig.savefig(out / f"{stem}.{fmt}", dpi=110, metadata=_METADATA[fmt], bbox_inches="tight")
    plt.close(fig)
    return f"{stem}.png"


def _nan(x: float) -> bool:
    return x != x
