"""Prompted strategies against a fake LLM: what each prompt holds, call counts, state, fallbacks."""

from __future__ import annotations

import asyncio
import json

import pytest
from test_privacy import canaried

import scenarios
import sotopia_tom_env
from policies import STRATEGIES, PromptedPolicy
from policies.state import MEMORY_CAP, RISK_CAP, BeliefState, SelfFocusedState, capped
from sotopia_tom_env import AgentAction
from sotopia_tom_env.llm import FakeChatClient, LLMError

SCENARIO = canaried(scenarios.load("tiny")[0])  # agent_0 = Chief Nursing Officer


def progress():
    return {
        "items_shared": [],
        "items_not_yet_shared": ["a"],
        "items_acquired": [],
        "items_still_needed": ["b"],
        "objective_progress": "In progress",
    }


def belief_state(memory=0, risks=0):
    return BeliefState.model_validate(
        {
            "beliefs": [
                {
                    "agent_name": r,
                    "knows": ["x"],
                    "does_not_know": [],
                    "wants": ["y"],
                    "thinks_about_me": [],
                }
                for r in ("Finance Director", "IT Security Lead", "Nobody Real")
            ],
            "sharing_progress": progress(),
            "memory": [{"turn": i, "event": f"e{i}"} for i in range(memory)],
            "privacy_risks": [{"turn": i, "description": f"r{i}"} for i in range(risks)],
        }
    )


def plan_state():
    return SelfFocusedState.model_validate(
        {
            "planning": {
                "next_actions": ["ask"],
                "blockers": [],
                "conversation_strategy": "be direct",
            },
            "sharing_progress": progress(),
            "memory": [],
            "privacy_risks": [],
        }
    )


def is_action(fmt):
    return getattr(fmt, "__name__", None) == "AgentAction"  # the per-agent reply schema


def reply(messages, fmt):
    if is_action(fmt):
        return AgentAction.speak("OWNMSG from the nurse", to=["IT Security Lead"]).model_dump_json()
    if fmt is BeliefState:
        return belief_state().model_dump_json()
    if fmt is SelfFocusedState:
        return plan_state().model_dump_json()
    return "INTENTIONS: they want budget clarity.\nRECOMMENDATION: ask privately."


class Scripted:
    """Other agents: public hellos, and DMs between the two of them carrying canaries."""

    name = "scripted"

    def __init__(self, agent):
        self.agent, self.n = agent, 0

    def reset(self, obs, info):
        pass

    async def act(self, obs, info):
        self.n += 1
        if self.n % 2:
            other = "IT Security Lead" if self.agent == "agent_1" else "Finance Director"
            return AgentAction.speak(f"DMCANARY-{self.agent}-{self.n} secret", to=[other])
        return AgentAction.speak(f"public hello {self.agent} {self.n}")


def play(strategy, client, steps=9):
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO], max_turns=steps)
    obs, infos = env.reset()
    me = PromptedPolicy("agent_0", client, strategy)
    pols = {"agent_0": me, "agent_1": Scripted("agent_1"), "agent_2": Scripted("agent_2")}
    for a, p in pols.items():
        p.reset(obs[a], infos[a])
    per_turn = []
    while env.agents:
        (a,) = env.acting_agents()
        before = len(client.requests)
        action = asyncio.run(pols[a].act(obs[a], infos[a]))
        if a == "agent_0":
            per_turn.append(len(client.requests) - before)
        obs, _, _, _, infos = env.step({a: action})
    return env, me, per_turn


FORBIDDEN = [f"POST{i}{k}{j}" for i in range(3) for k in "DC" for j in range(2)]
FORBIDDEN += [f"{p}{i}X{k}" for i in (1, 2) for p in ("BRIEF",) for k in range(4)] + [
    "OBJ1X",
    "OBJ2X",
]
FORBIDDEN += [f"DMCANARY-agent_{i}-{n}" for i in (1, 2) for n in (1, 3, 5)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_prompts_hold_only_the_agents_own_view(strategy):
    client = FakeChatClient(reply)
    env, me, _ = play(strategy, client)
    assert client.requests
    texts = [r["messages"][0]["content"] for r in client.requests]
    for text in texts:
        for canary in FORBIDDEN:
            assert canary not in text, (strategy, canary)
    action_prompts = [
        t for t, r in zip(texts, client.requests, strict=True) if is_action(r["response_format"])
    ]
    assert all("OBJ0X" in t and "BRIEF0X2" in t for t in action_prompts)  # its own brief
    assert any("public hello agent_1" in t for t in action_prompts)  # what it saw
    assert any("OWNMSG" in m.text for m in env.transcript.messages)
    assert me.stats["first_try_ok"] == me.stats["turns"]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("basic", [1, 1, 1]),
        ("cot", [1, 1, 1]),
        ("tom", [1, 1, 1]),
        ("tom_coach", [1, 2, 2]),  # no coach before any message is visible
        (
            "tom_belief",
            [2, 2, 2],
        ),  # init (+ update: nothing visible yet) + action; then update + action
        ("self_focused", [2, 2, 2]),
    ],
)
def test_calls_per_acting_turn(strategy, expected):
    _, _, per_turn = play(strategy, FakeChatClient(reply))
    assert per_turn == expected


def test_belief_first_turn_with_visible_messages_makes_three_calls():
    client = FakeChatClient(reply)
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO])
    obs, infos = env.reset()
    me = PromptedPolicy("agent_1", client, "tom_belief")
    me.reset(obs["agent_1"], infos["agent_1"])
    obs, *_ = env.step({"agent_0": AgentAction.speak("hello all")})
    asyncio.run(me.act(obs["agent_1"], {"step": 1}))
    kinds = [r["response_format"].__name__ for r in client.requests]
    assert kinds == ["BeliefState", "BeliefState", "AgentAction"]  # init, update, action
    assert "hello all" in client.requests[1]["messages"][0]["content"]


def test_state_bounds_and_only_real_participants():
    def full(messages, fmt):
        if fmt is BeliefState:
            return belief_state(memory=MEMORY_CAP, risks=RISK_CAP).model_dump_json()
        return reply(messages, fmt)

    _, me, _ = play("tom_belief", FakeChatClient(full))
    assert len(me.state.memory) == MEMORY_CAP and len(me.state.privacy_risks) == RISK_CAP
    assert {b.agent_name for b in me.state.beliefs} == {"Finance Director", "IT Security Lead"}
    schema = BeliefState.model_json_schema()
    assert (
        schema["properties"]["memory"]["maxItems"] == MEMORY_CAP
    )  # bounded for constrained decoding

    def oversize(messages, fmt):
        if fmt is BeliefState and "Update the record" in messages[0]["content"]:
            data = json.loads(belief_state().model_dump_json())
            data["memory"] = [{"turn": i, "event": "x"} for i in range(MEMORY_CAP + 5)]
            return json.dumps(data)
        return reply(messages, fmt)

    _, me, _ = play("tom_belief", FakeChatClient(oversize))
    assert me.state.memory == [] and me.stats["state_update_failures"] == 2  # rejected, kept


def test_failed_state_update_keeps_the_previous_state():
    calls = {"state": 0}

    def flaky(messages, fmt):
        if fmt is BeliefState:
            calls["state"] += 1
            if calls["state"] > 1:
                return (
                    LLMError("timeout", model="m", endpoint="fake")
                    if calls["state"] % 2
                    else "{not json"
                )
        return reply(messages, fmt)

    _, me, _ = play("tom_belief", FakeChatClient(flaky))
    initial = capped(belief_state(), ["Finance Director", "IT Security Lead"])
    assert me.state == initial  # the initial state survived every failed update
    assert me.stats["state_update_failures"] == 2
    assert me.stats["first_try_ok"] == 3


def test_rejected_recipient_gets_one_retry_with_the_error_shown():
    replies = iter(
        [
            AgentAction.speak("hi", to=["Finance Directr"]).model_dump_json(),
            AgentAction.speak("hi", to=["Finance Director"]).model_dump_json(),
        ]
    )
    client = FakeChatClient(lambda m, f: next(replies))
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO])
    obs, infos = env.reset()
    me = PromptedPolicy("agent_0", client, "basic")
    me.reset(obs["agent_0"], infos["agent_0"])
    action = asyncio.run(me.act(obs["agent_0"], infos["agent_0"]))
    assert json.loads(action)["to"] == ["Finance Director"]
    retry_prompt = client.requests[1]["messages"][0]["content"]
    assert "did you mean 'Finance Director'" in retry_prompt
    assert me.stats["retry_ok"] == 1


@pytest.mark.parametrize(
    "bad",
    [["not json", "still not json"], [LLMError("http", model="m", endpoint="x", status_code=500)]],
)
def test_second_failure_or_llm_error_means_silence(bad):
    client = FakeChatClient(list(bad))
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO])
    obs, infos = env.reset()
    me = PromptedPolicy("agent_0", client, "cot")
    me.reset(obs["agent_0"], infos["agent_0"])
    assert asyncio.run(me.act(obs["agent_0"], infos["agent_0"])) == AgentAction.none()
    assert me.stats["fallback_none"] == 1


def test_failed_coach_call_means_no_note():
    def coachless(messages, fmt):
        return LLMError("timeout", model="m", endpoint="x") if fmt is None else reply(messages, fmt)

    client = FakeChatClient(coachless)
    _, me, _ = play("tom_coach", client)
    action_prompts = [
        r["messages"][0]["content"] for r in client.requests if is_action(r["response_format"])
    ]
    assert all("Coach's note" not in p for p in action_prompts)
    assert me.stats["first_try_ok"] == 3 and me.stats["llm_errors"] == 2


def test_unknown_strategy_is_rejected():
    with pytest.raises(ValueError, match="unknown strategy"):
        PromptedPolicy("agent_0", FakeChatClient([]), "telepathy")
