"""Writing a benchmark report: summary.json, report.md, report.html, PNG plots, episode pages.

Everything is computed from ``episodes.jsonl`` alone, so ``sotopia-tom report DIR`` rebuilds
the same report at any time (bootstrap intervals are seeded). Each episode id counts once, and
damaged lines are skipped with a warning (see ``records``).
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

from sotopia_tom_env.bench.plots import write_plots
from sotopia_tom_env.bench.records import EPISODES_FILE, EpisodeRecord, read_episodes
from sotopia_tom_env.bench.summary import METRICS, summarize
from sotopia_tom_env.bench.viewer import page_name, write_episode_page


class NoEpisodes(ValueError):
    """The folder holds no episode to report on."""


_HEAD = {"DA": "DA ↑", "IA": "IA ↑", "EFF": "EFF ↑", "CPV": "CPV ↓", "CM": "InfoMgmt ↑"}


def build_report(out: Path, seed: int = 0) -> dict[str, Any]:
    """Rebuild every report file in ``out`` from its episodes; return the summary.

    Raises:
        NoEpisodes: ``out`` holds no readable episode (nothing is written then).
    """
    # Sorted, so the report does not depend on the order episodes happened to finish in.
    records = sorted(read_episodes(out / EPISODES_FILE), key=lambda r: r.episode_id)
    if not records:
        raise NoEpisodes(f"no episodes in {out / EPISODES_FILE}")
    summary = summarize(records, seed)
    (out / "summary.json").write_text(
        json.dumps(summary, indent=2, sort_keys=True), encoding="utf-8"
    )
    plots = write_plots(summary, out)
    for r in records:
        write_episode_page(r, out / "episodes")
    (out / "report.md").write_text(markdown(summary, plots, records), encoding="utf-8")
    (out / "report.html").write_text(html_report(summary, plots, records), encoding="utf-8")
    return summary


def results_table(summary: dict[str, Any]) -> str:
    """The main table (Markdown): one row per policy, mean [95% CI] per metric."""
    rows = ["| policy | episodes | " + " | ".join(_HEAD[m] for m in METRICS) + " |",
            "|---|---|" + "---|" * len(METRICS)]  # fmt: skip
    for name, row in sorted(summary["metrics"].items(), key=lambda kv: -_num(kv[1]["CM"]["mean"])):
        cells = [_cell(row[m]) for m in METRICS]
        fails = f" ({row['judge_failures']} judge failures)" if row["judge_failures"] else ""
        rows.append(f"| {name} | {row['episodes']}{fails} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def markdown(summary: dict[str, Any], plots: list[str], records: list[EpisodeRecord]) -> str:
    """The whole report as Markdown."""
    parts = ["# Benchmark report", f"{summary['episodes']} episodes. Means with 95% bootstrap CIs (seed {summary['bootstrap_seed']}).",
             "", results_table(summary), "", "## InfoMgmt by sector", _sector_md(summary), "",
             "## Interaction", _interaction_md(summary), "", "## Paired win rates (row beats column on InfoMgmt, same scenario and seed)",
             _wins_md(summary), "", "## Plots", *[f"![{p}]({p})" for p in plots], "", "## Episodes",
             *[f"- [{r.episode_id}](episodes/{page_name(r)})" for r in records]]  # fmt: skip
    return "\n".join(parts) + "\n"


def _sector_md(summary: dict[str, Any]) -> str:
    sectors = sorted({s for row in summary["sectors"].values() for s in row})
    if not sectors:
        return "(no judged episodes)"
    rows = ["| policy | " + " | ".join(sectors) + " |", "|---|" + "---|" * len(sectors)]
    for name, row in sorted(summary["sectors"].items()):
        rows.append(
            f"| {name} | " + " | ".join(f"{row[s]:.3f}" if s in row else "" for s in sectors) + " |"
        )
    return "\n".join(rows)


def _interaction_md(summary: dict[str, Any]) -> str:
    keys = (
        "rounds",
        "messages",
        "talk_rate",
        "private_rate",
        "malformed_rate",
        "stale_rate",
        "violation_rate",
        "completion_tokens",
    )
    rows = [
        "| policy | " + " | ".join(k.replace("_", " ") for k in keys) + " |",
        "|---|" + "---|" * len(keys),
    ]
    for name, row in sorted(summary["interaction"].items()):
        rows.append(f"| {name} | " + " | ".join(_fmt(row[k]) for k in keys) + " |")
    return "\n".join(rows)


def _wins_md(summary: dict[str, Any]) -> str:
    names = sorted(summary["win_rates"])
    if len(names) < 2:
        return "(needs two policies)"
    rows = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        rows.append(
            f"| {a} | "
            + " | ".join(
                "" if a == b else _fmt(summary["win_rates"][a].get(b, float("nan"))) for b in names
            )
            + " |"
        )
    return "\n".join(rows)


def html_report(summary: dict[str, Any], plots: list[str], records: list[EpisodeRecord]) -> str:
    """The report as a standalone HTML page (tables, plots, links to every episode)."""
    body = [f"<h1>Benchmark report</h1><p>{summary['episodes']} episodes. Means with 95% bootstrap CIs "
            f"(seed {summary['bootstrap_seed']}).</p>", _md_table_html(results_table(summary)),
            "<h2>InfoMgmt by sector</h2>", _md_table_html(_sector_md(summary)),
            "<h2>Interaction</h2>", _md_table_html(_interaction_md(summary)),
            "<h2>Paired win rates</h2>", _md_table_html(_wins_md(summary)),
            "<h2>Plots</h2>", *[f'<img src="{p}" alt="{p}">' for p in plots],
            "<h2>Episodes</h2><ul>", *[f'<li><a href="episodes/{page_name(r)}">{html.escape(r.episode_id)}</a> '
                                      f"CM {_fmt(r.scores.CM if r.scores else None)}</li>" for r in records], "</ul>"]  # fmt: skip
    style = "body{font:14px system-ui,sans-serif;max-width:1100px;margin:auto;padding:16px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}img{max-width:100%;display:block;margin:8px 0}"
    return f'<!doctype html><html><head><meta charset="utf-8"><title>Benchmark report</title><style>{style}</style></head><body>{"".join(body)}</body></html>'


def _md_table_html(md: str) -> str:
    lines = [
        line for line in md.splitlines() if line.startswith("|") and not set(line) <= set("|-")
    ]
    if not lines:
        return f"<p>{html.escape(md)}</p>"
    cells = [[html.escape(c.strip()) for c in line.strip("|").split("|")] for line in lines]
    head = "".join(f"<th>{c}</th>" for c in cells[0])
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in cells[1:])
    return f"<table><tr>{head}</tr>{body}</table>"


def _cell(m: dict[str, Any]) -> str:
    if not m["n"]:
        return "n/a"
    low, high = m["ci"]
    return f"{m['mean']:.3f} [{low:.2f}, {high:.2f}]"


def _fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3f}"


def _num(x: float) -> float:
    return -1.0 if math.isnan(x) else x
