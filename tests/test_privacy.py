"""Privacy properties: no agent ever sees another agent's DMs, brief or evaluation targets.

Every scenario is rewritten with canary strings in each agent's facts, objective, policy and
post-interaction targets; random action sequences (well-formed and garbage) are played, and each
agent's observation text and infos are searched for canaries it must never see.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenarios
import sotopia_tom_env

TINY = scenarios.load("tiny")


def canaried(s: scenarios.Scenario) -> scenarios.Scenario:
    d = s.model_dump()
    for i, a in enumerate(d["agents"]):
        for k, item in enumerate(a["pre_interaction_knowledge"].values()):
            item["value"] = f"{item['value']} BRIEF{i}X{k}"
        a["goals"]["primary_objective"] += f" OBJ{i}X"
        post = a["post_interaction_knowledge"]
        post["desired_knowledge"] = [f"POST{i}D{j}" for j in range(2)]
        post["cannot_know_knowledge"] = [f"POST{i}C{j}" for j in range(2)]
    return scenarios.Scenario.model_validate(d)


CANARIED = [canaried(s) for s in TINY]

action = st.one_of(
    st.tuples(st.just("speak"), st.lists(st.integers(0, 4), max_size=3)),
    st.just(("none", [])),
    st.just(("leave", [])),
    st.text(max_size=40).map(lambda t: ("raw", t)),
)


def own_canaries(i: int) -> set[str]:
    return {f"OBJ{i}X", *(f"BRIEF{i}X{k}" for k in range(10))}


def forbidden_for(viewer: int, n: int) -> list[str]:
    out = [f"POST{i}{kind}{j}" for i in range(n) for kind in "DC" for j in range(2)]
    for other in range(n):
        if other != viewer:
            out += sorted(own_canaries(other))
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=st.sampled_from(CANARIED),
    order=st.sampled_from(["round-robin", "simultaneous"]),
    plan=st.lists(action, min_size=1, max_size=25),
)
def test_dm_canaries_briefs_and_targets_never_leak(scenario, order, plan):
    env = sotopia_tom_env.parallel_env(scenarios=[scenario], turn_order=order, max_turns=40)
    obs, infos = env.reset(seed=0)
    n = len(env.agents)
    dm_audience: dict[str, set[str]] = {}
    check(obs, infos, n, dm_audience)
    for step, (kind, payload) in enumerate(plan):
        if not env.agents:
            break
        actions = {}
        for a in env.acting_agents():
            if kind == "raw":
                actions[a] = payload
            elif kind == "speak":
                to = sorted({f"agent_{i}" for i in payload if i < n} - {a})
                canary = f"DMCANARY{step}{a}"
                if to:
                    dm_audience[canary] = {a, *to}
                actions[a] = {"action_type": "speak", "argument": f"msg {canary}", "to": to}
            else:
                actions[a] = {"action_type": kind, "argument": "", "to": []}
        obs, _, _, _, infos = env.step(actions)
        check(obs, infos, n, dm_audience)


def check(obs, infos, n, dm_audience):
    for agent, o in obs.items():
        i = int(agent.split("_")[1])
        seen = o["text"] + json.dumps(infos[agent], default=str)
        for canary in forbidden_for(i, n):
            assert canary not in seen, f"{agent} saw {canary}"
        for canary, audience in dm_audience.items():
            if agent not in audience:
                assert canary not in seen, f"{agent} saw DM {canary}"


def test_own_brief_is_visible_to_its_owner():
    env = sotopia_tom_env.parallel_env(scenarios=[CANARIED[0]])
    obs, _ = env.reset()
    for agent, o in obs.items():
        i = int(agent.split("_")[1])
        assert f"OBJ{i}X" in o["text"] and f"BRIEF{i}X0" in o["text"]
