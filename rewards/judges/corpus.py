"""Evaluate any judge against a labelled corpus of item-level cases.

A case is one JSON line: a scenario (a shipped tiny id or an inline object), the agent and item
judged, a few messages, and the human label (``true``/``false`` for DA, IA and CPV; the round or
``null`` for EFF). See ``tests/data/judge_corpus.jsonl`` and ``docs/metrics.md``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import scenarios
from rewards.verdicts import Judgment
from scenarios.resolve import normalise
from sotopia_tom_env.routing import Roster
from sotopia_tom_env.transcript import Transcript


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    """The cases of a corpus file."""
    return [
        json.loads(line)
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def case_episode(
    case: dict[str, Any], library: dict[str, scenarios.Scenario]
) -> tuple[scenarios.Scenario, Transcript]:
    """The scenario and transcript a case describes."""
    raw = case["scenario"]
    s = library[raw] if isinstance(raw, str) else scenarios.Scenario.model_validate(raw)
    roster = Roster(s.roles)
    t = Transcript(scenario_id=s.id, sector=s.sector, scenario_goal=s.scenario_goal, roles=s.roles)
    for m in case["messages"]:
        sender = roster.resolve(m["sender"], "")
        t.add_step([(sender, [roster.resolve(r, sender) for r in m["to"]], "speak", m["text"])])
    return s, t


def prediction(case: dict[str, Any], judgment: Judgment) -> Any:
    """What the judgment says about the case's agent and item, in the label's terms."""
    agent, item, metric = normalise(case["agent"]), normalise(case["item"]), case["metric"]
    if metric == "CPV":
        return any(
            normalise(v.item_description) == item
            and normalise(
                v.affected_agent
                if v.violation_type == "revealed_cannot_know"
                else v.violating_agent
            )
            == agent
            for v in judgment.cpv.violations
        )
    results = {"DA": judgment.da, "IA": judgment.ia, "EFF": judgment.eff}[metric].agents
    mine = next(a for a in results if normalise(a.agent_name) == agent)
    if metric == "DA":
        found = next(
            x
            for x in mine.items_should_share + mine.items_should_not_share
            if normalise(x.item_name) == item
        )
        return found.was_disclosed
    if metric == "IA":
        found = next(x for x in mine.desired_items if normalise(x.item_description) == item)
        return found.was_inquired and found.correct_person and found.channel_appropriate
    found = next(x for x in mine.acquisitions if normalise(x.item_description) == item)
    return found.round_acquired if found.was_acquired else None


def evaluate(cases: Iterable[dict[str, Any]], judge: Any) -> dict[str, Any]:
    """Accuracy, precision and recall per metric, plus the misses.

    For EFF a case is correct when the round matches exactly; precision and recall are of the
    "acquired at all" decision.
    """
    library = {s.id: s for s in scenarios.load("tiny")}
    tallies: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    misses = []
    for case in cases:
        s, t = case_episode(case, library)
        pred = prediction(case, judge.judge(s, t))
        label = case["label"]
        tally = tallies[case["metric"]]
        tally["n"] += 1
        tally["correct"] += pred == label
        pos_pred, pos_label = (
            (pred is not None, label is not None) if case["metric"] == "EFF" else (pred, label)
        )
        tally["tp"] += pos_pred and pos_label
        tally["fp"] += pos_pred and not pos_label
        tally["fn"] += pos_label and not pos_pred
        if pred != label:
            misses.append(
                {"id": case["id"], "note": case.get("note", ""), "label": label, "predicted": pred}
            )
    return {
        "metrics": {m: _rates(t) for m, t in sorted(tallies.items())},
        "overall": _rates(_sum(tallies.values())),
        "misses": misses,
    }


def _sum(tallies: Iterable[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for t in tallies:
        for k, v in t.items():
            out[k] += v
    return out


def _rates(t: dict[str, int]) -> dict[str, float | int]:
    tp, fp, fn = t["tp"], t["fp"], t["fn"]
    return {
        "n": t["n"],
        "accuracy": round(t["correct"] / t["n"], 4) if t["n"] else 0.0,
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
    }
