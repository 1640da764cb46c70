"""Token budgets: fitted per call purpose to a small served model, explicit ones win, a reply
cut by its budget is handled like any truncated reply and counted, and runs record them."""

from __future__ import annotations

import asyncio
import json
from contextlib import contextmanager

import pytest
from test_prompted import SCENARIO, Scripted, belief_state, is_action, is_state, reply
from typer.testing import CliRunner

import sotopia_tom_env
from policies import STRATEGIES, PromptedPolicy, Setup, make_policy
from policies.budgets import CEILING_TOKENS, Budgets, fitted, parse_choice
from policies.prompted import with_budget
from policies.prompts import SHORT_MESSAGE_CHARS
from policies.state import BeliefState, capped
from sotopia_tom_app.cli import app
from sotopia_tom_env import AgentAction
from sotopia_tom_env.llm import FakeChatClient, OpenAIChatClient, VLLMServer

EMBEDDED = 8192  # the context the embedded SmolLM2-135M is served with
FITTED = fitted(2000, EMBEDDED)  # the env's 2000-character message cap
OTHERS = ["Finance Director", "IT Security Lead"]
PURPOSES = {"basic": {"action"}, "cot": {"action"}, "tom": {"action"},
            "tom_coach": {"action", "coach"},
            "tom_belief": {"action", "state_init", "state_update"},
            "self_focused": {"action", "state_init", "state_update"}}  # fmt: skip


def served(replies) -> FakeChatClient:
    """A fake serving the embedded model's context, cutting replies at their budget as vLLM does."""
    return FakeChatClient(replies, context_tokens=EMBEDDED, truncate=True)


def purpose(request: dict) -> str:
    """What a recorded request was for, from its reply schema and its prompt."""
    fmt, prompt = request["response_format"], request["messages"][0]["content"]
    if fmt is None:
        return "coach"
    if is_action(fmt):
        return "action"
    return "state_update" if "Update the record" in prompt else "state_init"


def play(me: PromptedPolicy, steps: int = 9) -> PromptedPolicy:
    """``me`` plays agent_0 of the canaried tiny scenario against scripted partners."""
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO], max_turns=steps)
    obs, infos = env.reset()
    players = {"agent_0": me, "agent_1": Scripted("agent_1"), "agent_2": Scripted("agent_2")}
    for agent, p in players.items():
        p.reset(obs[agent], infos[agent])
    while env.agents:
        (agent,) = env.acting_agents()
        action = asyncio.run(players[agent].act(obs[agent], infos[agent]))
        obs, _, _, _, infos = env.step({agent: action})
    return me


# -- which budget each call gets -------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_call_purpose_gets_its_budget_on_the_embedded_model(strategy):
    client = served(reply)
    me = play(PromptedPolicy("agent_0", client, strategy))
    sent = {(purpose(r), r["max_tokens"]) for r in client.requests}
    assert sent == {(p, getattr(FITTED, p)) for p in PURPOSES[strategy]}
    assert me.budgets == FITTED
    assert Budgets(715, 225, 384, 744) == FITTED  # the table docs/players.md shows


def test_budgets_follow_the_message_cap_and_the_context():
    assert fitted(400, EMBEDDED).action < fitted(2000, EMBEDDED).action
    small = FakeChatClient(reply, context_tokens=1024)
    play(PromptedPolicy("agent_0", small, "tom_coach"))
    assert {r["max_tokens"] for r in small.requests} == {1024 // 8}  # an eighth of the context


@pytest.mark.parametrize("context", [None, 32768])
def test_a_large_or_unknown_context_keeps_the_papers_unbounded_calls(context):
    client = FakeChatClient(reply, context_tokens=context)
    play(PromptedPolicy("agent_0", client, "tom_belief"))
    assert {r["max_tokens"] for r in client.requests} == {None}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_budgets_change_no_prompt(strategy):
    budgeted, paper = served(reply), FakeChatClient(reply)
    play(PromptedPolicy("agent_0", budgeted, strategy))
    play(PromptedPolicy("agent_0", paper, strategy))

    def asked(client: FakeChatClient) -> list:
        return [(r["messages"], r["response_format"]) for r in client.requests]

    assert asked(budgeted) == asked(paper)
    assert {r["max_tokens"] for r in paper.requests} == {None}


def test_an_explicit_budget_or_option_wins():
    client = served(reply)
    play(PromptedPolicy("agent_0", client, "tom_coach", max_tokens=64, aux_max_tokens=32))
    assert {(purpose(r), r["max_tokens"]) for r in client.requests} == {
        ("action", 64),
        ("coach", 32),
    }
    unbounded = served(reply)  # the paper's, when asked
    play(PromptedPolicy("agent_0", unbounded, "tom_belief", max_tokens=None, aux_max_tokens=None))
    assert {r["max_tokens"] for r in unbounded.requests} == {None}
    setup = Setup("agent_0", SCENARIO, client=served(reply))
    assert play(with_budget(make_policy("tom_belief", setup), 100)).budgets == Budgets(*[100] * 4)
    hosted = FakeChatClient(reply)  # options budget a model of unknown context too
    short = play(PromptedPolicy("agent_0", hosted, "tom_coach", options=["short_messages"]))
    assert short.budgets == fitted(SHORT_MESSAGE_CHARS)
    ceiling = play(PromptedPolicy("agent_0", hosted, "basic", options=["reply_ceiling"]))
    assert ceiling.budgets == Budgets(*[CEILING_TOKENS] * 4)


@pytest.mark.parametrize(
    ("text", "choice"), [("auto", "auto"), ("none", None), ("NONE", None), (" 256 ", 256)]
)
def test_max_tokens_choices_parse(text, choice):
    assert parse_choice(text) == choice


@pytest.mark.parametrize("text", ["0", "-5", "lots", ""])
def test_bad_max_tokens_choices_say_what_is_accepted(text):
    with pytest.raises(ValueError, match=r"'auto'.*'none'.*positive number"):
        parse_choice(text)


# -- replies cut by their budget -------------------------------------------------------------------


def runaway(messages, fmt):
    """The 135M model's habit: every reply runs on until something stops it."""
    if is_action(fmt):
        return json.dumps({"action_type": "speak", "argument": "budget " * 3000, "to": []})
    if fmt is None:
        return "RECOMMENDATION: share more. " * 1000
    data = json.loads(reply(messages, fmt))
    data["memory"] = [{"turn": i, "event": "a long event " * 5} for i in range(400)]
    return json.dumps(data)


def test_an_action_cut_by_its_budget_falls_back_with_the_reason_recorded():
    client = served(runaway)
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[SCENARIO])
    obs, infos = env.reset()
    me = PromptedPolicy("agent_0", client, "basic")
    me.reset(obs["agent_0"], infos["agent_0"])
    assert asyncio.run(me.act(obs["agent_0"], infos["agent_0"])) == AgentAction.none()
    calls = me.take_calls()
    assert [(c["finish_reason"], c["completion_tokens"]) for c in calls] == [
        ("length", FITTED.action)
    ] * 2  # the first try and its retry, neither above its budget
    why = f"cut off at its {FITTED.action}-token budget"
    assert len(me.rejected) == 2 and all(why in r for r in me.rejected)
    assert why in client.requests[1]["messages"][0]["content"]  # the retry is told why
    assert (me.stats["budget_cuts"], me.stats["fallback_none"]) == (2, 1)


def test_a_state_update_cut_by_its_budget_keeps_the_last_good_state():
    def long_updates(messages, fmt):
        update = is_state(fmt, BeliefState) and "Update the record" in messages[0]["content"]
        return runaway(messages, fmt) if update else reply(messages, fmt)

    client = served(long_updates)
    me = play(PromptedPolicy("agent_0", client, "tom_belief"))
    assert me.state == capped(belief_state(), OTHERS)  # the initial record, never replaced
    assert me.stats["budget_cuts"] == me.stats["state_update_failures"] == 2
    updates = [r["max_tokens"] for r in client.requests if purpose(r) == "state_update"]
    assert updates == [FITTED.state_update] * 2


def test_a_coach_note_cut_by_its_budget_is_used_as_far_as_it_goes():
    def long_notes(messages, fmt):
        return runaway(messages, fmt) if fmt is None else reply(messages, fmt)

    client = served(long_notes)
    me = play(PromptedPolicy("agent_0", client, "tom_coach"))
    last = [r for r in client.requests if is_action(r["response_format"])][-1]
    assert "Coach's note" in last["messages"][0]["content"]
    assert "RECOMMENDATION: share more." in last["messages"][0]["content"]
    assert me.stats["budget_cuts"] == 2 and me.stats["first_try_ok"] == 3


# -- the command line: defaults, --max-tokens, what a run records ---------------------------------


@pytest.fixture
def small_model(monkeypatch):
    """Every LLM player in the CLI talks to a fake that serves the embedded model's context."""
    fake = served(runaway)

    @contextmanager
    def fake_client(model, base_url=None, **kwargs):
        yield fake

    monkeypatch.setattr("sotopia_tom_env.serving.chat_client", fake_client)
    return fake


def bench(out, *extra):
    args = ["bench", "--policies", "basic", "--scenarios", "tiny", "--scenario-ids", SCENARIO.id,
            "--max-turns", "3", "--out", str(out), *extra]  # fmt: skip
    return CliRunner().invoke(app, args)


def test_bench_records_the_budgets_and_the_report_counts_cut_replies(tmp_path, small_model):
    out = tmp_path / "run"
    result = bench(out)
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert (config["max_tokens"], config["budgets"]) == ("auto", FITTED.as_dict())
    assert {r["max_tokens"] for r in small_model.requests} == {FITTED.action}
    (row,) = json.loads((out / "summary.json").read_text())["interaction"].values()
    assert row["budget_cuts"] == len(small_model.requests) == 6  # 3 turns, each tried twice
    assert "| cut by budget |" in (out / "report.md").read_text()
    assert "calls=6" in result.stderr and "tokens=" in result.stderr  # the live progress


@pytest.mark.parametrize(("flag", "budget"), [("64", 64), ("none", None)])
def test_an_explicit_max_tokens_wins_and_is_recorded(tmp_path, small_model, flag, budget):
    out = tmp_path / "run"
    assert bench(out, "--max-tokens", flag).exit_code == 0
    config = json.loads((out / "config.json").read_text())
    assert config["max_tokens"] == budget
    assert config["budgets"] == dict.fromkeys(FITTED.as_dict(), budget)
    assert {r["max_tokens"] for r in small_model.requests} == {budget}


def test_a_bad_max_tokens_is_refused_before_anything_starts(tmp_path, small_model):
    for command in (["bench", "--policies", "basic"], ["run", "--policy", "basic"]):
        result = CliRunner().invoke(
            app, [*command, "--max-tokens", "0", "--out", str(tmp_path / command[0])]
        )
        assert result.exit_code == 2 and "--max-tokens" in result.output, result.output
    assert not list(tmp_path.iterdir()) and small_model.requests == []


def test_a_run_saved_before_budgets_is_not_resumed_with_them(tmp_path, small_model):
    out = tmp_path / "old"
    assert bench(out).exit_code == 0
    saved = json.loads((out / "config.json").read_text())
    del saved["max_tokens"], saved["budgets"]  # as written before budgets existed
    (out / "config.json").write_text(json.dumps(saved))
    again = bench(out)
    assert again.exit_code == 2 and "max_tokens: None -> 'auto'" in again.output
    same = bench(out, "--max-tokens", "none")  # its players sent no budget
    assert same.exit_code == 0 and "1 episodes already in" in same.output


def test_run_shows_its_budgets_and_progress_and_counts_cuts(tmp_path, small_model):
    result = CliRunner().invoke(app, ["run", "--policy", "tom_coach", "--scenario-id", SCENARIO.id,
                                      "--max-turns", "3", "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    shown = ", ".join(f"{k} {v}" for k, v in FITTED.as_dict().items())
    assert shown in result.stderr
    assert f"fitted to the served model's {EMBEDDED}-token context" in result.stderr
    assert "calls=" in result.stderr and "tokens=" in result.stderr
    (line,) = (tmp_path / "episodes.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["llm"]["budget_cuts"] == len(small_model.requests) > 0
    calls = [c for t in record["turn_log"] for c in t.get("calls", [])]
    assert all(c["completion_tokens"] <= c["max_tokens"] for c in calls)


# -- what the client knows of the served model -------------------------------------------------------


def test_a_local_server_tells_its_clients_the_context(monkeypatch):
    models = {"data": [{"id": "other", "max_model_len": 99}, {"id": "m", "max_model_len": 4096}]}
    monkeypatch.setattr("sotopia_tom_env.llm.server._get", lambda url: json.dumps(models).encode())
    server = VLLMServer(served_name="m")
    assert server._serves_model() and server.context_tokens == 4096
    assert server.client().context_tokens == 4096
    assert OpenAIChatClient("m", "http://example/v1").context_tokens is None  # unknown


def test_a_views_calls_count_in_its_client_too():
    fake = FakeChatClient(["a b", "c"])
    view = fake.with_model("adapter")
    asyncio.run(view.chat([{"role": "user", "content": "hi"}]))
    asyncio.run(fake.chat([{"role": "user", "content": "hi"}]))
    assert (view.stats.calls, fake.stats.calls, fake.stats.completion_tokens) == (1, 2, 3)
    assert "parent" not in fake.stats.as_dict()
    opened = OpenAIChatClient("m", "http://example/v1")
    assert opened.with_model("adapter").stats.parent is opened.stats
