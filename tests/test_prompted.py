"""Prompted strategies against a fake LLM: what each prompt holds, call counts, state, fallbacks."""

from __future__ import annotations

import asyncio
import itertools
import json
from contextlib import contextmanager

import pytest
from test_privacy import canaried
from typer.testing import CliRunner

import scenarios
import sotopia_tom_env
from policies import STRATEGIES, PromptedPolicy, Setup, make_policy, play_episode
from policies.budgets import CEILING_TOKENS, fitted
from policies.prompts import PLAYER_OPTIONS, SHORT_MESSAGE_CHARS, check_options
from policies.state import (
    MEMORY_CAP,
    RISK_CAP,
    BeliefState,
    CappedBeliefState,
    CappedSelfFocusedState,
    SelfFocusedState,
    capped,
)
from sotopia_tom_app.cli import app
from sotopia_tom_env import AgentAction
from sotopia_tom_env.brief import STATUS_HEADING
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


def is_state(fmt, family):
    """The paper's state model or its capped_beliefs variant (a subclass)."""
    return isinstance(fmt, type) and issubclass(fmt, family)


def reply(messages, fmt):
    if is_action(fmt):
        return AgentAction.speak("OWNMSG from the nurse", to=["IT Security Lead"]).model_dump_json()
    if is_state(fmt, BeliefState):
        return belief_state().model_dump_json()
    if is_state(fmt, SelfFocusedState):
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


def play(strategy, client, steps=9, options=()):
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO], max_turns=steps)
    obs, infos = env.reset()
    me = PromptedPolicy("agent_0", client, strategy, options=options)
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
    assert "It is step 2." in client.requests[1]["messages"][0]["content"]
    assert "hello all" in client.requests[1]["messages"][0]["content"]


def oversize(messages, fmt):
    """Updates that run past every cap: 15 memory entries, 9 risks, 6 notes per belief list."""
    if is_state(fmt, BeliefState) and "Update the record" in messages[0]["content"]:
        data = json.loads(belief_state().model_dump_json())
        data["memory"] = [{"turn": i, "event": f"e{i}"} for i in range(MEMORY_CAP + 5)]
        data["privacy_risks"] = [{"turn": i, "description": "r"} for i in range(RISK_CAP + 4)]
        data["beliefs"][0]["knows"] = [f"fact {i}" for i in range(6)]
        return json.dumps(data)
    return reply(messages, fmt)


def test_paper_state_keeps_long_lists_and_the_newest_memory():
    _, me, _ = play("tom_belief", FakeChatClient(oversize))
    assert [m.event for m in me.state.memory] == [f"e{i}" for i in range(5, MEMORY_CAP + 5)]
    assert len(me.state.privacy_risks) == RISK_CAP
    assert len(me.state.beliefs[0].knows) == 6  # no cap on belief lists
    assert "Nobody Real" in {b.agent_name for b in me.state.beliefs}  # kept, as the paper does
    schema = json.dumps(BeliefState.model_json_schema())
    assert "maxItems" not in schema and "maxLength" not in schema
    assert me.stats["state_update_failures"] == 0


def test_capped_beliefs_bounds_the_schema_and_drops_strangers():
    client = FakeChatClient(oversize)
    _, me, _ = play("tom_belief", client, options=["capped_beliefs"])
    assert {r["response_format"] for r in client.requests} >= {CappedBeliefState}
    assert {b.agent_name for b in me.state.beliefs} == {"Finance Director", "IT Security Lead"}
    # the bounded schema refuses the oversize updates, so the initial state is kept
    assert me.state.memory == [] and me.stats["state_update_failures"] == 2
    props = CappedBeliefState.model_json_schema()["$defs"]["CappedAgentBelief"]["properties"]
    assert props["knows"]["maxItems"] == 2
    assert CappedBeliefState.model_json_schema()["properties"]["memory"]["maxItems"] == MEMORY_CAP


def test_capped_self_focused_schema_allows_the_next_actions_its_prompt_asks_for():
    client = FakeChatClient(reply)
    play("self_focused", client, options=["capped_beliefs"])
    init = client.requests[0]
    assert init["response_format"] is CappedSelfFocusedState
    assert "2-3 next_actions" in init["messages"][0]["content"]
    defs = CappedSelfFocusedState.model_json_schema()["$defs"]
    assert defs["CappedPlanningState"]["properties"]["next_actions"]["maxItems"] == 3


@pytest.mark.parametrize("strategy", ["tom_belief", "self_focused"])
def test_state_updates_are_told_the_step(strategy):
    client = FakeChatClient(reply)
    play(strategy, client)
    updates = [
        r["messages"][0]["content"]
        for r in client.requests
        if "Update the record" in r["messages"][0]["content"]
    ]
    # agent_0 acts on steps 1, 4 and 7 of the round-robin; updates happen on 4 and 7
    assert ["It is step 4." in updates[0], "It is step 7." in updates[1]] == [True, True]
    assert all("the current step as its turn" in u for u in updates)
    assert all("{" not in u.split("## Current record")[0] for u in updates)


@pytest.mark.parametrize("strategy", ["tom_belief", "self_focused"])
def test_every_seat_starts_its_record_together_and_logs_it_with_its_first_turn(strategy):
    """play_episode awaits each seat's begin() at once: in a round-robin episode the record
    inits reach the server together (batched), not one per seat's first turn."""
    client = FakeChatClient(reply)
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO], max_turns=6)
    seats = len(SCENARIO.agents)
    result = asyncio.run(play_episode(env, lambda a, s: PromptedPolicy(a, client, strategy)))
    kinds = ["action" if is_action(r["response_format"]) else "state" for r in client.requests]
    assert kinds[:seats] == ["state"] * seats and kinds[seats] == "action"
    first = {}
    for turn in result.turn_log:
        first.setdefault(turn["agent"], turn)
    assert len(first) == seats
    for turn in first.values():  # the viewer shows the init with the seat's first turn
        purposes = [c["purpose"] for c in turn["calls"]]
        assert purposes[0] == "state_init" and purposes[-1] == "action"
    later = [t for t in result.turn_log if t not in first.values()]
    assert all("state_init" not in [c["purpose"] for c in t.get("calls", [])] for t in later)


def _cached_part(prompt: str) -> str:
    """What of an action prompt a prefix cache can reuse next turn: all before the status line."""
    return prompt.split("\n\n" + STATUS_HEADING)[0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_aux_last_makes_each_prompt_extend_the_players_previous_one(strategy):
    """With ``aux_last`` (and always for the strategies without a note or state) a player's next action prompt starts
    with everything of its previous one up to the status line, and state updates share
    everything up to the step; this is what lets a server's prefix cache reuse them."""
    calls = iter(range(1000))

    def changing(messages, fmt):  # a new note or state every call, as a real model writes
        text = reply(messages, fmt)
        if is_action(fmt):
            return text
        n = next(calls)
        if not text.startswith("{"):
            return f"{text} ({n})"
        return json.dumps({**json.loads(text), "memory": [{"turn": n, "event": f"event {n}"}]})

    for options, extends in (((), strategy in ("basic", "cot", "tom")), (("aux_last",), True)):
        client = FakeChatClient(changing)
        play(strategy, client, steps=12, options=options)
        prompts = [r["messages"][0]["content"] for r in client.requests]
        actions = [
            r["messages"][0]["content"] for r in client.requests if is_action(r["response_format"])
        ]
        assert len(actions) == 4
        pairs = list(itertools.pairwise(actions[1:]))  # the first holds "(nothing yet)"
        assert all(b.startswith(_cached_part(a)) for a, b in pairs) == extends, (strategy, options)
        updates = [p.split("## Current step")[0] for p in prompts if "Update the record" in p]
        assert len(set(updates)) <= 1


def test_aux_last_moves_the_note_after_the_conversation():
    _, paper, _ = first_turn("tom_coach")
    _, last, _ = first_turn("tom_coach", options=["aux_last"])
    note = "--- Coach's note"
    first, second = (a[-1]["messages"][0]["content"] for a in (paper, last))
    assert first.index(note) < first.index(STATUS_HEADING)
    assert second.index(STATUS_HEADING) < second.index(note) < second.index("Reply with one JSON")


def test_failed_state_update_keeps_the_previous_state():
    calls = {"state": 0}

    def flaky(messages, fmt):
        if is_state(fmt, BeliefState):
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


@pytest.mark.parametrize("strategy", ["tom_belief", "self_focused"])
def test_a_failed_init_is_not_retried_and_the_seat_plays_without_a_record(strategy):
    """The paper initialises the record once; retrying a 135M model's runaway every turn cost
    a demo run a third of its state calls."""

    def broken_init(messages, fmt):
        if not is_action(fmt):
            return "{not json"
        return reply(messages, fmt)

    client = FakeChatClient(broken_init)
    _, me, per_turn = play(strategy, client)
    assert me.state is None and me.stats["invalid_state"] == 1
    assert per_turn == [2, 1, 1]  # the one init and the action, then the action alone
    assert all("## Your Progress" not in r["messages"][0]["content"] for r in client.requests)


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


# -- paper-faithful by default, our refinements only when asked for -----------------------------

OTHERS = ["Finance Director", "IT Security Lead"]
REQUIRED = {  # what each strategy's guidance must carry (spec §4), in our words
    "basic": ["primary objective", "answer the questions", '"to": []', "leave"],
    "cot": ["PROGRESS", "EXCHANGE", "CHANNEL", "LEAK CHECK", "ACTION", "publicly by default"],
    "tom": [
        "PROGRESS",
        "OTHERS' MINDS",
        "STRATEGIC SHARING",
        "LEAKAGE GUARD",
        "ACTION",
        "efficiently",
    ],
}
for _name in ("tom_coach", "tom_belief", "self_focused"):
    REQUIRED[_name] = REQUIRED["tom"]


def first_turn(strategy, options=()):
    """The requests of one player's turns over a short episode, and the player."""
    client = FakeChatClient(reply)
    _, me, _ = play(strategy, client, options=options)
    actions = [r for r in client.requests if is_action(r["response_format"])]
    return client, actions, me


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_default_action_prompt_has_the_required_parts_and_no_refinement(strategy):
    client, actions, me = first_turn(strategy)
    assert me.options == ()
    prompt = actions[-1]["messages"][0]["content"]
    assert prompt.startswith("You are Chief Nursing Officer.")
    assert "private to you" in prompt and "do not repeat" in prompt and "leave" in prompt
    for part in REQUIRED[strategy]:
        assert part in prompt, (strategy, part)
    assert "OBJ0X" in prompt and "public hello agent_1" in prompt  # brief and visible messages
    assert '"action_type" is "speak", "none" (stay silent) or "leave"' in prompt
    # no refinement: no recipient list, no brevity push, no ask nudge, no budget, free `to`
    assert "Possible recipients" not in prompt
    assert "concise" not in prompt and "400" not in prompt
    assert "ask for what you need" not in prompt
    assert all(r["max_tokens"] is None for r in client.requests)
    schema = actions[-1]["response_format"].model_json_schema()
    assert schema["properties"]["to"]["items"] == {"type": "string"}
    assert schema["properties"]["argument"]["maxLength"] == 2000  # the env's own limit only


def test_free_text_recipients_are_resolved_by_the_env():
    def sloppy(messages, fmt):
        if is_action(fmt):
            return AgentAction.speak("hi", to=["it security lead"]).model_dump_json()
        return reply(messages, fmt)

    env, me, _ = play("basic", FakeChatClient(sloppy), steps=1)
    (msg,) = env.transcript.messages
    assert msg.recipient_roles == ("IT Security Lead",) and me.stats["first_try_ok"] == 1


@pytest.mark.parametrize("option", sorted(PLAYER_OPTIONS))
def test_each_refinement_appears_only_when_enabled(option):
    strategy = "tom_belief" if option == "capped_beliefs" else "basic"
    client, actions, me = first_turn(strategy, options=[option])
    assert me.options == (option,)
    prompt = actions[-1]["messages"][0]["content"]
    schema = actions[-1]["response_format"].model_json_schema()
    enum = "enum" in schema["properties"]["to"]["items"]
    assert enum == (option == "recipient_enum")
    assert ("Possible recipients: Finance Director, IT Security Lead." in prompt) == enum
    short = option == "short_messages"
    assert ("concise (at most 400 characters" in prompt) == short
    assert schema["properties"]["argument"]["maxLength"] == (400 if short else 2000)
    budget = {"short_messages": fitted(SHORT_MESSAGE_CHARS).action, "reply_ceiling": CEILING_TOKENS}
    assert actions[-1]["max_tokens"] == budget.get(option)
    assert ("ask for what you need" in prompt) == (option == "ask_nudge")
    states = {r["response_format"] for r in client.requests} - {actions[-1]["response_format"]}
    assert (states == {CappedBeliefState}) == (option == "capped_beliefs")


@pytest.mark.parametrize("strategy", ["tom_coach", "tom_belief", "self_focused"])
def test_the_reply_ceiling_bounds_every_call_and_a_shorter_budget_wins(strategy):
    client, _, _ = first_turn(strategy, options=["reply_ceiling"])
    assert {r["max_tokens"] for r in client.requests} == {CEILING_TOKENS}
    client, _, _ = first_turn(strategy, options=["reply_ceiling", "short_messages"])
    short = fitted(SHORT_MESSAGE_CHARS).as_dict().values()
    assert {r["max_tokens"] for r in client.requests} <= set(short)


def test_ask_nudge_changes_only_basic():
    _, plain, _ = first_turn("cot")
    _, nudged, _ = first_turn("cot", options=["ask_nudge"])
    assert plain[0]["messages"] == nudged[0]["messages"]


def test_short_messages_also_budgets_the_auxiliary_calls():
    client, _, _ = first_turn("tom_coach", options=["short_messages"])
    coach = {r["max_tokens"] for r in client.requests if r["response_format"] is None}
    assert coach == {fitted(SHORT_MESSAGE_CHARS).coach}
    explicit = PromptedPolicy("agent_0", client, "basic", max_tokens=64, options=["short_messages"])
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO])
    obs, infos = env.reset()
    explicit.reset(obs["agent_0"], infos["agent_0"])
    assert explicit.budgets.action == 64  # an explicit budget wins over the option's


def test_options_are_checked_and_reach_every_llm_player():
    assert check_options(["short_messages", " recipient_enum", "", "short_messages"]) == (
        "recipient_enum",
        "short_messages",
    )
    with pytest.raises(ValueError, match=r"unknown player option.*'telepathy'.*known: "):
        check_options(["telepathy"])
    with pytest.raises(ValueError, match="telepathy"):
        PromptedPolicy("agent_0", FakeChatClient([]), "basic", options=["telepathy"])
    setup = Setup("agent_0", SCENARIO, client=FakeChatClient([]), options=("ask_nudge",))
    assert make_policy("cot", setup).options == ("ask_nudge",)
    assert make_policy("ideal", setup).name == "ideal"  # scripted players ignore them


# -- the CLI: --player-options and --max-stale-turns --------------------------------------------


@pytest.fixture
def fake_llm(monkeypatch):
    """Every LLM player in the CLI talks to one fake client that always stays silent."""
    fake = FakeChatClient(lambda m, f: '{"action_type": "none", "argument": "", "to": []}')

    @contextmanager
    def fake_client(model, base_url=None, **kwargs):
        yield fake

    monkeypatch.setattr("sotopia_tom_env.serving.chat_client", fake_client)
    return fake


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def test_unknown_player_option_is_refused_before_anything_starts(tmp_path, fake_llm):
    for command in (["bench", "--out", str(tmp_path / "b")], ["run", "--out", str(tmp_path / "r")]):
        result = invoke(*command, "--policies" if command[0] == "bench" else "--policy", "basic",
                        "--scenarios", "tiny", "--player-options", "short_messages,telepathy")  # fmt: skip
        assert result.exit_code == 2 and "'telepathy'" in result.output, result.output
    assert not list(tmp_path.iterdir()) and fake_llm.requests == []


def test_bench_records_player_options_and_stale_limit_and_resumes_only_with_them(
    tmp_path, fake_llm
):
    out = tmp_path / "run"
    args = ["bench", "--policies", "basic", "--scenarios", "tiny", "--scenario-ids", SCENARIO.id,
            "--max-turns", "20", "--out", str(out)]  # fmt: skip
    first = invoke(*args, "--player-options", "short_messages,recipient_enum", "--max-stale-turns", "1")  # fmt: skip
    assert first.exit_code == 0, first.output
    config = json.loads((out / "config.json").read_text())
    assert config["player_options"] == ["recipient_enum", "short_messages"]
    assert (config["max_stale_turns"], config["max_turns"]) == (1, 20)
    (record,) = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(record["turn_log"]) == 2  # everyone silent: the 2nd silent step ends it
    assert {r["max_tokens"] for r in fake_llm.requests} == {fitted(SHORT_MESSAGE_CHARS).action}
    header = (out / "report.md").read_text()
    assert "| player options | recipient_enum, short_messages |" in header
    assert "| max stale turns | 1 |" in header
    same = invoke(*args, "--player-options", "recipient_enum,short_messages", "--max-stale-turns", "1")  # fmt: skip
    assert same.exit_code == 0 and "1 episodes already in" in same.output
    other = invoke(*args, "--max-stale-turns", "1")  # the paper's players: another run
    assert other.exit_code == 2 and "player_options: ['recipient_enum', 'short_messages'] -> []" in other.output  # fmt: skip


def test_a_run_saved_before_player_options_is_not_resumed_with_the_paper_players(
    tmp_path, fake_llm
):
    out = tmp_path / "old"
    args = ["bench", "--policies", "basic", "--scenarios", "tiny", "--scenario-ids", SCENARIO.id,
            "--max-turns", "3", "--out", str(out)]  # fmt: skip
    assert invoke(*args).exit_code == 0
    saved = json.loads((out / "config.json").read_text())
    del saved["player_options"], saved["max_stale_turns"]  # as written before they existed
    (out / "config.json").write_text(json.dumps(saved))
    again = invoke(*args)
    assert again.exit_code == 2 and "player_options: None -> []" in again.output
