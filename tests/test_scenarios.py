"""Scenario schema, loading in every layout, reference resolution and validation."""

from __future__ import annotations

import json

import pytest
from conftest import reference_file
from typer.testing import CliRunner

import scenarios
from scenarios.io import ScenarioFormatError
from sotopia_tom_app.cli import app


def test_tiny_set_has_one_3_4_and_5_agent_scenario(tiny):
    assert sorted(len(s.agents) for s in tiny) == [3, 4, 5]
    assert all(r.ok and not r.warnings for r in scenarios.validate_all(tiny))


@pytest.mark.parametrize(
    "name", ["rebuttal_ablation_scenarios.json", "aura.json", "scenario_seeds.json"]
)
def test_every_reference_file_loads(name):
    loaded = scenarios.load(reference_file(name))
    expected = {"rebuttal_ablation_scenarios.json": 30, "aura.json": 1, "scenario_seeds.json": 16}[
        name
    ]
    assert len(loaded) == expected
    assert all(len(s.agents) == 3 for s in loaded)


def test_aura_list_values_and_missing_sector():
    (aura,) = scenarios.load(reference_file("aura.json"))
    assert aura.sector is None
    assert any(
        isinstance(i.value, list) for a in aura.agents for i in a.pre_interaction_knowledge.values()
    )


def test_validator_flags_every_bad_seed_and_passes_every_good_one():
    seeds = scenarios.load(reference_file("scenario_seeds.json"))
    reports = {r.scenario_id: r for r in scenarios.validate_all(seeds)}
    bad = [s.id for s in seeds if s.reason]
    good = [s.id for s in seeds if not s.reason]
    assert len(bad) == len(good) == 8
    assert all(reports[i].errors for i in bad)
    assert all(not reports[i].errors for i in good), [
        str(e) for i in good for e in reports[i].errors
    ]


def test_resolution_handles_all_three_reference_styles():
    rebuttal = scenarios.load(reference_file("rebuttal_ablation_scenarios.json"))
    rules = {rule for s in rebuttal for rule in s.resolution.rule.values()}
    assert {"exact", "key prefix", "fuzzy"} <= rules
    assert all(not s.resolution.unresolved for s in rebuttal)


def test_resolution_rules_on_a_small_case(tiny3):
    d = tiny3.model_dump()
    a0 = d["agents"][0]
    a0["post_interaction_knowledge"]["desired_knowledge"] = [
        "Per-patient program cost",  # exact
        "per-patient  PROGRAM cost",  # normalised
        "Device security certification: passed PT-2291",  # key prefix
        "Gateway firmware still exposes CVE-2024-31337",  # value paraphrase (fuzzy)
        "Cafeteria menu for next week",  # nothing
    ]
    s = scenarios.Scenario.model_validate(d)
    res = s.resolution
    names = [r.name if r else None for r in res.desired[0]]
    assert names == [
        "Per-patient program cost",
        "Per-patient program cost",
        "Device security certification",
        "Unpatched vulnerability",
        None,
    ]
    assert [res.rule[(0, "desired_knowledge", j)] for j in range(4)] == [
        "exact",
        "normalised",
        "key prefix",
        "fuzzy",
    ]
    assert [(u.field, u.text) for u in res.unresolved] == [
        ("desired_knowledge", "Cafeteria menu for next week")
    ]


def _broken(tiny3, **edits):
    d = tiny3.model_dump()
    for path, value in edits.items():
        target = d
        *head, last = path.split("__")
        for k in head:
            target = target[int(k)] if k.isdigit() else target[k]
        target[int(last) if last.isdigit() else last] = value
    return scenarios.Scenario.model_validate(d)


@pytest.mark.parametrize(
    ("edits", "rule", "path"),
    [
        (
            {"agents__0__goals__sharing_policy__what_to_share": ["No such item"]},
            "policy_item_exists",
            "agents[0].goals.sharing_policy.what_to_share[0]",
        ),
        (
            {"agents__1__goals__sharing_policy__what_not_to_share": ["Reimbursement outlook"]},
            "sensitivity_consistency",
            "agents[1].goals.sharing_policy.what_not_to_share[0]",
        ),
        (
            {"agents__1__goals__sharing_policy__what_not_to_share": ["Per-patient program cost"]},
            "policy_overlap",
            "agents[1].goals.sharing_policy.what_not_to_share[0]",
        ),
        (
            {
                "agents__0__post_interaction_knowledge__desired_knowledge": [
                    "Pending vendor penalty"
                ]
            },
            "goal_reachability",
            "agents[0].post_interaction_knowledge.desired_knowledge[0]",
        ),
        (
            {"agents__0__post_interaction_knowledge__desired_knowledge": ["Nurse union grievance"]},
            "desired_item_exists",
            "agents[0].post_interaction_knowledge.desired_knowledge[0]",
        ),
        (
            {"agents__0__goals__primary_objective": "I need to confirm the $182 monthly cost."},
            "objective_leakage",
            "agents[0].goals.primary_objective",
        ),
        (
            {"knowledge_domain_map": {"budget": "Finance Directr"}},
            "domain_map_roles",
            "knowledge_domain_map.budget",
        ),
        ({"agents__2__role": "Finance Director"}, "unique_roles", "agents[2].role"),
        ({"agents__2__role": "finance-DIRECTOR"}, "unique_roles", "agents[2].role"),
        ({"agents__2__role": "Agent 1"}, "role_shadows_id", "agents[2].role"),
        ({"agents": []}, "agent_count", "agents"),
    ],
)
def test_each_rule_names_scenario_rule_path_and_text(tiny3, edits, rule, path):
    s = _broken(tiny3, **edits)
    errors = [f for f in scenarios.check(s) if f.severity == "error"]
    hit = [f for f in errors if f.rule == rule]
    assert hit, [str(e) for e in errors]
    assert hit[0].path == path and hit[0].scenario_id == "tiny-3-agents"


def test_domain_map_typo_gets_a_suggestion(tiny3):
    s = _broken(tiny3, knowledge_domain_map={"budget": "Finance Directr"})
    (f,) = [f for f in scenarios.check(s) if f.rule == "domain_map_roles"]
    assert "did you mean 'Finance Director'" in f.message


def test_duplicate_ids_are_errors(tiny):
    reports = scenarios.validate_all([tiny[0], tiny[0]])
    assert all(any(f.rule == "duplicate_scenario_id" for f in r.errors) for r in reports)


def test_all_containers_load_the_same(tmp_path, tiny):
    records = [s.model_dump(mode="json", exclude_none=True) for s in tiny]
    (tmp_path / "list.json").write_text(json.dumps(records))
    (tmp_path / "wrapped.json").write_text(json.dumps({"scenarios": records}))
    (tmp_path / "single.json").write_text(json.dumps(records[0]))
    (tmp_path / "lines.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    for name, n in [("list.json", 3), ("wrapped.json", 3), ("single.json", 1), ("lines.jsonl", 3)]:
        loaded = scenarios.load(tmp_path / name)
        assert [s.model_dump() for s in loaded] == [s.model_dump() for s in tiny[:n]]
    assert len(scenarios.load(tmp_path)) == 10  # a folder loads every file in it


def test_dump_round_trips(tmp_path, tiny):
    for name in ("a.json", "a.jsonl"):
        scenarios.dump(tiny, tmp_path / name)
        assert [s.model_dump() for s in scenarios.load(tmp_path / name)] == [
            s.model_dump() for s in tiny
        ]


def test_hf_datasets_folder_loads(tmp_path, tiny):
    datasets = pytest.importorskip("datasets")
    rows = [json.loads(s.model_dump_json(exclude_none=True)) for s in tiny]
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "nested"))  # Arrow structs
    as_strings = [
        {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in r.items()} for r in rows
    ]
    datasets.DatasetDict({"test": datasets.Dataset.from_list(as_strings)}).save_to_disk(
        str(tmp_path / "strings")
    )
    for folder in ("nested", "strings"):
        loaded = scenarios.load(tmp_path / folder)
        assert [s.model_dump() for s in loaded] == [s.model_dump() for s in tiny], folder


OLD = {
    "scenarios": [
        {
            "scenario_id": 200,
            "scenario_type": "Legal - Corporate Setting",
            "agents": [
                {
                    "agent_id": 1,
                    "role": "General Counsel",
                    "pre_interaction_knowledge": {
                        "Settlement ceiling": "$4.2M",
                        "Filing deadline": "May 2, 2026",
                    },
                    "post_interaction_knowledge": {
                        "desired_knowledge": ["Insurance cover: $10M policy"],
                        "cannot_know_knowledge": {
                            "CFO's restricted data": ["Cash runway: 14 months"]
                        },
                    },
                    "goals": {
                        "what_to_share": ["Filing deadline"],
                        "what_not_to_share": ["Settlement ceiling"],
                    },
                },
                {
                    "agent_id": 2,
                    "role": "CFO",
                    "pre_interaction_knowledge": {
                        "Insurance cover": "$10M policy",
                        "Cash runway": "14 months",
                    },
                    "post_interaction_knowledge": {
                        "desired_knowledge": ["Filing deadline"],
                        "cannot_know_knowledge": {},
                    },
                    "goals": {
                        "what_to_share": ["Insurance cover"],
                        "what_not_to_share": ["Cash runway"],
                    },
                },
                {
                    "agent_id": 3,
                    "role": "Outside Counsel",
                    "pre_interaction_knowledge": {"Hearing date": "June 9, 2026"},
                    "post_interaction_knowledge": {"desired_knowledge": []},
                    "goals": {"what_to_share": ["Hearing date"], "what_not_to_share": []},
                },
            ],
        }
    ]
}


def test_old_format_is_adapted(tmp_path):
    (tmp_path / "old.json").write_text(json.dumps(OLD))
    (s,) = scenarios.load(tmp_path / "old.json")
    assert s.sector == "legal"
    gc = s.agents[0]
    assert gc.pre_interaction_knowledge["Settlement ceiling"].sensitivity == "private"
    assert gc.pre_interaction_knowledge["Filing deadline"].sensitivity == "public"
    assert gc.post_interaction_knowledge.cannot_know_knowledge == ["Cash runway: 14 months"]
    assert gc.policy.what_not_to_share == ["Settlement ceiling"]
    assert not [e for e in scenarios.check(s) if e.severity == "error"]


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("[{]", "invalid JSON at line 1"),
        ('"just a string"', "got str"),
        ("[1]", "record [0] is a int"),
        (
            '[{"scenario_id": 5, "agents": [{"role": "A"}]}]',
            "record [0] (scenario_id=5): agents.0.agent_id: Field required",
        ),
        (
            '[{"scenario_id": 5, "agents": [{"agent_id": 1, "role": "A", "pre_interaction_knowledge": {"x": {"value": 3}}}]}]',
            "agents.0.pre_interaction_knowledge.x.value",
        ),
        (
            '[{"scenario_id": 5, "agents": [{"agent_id": 1, "role": "A", "pre_interaction_knowledge": {"x": {"value": "v", "sensitivity": "secret"}}}]}]',
            "sensitivity",
        ),
    ],
)
def test_broken_files_name_file_record_and_field(tmp_path, content, fragment):
    path = tmp_path / "broken.json"
    path.write_text(content)
    with pytest.raises(ScenarioFormatError) as e:
        scenarios.load(path)
    assert str(path) in str(e.value) and fragment in str(e.value)


def test_broken_jsonl_names_the_line(tmp_path, tiny):
    path = tmp_path / "b.jsonl"
    path.write_text(tiny[0].model_dump_json() + "\n{oops\n")
    with pytest.raises(ScenarioFormatError, match=r"b.jsonl:2: invalid JSON"):
        scenarios.load(path)


def test_unknown_name_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="neither a shipped scenario set"):
        scenarios.load("no-such-set")


def test_cli_validate_exit_codes_and_json():
    runner = CliRunner()
    seeds = str(reference_file("scenario_seeds.json"))
    result = runner.invoke(app, ["validate", seeds, "--json"])
    assert result.exit_code == 1
    reports = json.loads(result.stdout)
    assert {r["scenario_id"] for r in reports if r["errors"]} == {
        "101",
        "102",
        "103",
        "104",
        "105",
        "106",
        "107",
        "201",
    }
    first = next(r for r in reports if r["errors"])["errors"][0]
    assert set(first) == {"scenario_id", "rule", "severity", "path", "message", "text"}
    assert runner.invoke(app, ["validate", "tiny"]).exit_code == 0
    human = runner.invoke(app, ["validate", seeds])
    assert "goal_reachability" in human.stdout and "16 scenarios: 8 without errors" in human.stdout
