"""The procedural generator, its banks and the shipped Silver set."""

from __future__ import annotations

import random
import re
from collections import Counter
from functools import cache
from importlib import resources
from pathlib import Path

import pytest

import scenarios
from scenarios import generate
from scenarios.generate.banks import SECTORS, sector_bank
from scenarios.generate.banks.draw import PLACEHOLDER, ValueDraw
from scenarios.generate.procedural import SILVER_SEED, _mentions, build_silver
from scenarios.resolve import normalise
from scenarios.values import atoms

SILVER_FILE = Path(str(resources.files("scenarios") / "data" / "silver.jsonl"))
_CUE_BEFORE = re.compile(
    r"\b(about|around|roughly|approximately|nearly|almost|under|over|some|than|close to|circa)\s+\{",
    re.I,
)
_HOOK_START = ("how ", "what ", "whether ", "when ", "which ", "who ", "where ", "why ")


@cache
def silver() -> list[scenarios.Scenario]:
    return scenarios.load(SILVER_FILE)


@cache
def gold() -> list[scenarios.Scenario]:
    return scenarios.load("gold")


def _strong(text: str) -> set[str]:
    return {a.key for a in atoms(text) if a.strong}


# --- the shipped file -------------------------------------------------------------------------


def test_shipped_set_has_600_scenarios_in_the_right_mix():
    s = silver()
    assert len(s) == 600
    assert len({x.id for x in s}) == 600
    assert Counter(len(x.agents) for x in s) == {3: 480, 4: 80, 5: 40}
    for sector in SECTORS:
        mine = [x for x in s if x.sector == sector]
        assert Counter(len(x.agents) for x in mine) == {3: 60, 4: 10, 5: 5}, sector
        assert all(re.fullmatch(rf"silver-{sector}-\d{{3}}", x.id) for x in mine)


def test_shipped_set_loads_by_name():
    assert [s.id for s in scenarios.load("silver")] == [s.id for s in silver()]


def test_shipped_set_validates_without_errors_or_warnings():
    reports = scenarios.validate_all(silver())
    assert not [str(f) for r in reports for f in r.errors]
    assert not [str(f) for r in reports for f in r.warnings]


def test_regenerating_from_the_recorded_seed_reproduces_the_file(tmp_path):
    out = tmp_path / "silver.jsonl"
    scenarios.dump(build_silver(SILVER_SEED), out)
    assert out.read_bytes() == SILVER_FILE.read_bytes()


def test_silver_and_gold_share_no_goal_and_no_value():
    gold_goals = {s.scenario_goal for s in gold()}
    gold_values = {
        i.text for s in gold() for a in s.agents for i in a.pre_interaction_knowledge.values()
    }
    assert not gold_goals & {s.scenario_goal for s in silver()}
    assert not gold_values & {
        i.text for s in silver() for a in s.agents for i in a.pre_interaction_knowledge.values()
    }


def test_shipped_scenarios_are_diverse():
    s = silver()
    goals = [x.scenario_goal for x in s]
    assert len(set(goals)) == len(goals)
    values = [i.text for x in s for a in x.agents for i in a.pre_interaction_knowledge.values()]
    assert len(set(values)) > 0.97 * len(values)
    decisions = {g.split(" based on ")[0] for g in goals}
    assert len(decisions) >= 8 * 24
    assert len({a.role for x in s for a in x.agents}) >= 8 * 20


def test_every_value_has_its_own_strong_atom():
    for s in silver():
        values = [i.text for a in s.agents for i in a.pre_interaction_knowledge.values()]
        for n, v in enumerate(values):
            others = set().union(
                *(_strong(w) | {a.key for a in atoms(w)} for w in values[:n] + values[n + 1 :])
            )
            assert _strong(v) - others, (s.id, v)


def test_policies_and_targets_follow_the_rules():
    for s in silver():
        res = s.resolution
        for i, a in enumerate(s.agents):
            pol = a.goals.sharing_policy
            assert pol.what_not_to_share and set(pol.what_not_to_share) <= set(a.private_items)
            assert sorted(pol.what_to_share + pol.what_not_to_share) == sorted(
                a.pre_interaction_knowledge
            )
            assert all(r and r.agent != i and res.may_share(r) for r in res.desired[i])
            assert all(r and r.agent != i and res.must_not_share(r) for r in res.cannot_know[i])
            objective = a.goals.primary_objective.lower()
            assert not any(
                name.lower() in objective for name in a.post_interaction_knowledge.desired_knowledge
            )


# --- the generator's knobs --------------------------------------------------------------------


def test_same_seed_same_scenarios_and_different_seeds_differ():
    a = generate.generate(6, seed=11)
    assert [x.model_dump() for x in a] == [x.model_dump() for x in generate.generate(6, seed=11)]
    b = generate.generate(6, seed=12)
    assert all(x.model_dump() != y.model_dump() for x, y in zip(a, b, strict=True))
    assert [x.sector for x in a] == list(SECTORS[:6])


@pytest.mark.parametrize("sector", SECTORS)
def test_knobs_shape_the_scenarios(sector):
    s = generate.generate(
        4,
        seed=5,
        sector=sector,
        n_agents=5,
        facts_per_agent=(5, 5),
        private_fraction=0.8,
        desired_per_agent=(3, 3),
        cannot_know_per_agent=(2, 2),
        probing=1.0,
    )
    assert all(r.ok and not r.warnings for r in scenarios.validate_all(s))
    for x in s:
        assert x.sector == sector and len(x.agents) == 5
        for a in x.agents:
            assert len(a.pre_interaction_knowledge) == 5 and len(a.private_items) == 4
            assert len(a.post_interaction_knowledge.desired_knowledge) == 3
            assert len(a.post_interaction_knowledge.cannot_know_knowledge) == 2
            assert a.goals.primary_objective.count(".") >= 2  # the probe sentence


def test_all_public_but_one_and_no_probing():
    for x in generate.generate(8, seed=2, private_fraction=0.0, probing=0.0, n_agents=3):
        for a in x.agents:
            assert len(a.private_items) == 1 == len(a.goals.sharing_policy.what_not_to_share)
            assert a.goals.primary_objective.count(". ") == 0


def test_impossible_knobs_are_refused():
    with pytest.raises(ValueError, match="n_agents"):
        generate.generate(1, seed=0, n_agents=6)
    with pytest.raises(ValueError, match="3 to 5 agents"):
        generate.generate(1, seed=0, n_agents=2)
    with pytest.raises(ValueError, match="facts_per_agent"):
        generate.generate(1, seed=0, facts_per_agent=(5, 4))
    with pytest.raises(ValueError, match="unknown sector"):
        generate.generate(1, seed=0, sector="farming")


# --- the banks --------------------------------------------------------------------------------


@pytest.mark.parametrize("sector", SECTORS)
def test_bank_sizes_and_unique_names(sector):
    bank = sector_bank(sector)
    assert len(bank.decisions) >= 24 and len(bank.roles) >= 12
    titles = [t for r in bank.roles for t in r.titles]
    assert len(set(titles)) == len(titles)
    domains = [d for r in bank.roles for d in r.domains]
    assert len(set(domains)) == len(domains)
    names = [normalise(f.name) for r in bank.roles for f in r.facts]
    assert len(set(names)) == len(names)
    for cluster in {c for d in bank.decisions for c in d.clusters}:
        assert sum(r.cluster == cluster for r in bank.roles) >= 5


@pytest.mark.parametrize("sector", SECTORS)
def test_bank_texts_carry_no_values(sector):
    bank = sector_bank(sector)
    for d in bank.decisions:
        for option in _options(d.text):
            assert not atoms(option), option
    for r in bank.roles:
        assert len(r.facts) >= 7 and sum(f.sensitive for f in r.facts) >= 2, r.titles
        assert not atoms(r.purpose) and r.purpose[0].islower(), r.purpose
        for t in r.titles:
            stems = {w[:5] for w in normalise(t).split()}
            assert any(_mentions(d, stems) for d in r.domains), t
        for f in r.facts:
            assert re.fullmatch(r"[A-Z][A-Za-z' /-]+", f.name) and not atoms(f.name), f.name
            assert f.hook.startswith(_HOOK_START) and not atoms(f.hook), f.hook
            assert f.name.lower() not in f.hook.lower(), f.name
            for option in _options(f.template):
                assert not atoms(PLACEHOLDER.sub("", option)), f.template
            assert not _CUE_BEFORE.search(f.template), f.template


@pytest.mark.parametrize("sector", SECTORS)
def test_every_template_renders_a_strong_atom(sector):
    rng = random.Random(sector)
    for r in sector_bank(sector).roles:
        for f in r.facts:
            for _ in range(5):
                value = ValueDraw(rng).value(f.template)
                assert value and "{" not in value and _strong(value), f.template


def _options(text: str) -> list[str]:
    """The text with every ``{a|b}`` choice resolved to each option in turn (first, second...)."""
    choices = [m.group(1).split("|") for m in PLACEHOLDER.finditer(text) if "|" in m.group(1)]
    width = max((len(c) for c in choices), default=1)
    out = []
    for k in range(width):
        picks = iter([c[min(k, len(c) - 1)] for c in choices])
        out.append(
            PLACEHOLDER.sub(lambda m, p=picks: next(p) if "|" in m.group(1) else m.group(0), text)
        )
    return out
