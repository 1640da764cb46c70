"""The rule judge against the hand-labelled corpus (labels written independently of the judge)."""

from __future__ import annotations

from pathlib import Path

from rewards import RuleJudge
from rewards.judges.corpus import evaluate, load_cases

CORPUS = Path(__file__).parent / "data" / "judge_corpus.jsonl"


def test_corpus_is_big_and_balanced():
    cases = load_cases(CORPUS)
    assert len(cases) >= 150
    by_metric = {m: [c for c in cases if c["metric"] == m] for m in ("DA", "IA", "EFF", "CPV")}
    assert all(len(v) >= 20 for v in by_metric.values())
    for m in ("DA", "IA", "CPV"):
        positives = sum(c["label"] for c in by_metric[m])
        assert 0.3 < positives / len(by_metric[m]) < 0.7


def test_rule_judge_item_level_accuracy():
    report = evaluate(load_cases(CORPUS), RuleJudge())
    assert report["overall"]["accuracy"] >= 0.95, report["misses"]
    for metric, r in report["metrics"].items():
        assert r["accuracy"] >= 0.9, (metric, r)
        assert r["precision"] >= 0.95, (
            metric,
            r,
        )  # false disclosures/violations are the costly errors
