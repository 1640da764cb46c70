"""The env's contract under hostile scenarios, turns and arguments (each test pins one bug)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import scenarios
import sotopia_tom_env
from scenarios import InvalidScenario
from sotopia_tom_app.bench.runner import BenchConfig, select_scenarios
from sotopia_tom_app.cli import app
from sotopia_tom_env import AgentAction
from sotopia_tom_env.arguments import ResetNeeded
from sotopia_tom_env.routing import Roster

SPEAK = AgentAction.speak
NONE = AgentAction.none()
LEAVE = AgentAction.leave()


def edited(s: scenarios.Scenario, roles: dict[int, str] | None = None, n: int | None = None):
    """``s`` with some roles renamed and/or its agents cycled to ``n`` agents."""
    d = s.model_dump()
    if n is not None:
        d["agents"] = [dict(d["agents"][i % len(d["agents"])]) for i in range(n)]
        for i, a in enumerate(d["agents"]):
            a["agent_id"] = i + 1
            a["role"] = f"{a['role']} {chr(65 + i)}" if i >= len(s.agents) else a["role"]
        d["scenario_id"] = f"{s.id}-as-{n}"
    for i, role in (roles or {}).items():
        d["agents"][i]["role"] = role
    return scenarios.Scenario.model_validate(d)


# -- role names that differ only in case, spacing or punctuation -------------------------------


def test_validator_reports_a_normalised_role_collision_naming_both_roles(tiny3):
    s = edited(tiny3, {1: "Chief-Nursing  Officer"})
    (f,) = [f for f in scenarios.check(s) if f.rule == "unique_roles"]
    assert f.severity == "error" and f.path == "agents[1].role"
    assert "'Chief-Nursing  Officer'" in f.message and "'Chief Nursing Officer'" in f.message
    assert "agents[0].role" in f.message


def test_cli_validate_reports_the_collision(tiny3, tmp_path):
    path = tmp_path / "twins.json"
    scenarios.dump([edited(tiny3, {1: "Chief-Nursing  Officer"})], path)
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1 and "unique_roles at agents[1].role" in result.stdout


@pytest.mark.parametrize(
    "twin", ["chief nursing officer", "ＣＨＩＥＦ Nursing Officer", "Chief_Nursing.Officer"]
)
def test_roster_refuses_roles_that_normalise_alike(twin):
    with pytest.raises(ValueError, match=r"agents\[1\]\.role"):
        Roster(["Chief Nursing Officer", twin, "IT Security Lead"])


def test_roster_resolves_by_normalised_name_and_id():
    r = Roster(["Chief Nursing Officer", "Finance Director", "IT Security Lead"])
    for name in ["chief-nursing  OFFICER", " Ｃｈｉｅｆ Nursing Officer ", "agent_0", "AGENT 0"]:
        assert r.resolve(name, "agent_2") == "agent_0", name


@pytest.mark.parametrize(
    ("role", "rule"),
    [
        ("", "role_empty"),
        ("   ", "role_empty"),
        ("--", "role_empty"),
        ("Finance\nDirector", "role_characters"),
        ("Finance\x00Director", "role_characters"),
        ("Finance\u200bDirector", "role_characters"),
        ("Agent 2", "role_shadows_id"),
        ("agent_0", "role_shadows_id"),
        ("Chief Nursing Officer", "unique_roles"),
    ],
)
def test_unusable_roles_stop_the_env_with_scenario_and_path(tiny3, role, rule):
    s = edited(tiny3, {1: role})
    assert rule in {f.rule for f in scenarios.check(s) if f.severity == "error"}
    with pytest.raises(InvalidScenario, match=rf"tiny-3-agents: {rule} at agents\[1\]\.role"):
        sotopia_tom_env.parallel_env(scenarios=[s])


# -- invalid scenarios never run ---------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 6, 9])
def test_agent_count_outside_three_to_five_is_refused_everywhere(tiny, tmp_path, n):
    s = edited(tiny[2], n=n) if n else edited(tiny[0], n=0)
    with pytest.raises(
        InvalidScenario, match=rf"agent_count at agents: {n} agents; expected 3 to 5"
    ):
        sotopia_tom_env.parallel_env(scenarios=[s])
    env = sotopia_tom_env.parallel_env(scenarios="tiny")
    with pytest.raises(InvalidScenario, match="agent_count"):
        env.reset(options={"scenario": s})
    path = tmp_path / "bad.json"
    scenarios.dump([tiny[0], s], path)
    with pytest.raises(InvalidScenario, match=rf"(?s)in {path}.*scenario {s.id}: agent_count"):
        sotopia_tom_env.parallel_env(scenarios=str(path))
    config = BenchConfig(scenarios=str(path), policies=["silent"])
    with pytest.raises(InvalidScenario, match=f"sotopia-tom validate {path}"):
        select_scenarios(config)
    ok = BenchConfig(scenarios=str(path), policies=["silent"], scenario_ids=[tiny[0].id])
    assert [x.id for x in select_scenarios(ok)] == [tiny[0].id]  # only what runs must be valid


def test_duplicate_ids_and_review_errors_stop_a_bench(tiny, tmp_path):
    path = tmp_path / "dup.json"
    scenarios.dump([tiny[0], tiny[0]], path)
    with pytest.raises(InvalidScenario, match="duplicate_scenario_id"):
        sotopia_tom_env.parallel_env(scenarios=str(path))
    d = tiny[0].model_dump()
    d["agents"][0]["post_interaction_knowledge"]["desired_knowledge"] = ["Nurse union grievance"]
    with pytest.raises(InvalidScenario, match="desired_item_exists"):
        sotopia_tom_env.parallel_env(scenarios=[scenarios.Scenario.model_validate(d)])


def test_warnings_do_not_stop_and_validation_is_cached(tiny):
    d = tiny[0].model_dump()
    d["scenario_goal"] = ""
    s = scenarios.Scenario.model_validate(d)
    assert [f.rule for f in scenarios.check(s)] == ["missing_text"]
    env = sotopia_tom_env.parallel_env(scenarios=[s])
    env.reset(options={"scenario": s})
    s.agents[1].role = "Chief Nursing Officer"  # edited in place after the first check
    with pytest.raises(InvalidScenario, match="unique_roles"):
        env.reset(options={"scenario": s})


# -- stale turns in simultaneous mode ----------------------------------------------------------


@pytest.mark.parametrize("talker", ["agent_0", "agent_4", None])
def test_simultaneous_stale_count_does_not_depend_on_agent_order(talker):
    env = sotopia_tom_env.parallel_env(
        scenarios="tiny", turn_order="simultaneous", max_stale_turns=2, reward_fn=None
    )
    env.reset(options={"scenario": "tiny-5-agents"})
    steps, terms, truncs = 0, {}, {}
    while env.agents:
        acts = {a: SPEAK(f"s{steps}") if a == talker else NONE for a in env.acting_agents()}
        _, _, terms, truncs, _ = env.step(acts)
        steps += 1
    if talker is None:  # all-silent steps count once each: more than 2 in a row ends it
        assert steps == 3 and all(terms.values())
    else:
        assert steps == 60 and all(truncs.values())


def test_round_robin_stale_count_is_unchanged():
    env = sotopia_tom_env.parallel_env(scenarios="tiny", max_stale_turns=2, reward_fn=None)
    env.reset(options={"scenario": "tiny-3-agents"})
    for _ in range(2):
        env.step({a: NONE for a in env.acting_agents()})
    env.step({a: SPEAK("back") for a in env.acting_agents()})  # a message resets the count
    for _ in range(2):
        assert env.agents
        env.step({a: NONE for a in env.acting_agents()})
    _, _, terms, _, _ = env.step({a: NONE for a in env.acting_agents()})
    assert all(terms.values()) and env.transcript.steps == 6


# -- departed agents ---------------------------------------------------------------------------


def test_departed_agents_are_not_addressable_and_masked_out():
    env = sotopia_tom_env.parallel_env(scenarios="tiny", reward_fn=None, max_stale_turns=20)
    obs, _ = env.reset(options={"scenario": "tiny-4-agents"})
    assert obs["agent_0"]["action_mask"][3 + 1] == 1
    obs, *_ = env.step({"agent_0": LEAVE})
    assert obs["agent_1"]["action_mask"].tolist()[3:7] == [0, 0, 1, 1]
    for to in (["Plant Manager"], ["agent_0"], ["Supply Chain Lead", "plant manager"]):
        obs, _, _, _, infos = env.step({"agent_1": SPEAK("secret 42", to=to)})
        assert "Plant Manager (agent_0) has left" in infos["agent_1"]["action_error"]
        assert all("secret 42" not in m.text for m in env.transcript.messages)
        assert obs["agent_2"]["action_mask"].tolist()[3:7] == [0, 1, 0, 1]
        env.step({a: NONE for a in env.acting_agents()})
        env.step({a: NONE for a in env.acting_agents()})
    _, _, _, _, infos = env.step({"agent_1": SPEAK("hi all")})  # public still reaches everyone
    assert "action_error" not in infos["agent_1"] and infos["agent_0"]["new_messages"]


# -- programmer errors raise, naming the argument ----------------------------------------------


@pytest.fixture
def env3():
    e = sotopia_tom_env.parallel_env(scenarios="tiny", reward_fn=None)
    e.reset(options={"scenario": "tiny-3-agents"})
    return e


@pytest.mark.parametrize(
    ("actions", "error", "words"),
    [
        (None, TypeError, ["step(actions)", "NoneType", "None"]),
        ("agent_0", TypeError, ["step(actions)", "str", "'agent_0'"]),
        ({0: NONE}, TypeError, ["step(actions)", "[0]"]),
        ({"agent_0": NONE, "zz": NONE}, ValueError, ["step(actions)", "'zz'"]),
        ({"agent_9": NONE}, ValueError, ["step(actions)", "'agent_9'"]),
        ("x" * 5000, TypeError, ["step(actions)", "xxx"]),
    ],
)
def test_bad_step_arguments_raise_naming_the_argument(env3, actions, error, words):
    with pytest.raises(error) as e:
        env3.step(actions)
    assert all(w in str(e.value) for w in words), str(e.value)
    assert len(str(e.value)) < 400  # the value is shown shortened


@pytest.mark.parametrize(
    ("options", "error", "words"),
    [
        (["tiny-3-agents"], TypeError, ["reset(options)", "list"]),
        ({"scenario": 3.5}, TypeError, ["options['scenario']", "3.5"]),
        ({"scenario": 3}, ValueError, ["unknown scenario '3'"]),
    ],
)
def test_bad_reset_options_raise_naming_the_argument(env3, options, error, words):
    with pytest.raises(error) as e:
        env3.reset(options=options)
    assert all(w in str(e.value) for w in words), str(e.value)


@pytest.mark.parametrize(
    ("reward_fn", "error"), [("llm", ValueError), (42, TypeError), (lambda c: [0.0], TypeError)]
)
def test_bad_reward_fn_is_refused_by_the_constructor(reward_fn, error):
    with pytest.raises(error, match=r"reward_fn=.*None, 'rule' or a Rewarder"):
        sotopia_tom_env.parallel_env(reward_fn=reward_fn)
    with pytest.raises(error, match="reward_fn"):
        sotopia_tom_env.env(reward_fn=reward_fn)


def test_step_before_reset_and_after_the_end(env3):
    fresh = sotopia_tom_env.parallel_env(scenarios="tiny")
    with pytest.raises(ResetNeeded, match="before reset"):
        fresh.step({})
    env3.step({"agent_0": LEAVE})
    env3.step({"agent_1": LEAVE})
    with pytest.raises(ValueError, match="after the episode ended"):
        env3.step({})


@pytest.mark.parametrize(
    "garbage",
    [None, 3.5, b"\xff\xfe", [1, 2], {"action_type": 7}, {"to": {"a": 1}}, "{", "null", object()],
)
def test_malformed_actions_of_valid_agents_never_raise(env3, garbage):
    _, _, _, _, infos = env3.step({"agent_0": garbage})
    assert garbage is None or infos["agent_0"]["action_error"]
    assert env3.transcript.messages == []


class Exploding:
    """A reward function that fails at the end (or at every step)."""

    def __init__(self, always: bool = False) -> None:
        self.always = always

    def reset(self, scenario, transcript) -> None:
        pass

    def step(self, new_messages, action_errors, done):
        if done or self.always:
            raise RuntimeError("judge endpoint unreachable")
        return {}, {}


@pytest.mark.parametrize("always", [False, True])
def test_a_failing_reward_function_still_ends_the_episode(always):
    env = sotopia_tom_env.parallel_env(scenarios="tiny", reward_fn=Exploding(always), max_turns=3)
    env.reset(options={"scenario": "tiny-3-agents"})
    for i in range(3):
        _, rewards, _, truncs, infos = env.step({a: SPEAK(f"m{i}") for a in env.acting_agents()})
        assert (i < 2 and not always) or all(infos[a]["judge_failed"] for a in infos)
    assert all(truncs.values()) and env.agents == [] and set(rewards.values()) == {0.0}
    assert "RuntimeError: judge endpoint unreachable" in infos["agent_0"]["judge_error"]
    json.dumps(infos)
