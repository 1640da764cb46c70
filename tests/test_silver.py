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
from scenarios.diversity import lexical
from scenarios.generate.banks import SECTORS, sector_bank
from scenarios.generate.banks.common import PROBES
from scenarios.generate.banks.draw import PLACEHOLDER, ValueDraw
from scenarios.generate.banks.frames import KINDS
from scenarios.generate.banks.voices import NAME_STYLES
from scenarios.generate.procedural import SILVER_SEED, _mentions, _render, _Style, build_silver
from scenarios.goal_line import named_in_goal, needs_named_in_goal
from scenarios.resolve import normalise
from scenarios.values import atoms

SILVER_FILE = Path(str(resources.files("scenarios") / "data" / "silver.jsonl"))
DEV_FILE = SILVER_FILE.with_name("silver-dev.jsonl")
_CUE_BEFORE = re.compile(
    r"\b(about|around|roughly|approximately|nearly|almost|under|over|some|than|close to|circa)\s+\{",
    re.I,
)
_HOOK_START = ("how ", "what ", "whether ", "when ", "which ", "who ", "whose ", "where ", "why ")


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


def test_regenerating_from_the_recorded_seed_reproduces_both_files(tmp_path):
    train, dev = build_silver(SILVER_SEED)
    scenarios.dump(train, tmp_path / "silver.jsonl")
    scenarios.dump(dev, tmp_path / "silver-dev.jsonl")
    assert (tmp_path / "silver.jsonl").read_bytes() == SILVER_FILE.read_bytes()
    assert (tmp_path / "silver-dev.jsonl").read_bytes() == DEV_FILE.read_bytes()


def test_the_dev_split_is_apart_from_training_and_loads_by_name():
    """80 scenarios (8, 1 and 1 per sector by agent count), no goal or id shared with Silver."""
    dev = scenarios.load("silver-dev")
    assert Counter(len(x.agents) for x in dev) == {3: 64, 4: 8, 5: 8}
    assert not {x.id for x in dev} & {x.id for x in silver()}
    assert not {x.scenario_goal for x in dev} & {x.scenario_goal for x in silver()}
    assert scenarios.load("silver-dev") == scenarios.load(DEV_FILE)


def test_objectives_are_written_in_several_voices():
    """Most needs are described by purpose or area; a few are named, as in the authors' files."""
    from scenarios.stats import name_overlap, needs

    overlaps = [name_overlap(n.name, n.objective) for s in silver() for n in needs(s)]
    named = sum(o >= 0.5 for o in overlaps) / len(overlaps)
    assert 0.01 < named <= 0.08
    words = [len(a.goals.primary_objective.split()) for s in silver() for a in s.agents]
    assert min(words) < 30 and max(words) > 90  # short and long briefs


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
    assert len({a.role for x in s for a in x.agents}) >= 0.5 * sum(len(x.agents) for x in s)


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


def test_goal_line_names_no_more_needs_than_gold():
    # Every agent reads the goal; items named there can be copied instead of found out.
    assert needs_named_in_goal(silver()) <= needs_named_in_goal(gold()) + 0.01


def test_the_measure_finds_needs_a_goal_lists():
    """The way the earlier Silver wrote goals ("weighing the <item>, <item> and <item>")."""
    listing = [
        s.model_copy(
            update={"scenario_goal": f"Decide whether to go ahead, weighing the {_names(s)}."}
        )
        for s in silver()[:40]
    ]
    assert needs_named_in_goal(listing) == 1.0


def _names(s: scenarios.Scenario) -> str:
    names = [n.lower() for a in s.agents for n in a.post_interaction_knowledge.desired_knowledge]
    return ", ".join(names[:-1]) + " and " + names[-1]


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
            assert not any(p.split("{")[0] in a.goals.primary_objective for p in PROBES)


def test_impossible_knobs_are_refused():
    with pytest.raises(ValueError, match="n_agents"):
        generate.generate(1, seed=0, n_agents=6)
    with pytest.raises(ValueError, match="3 to 5 agents"):
        generate.generate(1, seed=0, n_agents=2)
    with pytest.raises(ValueError, match="facts_per_agent"):
        generate.generate(1, seed=0, facts_per_agent=(5, 4))
    with pytest.raises(ValueError, match="unknown sector"):
        generate.generate(1, seed=0, sector="farming")


# --- the new guarantees: diversity, needs from roles, mix --------------------------------------


def test_shipped_set_meets_the_diversity_goals():
    m = lexical(silver())
    assert m["role_titles"]["distinct"] >= 0.5 * m["role_titles"]["total"]
    assert m["item_names"]["distinct"] >= 0.5 * m["item_names"]["total"]
    overlap = m["same_sector_4gram_jaccard"]
    assert overlap["mean"] <= 0.02 and overlap["max"] <= 0.1


def _role_of(sector: str, title: str):
    """The bank role whose longest title core the title contains."""
    cores = [(f, r) for r in sector_bank(sector).roles for f in r.functions if f in title]
    assert cores, title
    return max(cores, key=lambda c: len(c[0]))[1]


def _topic_of(sector: str, name: str) -> str:
    """The topic of an item "<unit> <stem> [<measure word>]" (or "<stem> ... (<unit>)", "<stem>
    ..., <unit>"): drop the unit, match the stem."""
    bank = sector_bank(sector)
    low = name.lower()
    units = [u for u in bank.units if low.startswith(u + " ") or low.endswith((f"({u})", f", {u}"))]
    assert units, name
    unit = max(units, key=len)
    rest = low[len(unit) + 1 :] if low.startswith(unit + " ") else low.rsplit(" (", 1)[0]
    rest = rest.removesuffix(f", {unit}")
    stems = [(s.stem, s.topic) for s in bank.subjects if (rest + " ").startswith(s.stem + " ")]
    assert stems, name
    return max(stems, key=lambda c: len(c[0]))[1]


def test_desired_items_follow_from_the_roles_needs():
    for s in silver():
        for a in s.agents:
            needs = _role_of(s.sector, a.role).needs
            for name in a.post_interaction_knowledge.desired_knowledge:
                assert _topic_of(s.sector, name) in needs, (s.id, a.role, name)
            for name in a.pre_interaction_knowledge:  # and held items from what it holds
                assert _topic_of(s.sector, name) in _role_of(s.sector, a.role).holds, (s.id, name)


def test_every_sector_has_three_four_and_five_agent_scenarios():
    for sector in SECTORS:
        sizes = {len(x.agents) for x in silver() if x.sector == sector}
        assert sizes == {3, 4, 5}, sector


def test_building_twice_gives_the_same_bytes(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    scenarios.dump(build_silver(SILVER_SEED)[0], a)
    scenarios.dump(build_silver(SILVER_SEED)[0], b)
    assert a.read_bytes() == b.read_bytes()


# --- the banks --------------------------------------------------------------------------------


@pytest.mark.parametrize("sector", SECTORS)
def test_bank_sizes_and_unique_names(sector):
    bank = sector_bank(sector)
    assert len(bank.decisions) >= 24 and len(bank.roles) >= 12 and len(bank.units) >= 20
    titles = [t for r in bank.roles for t in r.functions]
    assert len(set(titles)) == len(titles)
    domains = [d for r in bank.roles for d in r.domains]
    assert len(set(domains)) == len(domains)
    stems = [s.stem for s in bank.subjects]
    assert len(set(stems)) == len(stems)
    for cluster in {c for d in bank.decisions for c in d.clusters}:
        assert sum(r.cluster == cluster for r in bank.roles) >= 5


@pytest.mark.parametrize("sector", SECTORS)
def test_roles_hold_and_need_real_topics(sector):
    bank = sector_bank(sector)
    held = {t for r in bank.roles for t in r.holds}
    assert held == set(bank.by_topic)  # every topic is someone's
    for r in bank.roles:
        assert set(r.needs) <= held and not set(r.needs) & set(r.holds), r.functions
        assert sum(len(bank.by_topic[t]) for t in r.holds) > 6, r.functions  # room for 6 facts
        assert any(s.sensitive for t in r.holds for s in bank.by_topic[t]), r.functions
        assert any(not s.sensitive for t in r.needs for s in bank.by_topic[t]), r.functions


@pytest.mark.parametrize("sector", SECTORS)
def test_bank_texts_carry_no_values(sector):
    bank = sector_bank(sector)
    for d in bank.decisions:
        for option in _options(d.text):
            assert not atoms(option), option
    for r in bank.roles:
        assert all(not atoms(p) and p[0].islower() for p in r.purposes), r.purposes
        for t in r.functions:
            stems = {w[:5] for w in normalise(t).split()}
            assert any(_mentions(d, stems) for d in r.domains), t
    for unit in bank.units:
        assert unit == unit.lower() and not atoms(f"at the {unit}"), unit
    for s in bank.subjects:
        assert s.kind in KINDS, s
        assert s.stem == s.stem.lower() and not atoms(f"the {s.stem}"), s.stem
        assert not atoms(f"about {s.gist}") and s.stem not in s.gist, s


@pytest.mark.parametrize("sector", SECTORS)
def test_goal_themes_are_abstract(sector):
    """Every topic has criteria for the goal line, and none names a subject or holds a value."""
    bank = sector_bank(sector)
    assert set(bank.themes) == set(bank.by_topic)
    for themes in bank.themes.values():
        assert len(themes) >= 3 and len(set(themes)) == len(themes), themes
        for theme in themes:
            assert not atoms(theme), theme
            assert not [s.stem for s in bank.subjects if named_in_goal(s.stem, theme)], theme


@pytest.mark.parametrize("sector", SECTORS)
def test_rendered_items_are_clean(sector):
    """Names are topics without values, hooks paraphrase without naming, values hold a detail."""
    rng = random.Random(sector)
    bank = sector_bank(sector)
    for s in bank.subjects:
        for _ in range(6):
            style = _Style(rng.choice(NAME_STYLES), rng.random() < 0.5)
            name, template, hook = _render(s, rng.choice(bank.units), style, rng)
            assert re.fullmatch(r"[A-Z][A-Za-z' /(),-]+", name) and not atoms(name), name
            assert hook.startswith(_HOOK_START) and not atoms(hook), hook
            assert name.lower() not in hook.lower(), name
            assert not atoms(PLACEHOLDER.sub("", template)), template
            assert not _CUE_BEFORE.search(template), template
            value = ValueDraw(rng).value(template)
            assert value and "{" not in value and _strong(value), template


def test_every_frame_is_used_by_its_kind():
    for kind in KINDS.values():
        assert len(kind.values) >= 8 and len(kind.hooks) >= 5
        assert all("{X}" in f for f in kind.values)
        assert all("{P}" in h for h in kind.hooks)


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
