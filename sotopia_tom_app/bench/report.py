"""Writing a benchmark report from a results folder.

Files: ``summary.json``, ``report.md``, ``report.html``, ``report.csv`` (one row per policy),
``report.tex`` (a booktabs table), plots as PNG, SVG and PDF, and one page per episode.

Everything is computed from ``episodes.jsonl`` (plus ``config.json`` for the header and any
``judged-*.jsonl`` written by ``sotopia-tom judge``), so ``sotopia-tom report DIR`` rebuilds the
same report at any time (bootstrap intervals are seeded). Each episode id counts once, and
damaged lines are skipped with a warning (see ``records``). Policies are listed in one order
everywhere: by mean InfoMgmt, best first.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import json
import logging
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sotopia_tom_app.bench.agreement import agreement, judge_rows
from sotopia_tom_app.bench.plots import FORMATS, write_plots
from sotopia_tom_app.bench.records import EPISODES_FILE, EpisodeRecord, read_episodes, read_judged
from sotopia_tom_app.bench.run_info import run_info
from sotopia_tom_app.bench.summary import (
    METRICS,
    bootstrap_ci,
    label,
    paired_differences,
    summarize,
)
from sotopia_tom_app.bench.viewer import page_name, write_episode_page

log = logging.getLogger(__name__)


class NoEpisodes(ValueError):
    """The folder holds no episode to report on."""


_HEAD = {"reward": "episode reward ↑", "DA": "DA ↑", "IA": "IA ↑", "EFF": "EFF ↑", "CPV": "CPV ↓", "CM": "InfoMgmt ↑",
         "EFF_H": "EFF@H ↑", "CM_H": "InfoMgmt@H ↑", "IA_I": "IA@informs ↑"}  # fmt: skip
_INTERACTION = {  # key -> (column, how its value is written)
    "rounds": ("rounds", "mean"),
    "messages": ("messages", "mean"),
    "talk_rate": ("talk rate", "share"),
    "private_rate": ("private rate", "share"),
    "malformed_rate": ("malformed rate", "share"),
    "stale_rate": ("stale rate", "share"),
    "violation_rate": ("violation rate", "share"),
    "zero_cm_rate": ("InfoMgmt 0", "share"),
    "leave_rate": ("left", "share"),
    "budget_cuts": ("cut by budget", "count"),
    "completion_tokens": ("completion tokens", "count"),
}
GLOSSARY = {
    "policy": "The player every agent of the episode used (`policy @ model` for LLM players).",
    "episodes": "Episodes played (one per scenario and seed); judge failures are counted here "
    "but left out of the means.",
    "DA ↑": "Disclosure Alignment, 0-1: each item the agent's sharing rules say to share counts "
    "1 if it shared it on the right channel (public item in public, private item by DM); each "
    "must-not-share item counts 1 if it kept it. Mean per agent, then over agents.",
    "IA ↑": "Inquiry Alignment, 0-1: each item an agent needs counts 1 if it asked for it, of an "
    "audience that holds it, on a fitting channel (private items privately).",
    "EFF ↑": "Efficiency, 0-1: how early each agent received what it needs, from the median "
    "round of acquisition (1 = all in the first round, 0 = never or only in the last round).",
    "CPV ↓": "Critical Privacy Violations, 0-1 (lower is better): violation events (a private "
    "item shared publicly, or revealed to someone who must not know it) per private item.",
    "InfoMgmt ↑": "The composite CM = (DA · IA · max(0, 1 − CPV) · EFF)^(1/4), the benchmark's "
    "score; 0 when any factor is 0.",
    "EFF@H ↑": "Efficiency over a fixed horizon, the run's turn limit (max turns / agents "
    "rounds), instead of the rounds the episode played: messages that say nothing cannot raise "
    "it. The training reward's efficiency; EFF above is the paper's.",
    "InfoMgmt@H ↑": "InfoMgmt with EFF@H in place of EFF (what the training reward pays).",
    "IA@informs ↑": "IA counting only asks made before the item arrived (an ask for what the "
    "agent already received informs nobody): the training reward's IA; IA above is the paper's. "
    "Read from the rule judge's evidence of the transcript, whatever judge scored the run.",
    "[low, high]": "95% percentile bootstrap interval of the mean over episodes.",
    "sector": "Mean InfoMgmt of the policy on the scenarios of that workplace sector.",
    "rounds": "Mean rounds per episode; a round is one turn of every agent still present.",
    "messages": "Mean messages per episode (spoken lines and departures).",
    "talk rate": "Share of the agents' turns in which they spoke (rather than passing or leaving).",
    "private rate": "Share of spoken messages sent as direct messages rather than in public.",
    "malformed rate": "Share of turns whose action could not be read and became a pass.",
    "stale rate": "Share of judged episodes with EFF = 0: no agent received a needed item in "
    "time (a stale conversation).",
    "violation rate": "Share of judged episodes with at least one critical privacy violation "
    "(CPV > 0).",
    "InfoMgmt 0": "Share of judged episodes scoring InfoMgmt 0 (some factor of CM was 0).",
    "left": "Share of agents that left when done (the last one counts when all others left, "
    "as that ends the episode), rather than being cut off by the turn limit or a stale "
    "conversation.",
    "cut by budget": "LLM replies that stopped at their token budget before they were complete "
    "(summed over the policy's episodes): a cut action is retried once, then the turn is "
    "silent; a cut state update keeps the last good state; a cut coach note is used as far "
    "as it goes.",
    "completion tokens": "Tokens the players generated, summed over the policy's episodes (0 "
    "for scripted players).",
    "win rate": "Row beats column on InfoMgmt on the same scenario and seed; ties count half.",
    "sharing-rule items": "Items the agents' sharing rules list, to share and must-not-share, "
    "summed over the policy's episodes with a DA verdict; every one is either credited or fails "
    "in exactly one way: never said, private in public, public by DM, said, not judged.",
    "credited": "Items that earned their metric's credit (share of the row's items): in the "
    "disclosure table, an item to share stated only on its channel, or a must-not-share item "
    "kept (DA); in the inquiry table, a desired item asked of a holder on a fitting channel (IA).",
    "never said": "Items to share the agent never stated.",
    "private in public": "Private items to share stated at least once in public.",
    "public by DM": "Public items to share stated at least once by direct message.",
    "said": "Must-not-share items the agent stated.",
    "not judged": "Items the judge's verdict (DA or IA) left out (scored 0).",
    "desired items": "Items the agents needed, summed over the policy's episodes with an IA "
    "verdict; every one is either credited or fails in exactly one way: never asked, wrong "
    "person, wrong channel, not judged.",
    "never asked": "Desired items no message of the agent asked for.",
    "wrong person": "Desired items asked for, but never with a holder in the audience (a direct "
    "message to others only).",
    "wrong channel": "Desired items a holder was asked for, but private ones asked in public.",
    "n": "Episodes both judges scored on the metric (a failed metric is left out, not 0).",
    "Pearson r": "Linear correlation of the two judges' per-episode scores (n/a under 2 "
    "episodes or when a judge gives every episode the same score).",
    "Spearman ρ": "Rank correlation of the two judges' per-episode scores: whether they order "
    "the episodes alike.",
}


@dataclass
class Table:
    """A report table: a header row and rows of already formatted cells."""

    head: list[str]
    rows: list[list[str]]


def build_report(
    out: Path,
    seed: int = 0,
    judges: tuple[str, str] | None = None,
    paired: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Rebuild every report file in ``out`` from its episodes; return the summary.

    Args:
        out: the results folder.
        seed: the bootstrap seed.
        judges: two judges (e.g. ``("rule", "llm")``) whose per-episode scores to correlate,
            per metric, in a "Judge agreement" section and ``summary["judge_agreement"]``
            (see :func:`~sotopia_tom_app.bench.agreement.judge_rows` for where scores come from).
        paired: two or more policy labels, e.g. a pipeline's stages in order: for each
            consecutive pair ``(a, b)`` the per-episode difference ``b − a`` of every metric
            (and the episode reward) over the scenarios both played, in a "Paired difference"
            section each and the list ``summary["paired"]``.

    Raises:
        NoEpisodes: ``out`` holds no readable episode (nothing is written then).
        UnknownJudge: a judge of ``judges`` has no scores in ``out`` (nothing is written then).
        KeyError: a policy of ``paired`` has no episodes in ``out`` (nothing is written then).
    """
    # Sorted, so the report does not depend on the order episodes happened to finish in.
    records = sorted(read_episodes(out / EPISODES_FILE), key=lambda r: r.episode_id)
    if not records:
        raise NoEpisodes(f"no episodes in {out / EPISODES_FILE}")
    pair = judge_pair(out, judges, records) if judges else None  # checked before any write
    summary = summarize(records, seed)
    if pair is not None:
        summary["judge_agreement"] = pair
    if paired is not None:
        summary["paired"] = [
            paired_differences(records, a, b, seed=seed) for a, b in itertools.pairwise(paired)
        ]
    (out / "summary.json").write_text(
        json.dumps(summary, indent=2, sort_keys=True), encoding="utf-8"
    )
    plots = write_plots(summary, out)
    for r in records:
        write_episode_page(r, out / "episodes")
    report = Report(summary, plots, records, run_info(out, records), other_judges(out, records))
    (out / "report.md").write_text(report.markdown(), encoding="utf-8")
    (out / "report.html").write_text(report.html(), encoding="utf-8")
    (out / "report.csv").write_text(report_csv(summary), encoding="utf-8")
    (out / "report.tex").write_text(latex_table(summary), encoding="utf-8")
    return summary


# -- scores of other judges (``sotopia-tom judge RUN --judge llm``) --------------------------------


def judge_pair(out: Path, judges: tuple[str, str], records: list[EpisodeRecord]) -> dict[str, Any]:
    """How judge ``b`` agrees with judge ``a`` per metric: ``{"judges": [a, b], "metrics": [...]}``.

    Raises:
        UnknownJudge: a judge has no scores in ``out``.
    """
    a, b = judges
    rows_a, rows_b = (judge_rows(out, j, records) for j in judges)
    return {"judges": [a, b], "metrics": [x.as_dict() for x in agreement(rows_a, rows_b)]}


def agreement_table(pair: dict[str, Any]) -> Table:
    """Per metric: episodes both judges scored, each judge's mean, the difference, r and rho."""
    a, b = pair["judges"]
    head = ["metric", "n", f"mean {a}", f"mean {b}", f"diff ({b} − {a})", "Pearson r", "Spearman ρ"]
    rows = [
        [m["metric"], str(m["n"]), _score(m["mean_a"]), _score(m["mean_b"]),
         _signed(m["mean_diff"]), _signed(m["pearson"]), _signed(m["spearman"])]
        for m in pair["metrics"]
    ]  # fmt: skip
    return Table(head, rows)


def paired_table(paired: dict[str, Any]) -> Table:
    """Per metric: the mean paired difference, its 95% interval and the number of pairs."""
    rows = []
    for m, d in paired["metrics"].items():
        low, high = d["ci"]
        rows.append(
            [_HEAD[m], _signed(d["mean"]), f"[{_signed(low)}, {_signed(high)}]", str(d["n"])]
        )
    return Table(["metric", "mean difference", "95% CI", "pairs"], rows)


def paired_markdown(paired: dict[str, Any]) -> str:
    """The paired-difference table (Markdown), for the terminal."""
    return _md(paired_table(paired))


def agreement_markdown(pair: dict[str, Any]) -> str:
    """The judge-agreement table (Markdown), for the terminal."""
    return _md(agreement_table(pair))


def _signed(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:+.3f}"


def other_judges(out: Path, records: list[EpisodeRecord]) -> dict[str, dict[str, list[dict]]]:
    """Per ``judged-*.jsonl`` file: per policy label, the scores of that judge's rows.

    Rows of episodes the folder does not hold, or without scores, are left out; a damaged line
    is skipped with a warning.
    """
    labels = {r.episode_id: label(r) for r in records}
    found: dict[str, dict[str, list[dict]]] = {}
    for path in sorted(out.glob("judged-*.jsonl")):
        per_policy: dict[str, list[dict]] = defaultdict(list)
        for row in read_judged(path, labels):
            per_policy[labels[row["episode_id"]]].append(row["scores"])
        found[path.stem.removeprefix("judged-")] = dict(per_policy)
    return found


def judges_table(summary: dict[str, Any], judged: dict[str, dict[str, list[dict]]]) -> Table:
    """Each policy's scores from the run's own judge, followed by each re-judging's."""
    head = ["policy", "judge", "episodes", *(_HEAD[m] for m in METRICS)]
    rows = []
    seed = summary["bootstrap_seed"]
    for name in summary["order"]:
        own = summary["metrics"][name]
        rows.append([name, "this run", str(own["episodes"]), *(_cell(own[m]) for m in METRICS)])
        for judge, per_policy in judged.items():
            scores = per_policy.get(name, [])
            cells = [_cell(_stat([s.get(m) for s in scores], seed)) for m in METRICS]
            rows.append([name, judge, str(len(scores)), *cells])
    return Table(head, rows)


def _stat(values: list[Any], seed: int) -> dict[str, Any]:
    vals = [float(v) for v in values if isinstance(v, int | float)]
    low, high = bootstrap_ci(vals, seed) if vals else (math.nan, math.nan)
    mean = sum(vals) / len(vals) if vals else math.nan
    return {"mean": mean, "ci": [low, high], "n": len(vals)}


# -- tables --------------------------------------------------------------------------------------


def metrics_table(summary: dict[str, Any]) -> Table:
    """One row per policy (best InfoMgmt first): episodes and mean [95% CI] per metric."""
    head = ["policy", "episodes", *(_HEAD[m] for m in METRICS)]
    rows = []
    for name in summary["order"]:
        row = summary["metrics"][name]
        fails = f" ({row['judge_failures']} judge failures)" if row["judge_failures"] else ""
        rows.append([name, f"{row['episodes']}{fails}", *(_cell(row[m]) for m in METRICS)])
    return Table(head, rows)


def results_table(summary: dict[str, Any]) -> str:
    """The main table (Markdown): one row per policy, mean [95% CI] per metric."""
    return _md(metrics_table(summary))


def sector_table(summary: dict[str, Any]) -> Table:
    """Mean InfoMgmt per policy and sector."""
    sectors = sorted({s for row in summary["sectors"].values() for s in row})
    rows = [
        [name, *(_score(summary["sectors"].get(name, {}).get(s)) for s in sectors)]
        for name in summary["order"]
        if name in summary["sectors"]
    ]
    return Table(["policy", *sectors], rows)


def interaction_table(summary: dict[str, Any]) -> Table:
    """Interaction statistics per policy (counts as counts, shares as percentages)."""
    head = ["policy", *(col for col, _ in _INTERACTION.values())]
    rows = []
    for name in summary["order"]:
        stats = summary["interaction"][name]
        rows.append([name, *(_format(stats[k], kind) for k, (_, kind) in _INTERACTION.items())])
    return Table(head, rows)


_INQUIRY_COLUMNS = {  # summary key -> column; the first counts the items, the rest share them
    "desired": "desired items",
    "credited": "credited",
    "never_asked": "never asked",
    "wrong_person": "wrong person",
    "wrong_channel": "wrong channel",
    "not_judged": "not judged",
}
_DISCLOSURE_COLUMNS = {
    "items": "sharing-rule items",
    "credited": "credited",
    "never_said": "never said",
    "private_in_public": "private in public",
    "public_by_dm": "public by DM",
    "said": "said",
    "not_judged": "not judged",
}


def inquiry_failures_table(summary: dict[str, Any]) -> Table:
    """Per policy: desired items, then credited and each failure kind as count (share)."""
    return _failures_table(summary.get("inquiry_failures", {}), summary["order"], _INQUIRY_COLUMNS)


def disclosure_failures_table(summary: dict[str, Any]) -> Table:
    """Per policy: sharing-rule items, then credited and each failure kind as count (share)."""
    failures = summary.get("disclosure_failures", {})
    return _failures_table(failures, summary["order"], _DISCLOSURE_COLUMNS)


def _failures_table(
    failures: dict[str, dict[str, int]], order: list[str], columns: dict[str, str]
) -> Table:
    """Rows of ``failures`` in report ``order``: the item count, then each part as count (share)."""
    total, *parts = columns
    rows = []
    for name in (n for n in order if n in failures):
        row = failures[name]
        n = row[total]
        cells = [f"{row[k]} ({_format(row[k] / n, 'share')})" if n else str(row[k]) for k in parts]
        rows.append([name, str(n), *cells])
    return Table(["policy", *columns.values()], rows)


def wins_table(summary: dict[str, Any]) -> Table:
    """Paired win rates on InfoMgmt, row over column."""
    names = [n for n in summary["order"] if n in summary["win_rates"]]
    rows = [
        [a, *("" if a == b else _format(summary["win_rates"][a].get(b), "share") for b in names)]
        for a in names
    ]
    return Table(["", *names], rows)


# -- Markdown and HTML ---------------------------------------------------------------------------


@dataclass
class Report:
    """Everything the Markdown and HTML reports show."""

    summary: dict[str, Any]
    plots: list[str]
    records: list[EpisodeRecord]
    info: dict[str, str]
    judged: dict[str, dict[str, list[dict]]]

    def sections(self) -> list[tuple[str, Table | str]]:
        """The report's sections in order: (title, table or paragraph)."""
        s = self.summary
        parts: list[tuple[str, Table | str]] = [
            ("Run", Table(["setting", "value"], [[k, v] for k, v in self.info.items()])),
            ("Scores", metrics_table(s)),
            ("InfoMgmt by sector", sector_table(s) if s["sectors"] else "(no judged episodes)"),
            ("Interaction", interaction_table(s)),
            ("Paired win rates (row beats column on InfoMgmt, same scenario and seed)",
             wins_table(s) if len(s["win_rates"]) > 1 else "(needs two policies)"),
            ("Disclosure failures (shareable and must-not-share items without DA credit, by cause)",
             disclosure_failures_table(s) if s.get("disclosure_failures") else "(no DA verdicts)"),
            ("Inquiry failures (desired items without IA credit, by cause)",
             inquiry_failures_table(s) if s.get("inquiry_failures") else "(no IA verdicts)"),
        ]  # fmt: skip
        if self.judged:
            parts.append(("Scores from other judges (sotopia-tom judge)", judges_table(s, self.judged)))  # fmt: skip
        for p in s.get("paired", []):
            parts.append((f"Paired difference ({p['b']} − {p['a']}, same scenario and seed)",
                          paired_table(p)))  # fmt: skip
        if "judge_agreement" in s:
            a, b = s["judge_agreement"]["judges"]
            parts.append((f"Judge agreement ({a} vs {b}, per-episode scores)",
                          agreement_table(s["judge_agreement"])))  # fmt: skip
        parts.append(("Glossary", Table(["column", "meaning"], [[k, v] for k, v in GLOSSARY.items()])))  # fmt: skip
        return parts

    def lead(self) -> str:
        """The sentence under the title."""
        s = self.summary
        return (f"{s['episodes']} episodes. Means with 95% bootstrap CIs (seed {s['bootstrap_seed']}); "
                "policies ordered by InfoMgmt, best first, in every table and plot. Exports: "
                "report.csv, report.tex; plots also as " + ", ".join(f".{f}" for f in FORMATS[1:]) + ".")  # fmt: skip

    def markdown(self) -> str:
        """The whole report as Markdown."""
        parts = ["# Benchmark report", self.lead(), ""]
        for title, body in self.sections():
            parts += [f"## {title}", _md(body) if isinstance(body, Table) else body, ""]
        parts += ["## Plots", *[f"![{p}]({p})" for p in self.plots], "", "## Episodes"]
        parts += [f"- [{r.episode_id}](episodes/{page_name(r)})" for r in self.records]
        return "\n".join(parts) + "\n"

    def html(self) -> str:
        """The report as a standalone HTML page (tables, plots, links to every episode)."""
        body = [f"<h1>Benchmark report</h1><p>{html.escape(self.lead())}</p>"]
        for title, part in self.sections():
            body.append(f"<h2>{html.escape(title)}</h2>")
            body.append(_html(part) if isinstance(part, Table) else f"<p>{html.escape(part)}</p>")
        body.append("<h2>Plots</h2>")
        body += [f'<img src="{html.escape(p)}" alt="{html.escape(p)}">' for p in self.plots]
        body.append("<h2>Episodes</h2><ul>")
        body += [f'<li><a href="episodes/{html.escape(page_name(r))}">{html.escape(r.episode_id)}</a> '
                 f"CM {_score(r.scores.CM if r.scores else None)}</li>" for r in self.records]  # fmt: skip
        body.append("</ul>")
        style = ("body{font:14px system-ui,sans-serif;max-width:1100px;margin:auto;padding:16px}"
                 "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;vertical-align:top}"
                 "img{max-width:100%;display:block;margin:8px 0}")  # fmt: skip
        return ('<!doctype html><html><head><meta charset="utf-8"><title>Benchmark report</title>'
                f"<style>{style}</style></head><body>{''.join(body)}</body></html>")  # fmt: skip


def _md(table: Table) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(table.head), "|" + "---|" * len(table.head), *map(line, table.rows)])


def _html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.head)
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    return f"<table><tr>{head}</tr>{rows}</table>"


# -- exports: CSV and LaTeX ----------------------------------------------------------------------


def report_csv(summary: dict[str, Any]) -> str:
    """One row per policy (report order): every metric's mean, CI and n, and the interaction stats."""
    head = ["policy", "episodes", "judge_failures"]
    head += [f"{m}_{part}" for m in METRICS for part in ("mean", "ci_low", "ci_high", "n")]
    head += list(_INTERACTION)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(head)
    for name in summary["order"]:
        row = summary["metrics"][name]
        cells: list[Any] = [name, row["episodes"], row["judge_failures"]]
        for m in METRICS:
            cells += [
                _raw(row[m]["mean"]),
                _raw(row[m]["ci"][0]),
                _raw(row[m]["ci"][1]),
                row[m]["n"],
            ]
        cells += [_raw(summary["interaction"][name][k]) for k in _INTERACTION]
        writer.writerow(cells)
    return buf.getvalue()


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}  # fmt: skip
_TEX_HEAD = {"DA": r"DA $\uparrow$", "IA": r"IA $\uparrow$", "EFF": r"EFF $\uparrow$",
             "CPV": r"CPV $\downarrow$", "CM": r"InfoMgmt $\uparrow$",
             "EFF_H": r"EFF@H $\uparrow$", "CM_H": r"InfoMgmt@H $\uparrow$",
             "IA_I": r"IA@informs $\uparrow$"}  # fmt: skip


def tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, safe inside a table cell."""
    return "".join(_TEX_SPECIAL.get(c, c) for c in text)


def latex_table(summary: dict[str, Any]) -> str:
    r"""The main table as a booktabs ``tabular`` (needs ``\usepackage{booktabs}``)."""
    lines = [
        "% Generated by sotopia-tom report: means with 95% bootstrap CIs; best InfoMgmt first.",
        r"\begin{tabular}{l r " + "c " * len(METRICS) + "}",
        r"\toprule",
        "Policy & $n$ & " + " & ".join(_TEX_HEAD[m] for m in METRICS) + r" \\",
        r"\midrule",
    ]
    for name in summary["order"]:
        row = summary["metrics"][name]
        cells = [_tex_cell(row[m]) for m in METRICS]
        lines.append(f"{tex_escape(name)} & {row['episodes']} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)


def _tex_cell(m: dict[str, Any]) -> str:
    if not m["n"]:
        return "n/a"
    low, high = m["ci"]
    return f"{m['mean']:.3f} {{\\scriptsize[{low:.2f}, {high:.2f}]}}"


# -- number formatting ---------------------------------------------------------------------------


def _cell(m: dict[str, Any]) -> str:
    if not m["n"]:
        return "n/a"
    low, high = m["ci"]
    return f"{m['mean']:.3f} [{low:.2f}, {high:.2f}]"


def _score(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"


def _format(x: float | None, kind: str) -> str:
    """A count as an integer, a mean of counts with one decimal, a share as a percentage."""
    if x is None or math.isnan(x):
        return "n/a"
    if kind == "count":
        return f"{round(x):,}"
    if kind == "share":
        return f"{x:.1%}"
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


def _raw(x: float) -> str:
    return "" if math.isnan(x) else f"{x:.6g}"
