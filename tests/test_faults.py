"""Failure injection: the real OpenAI client, players, LLM judge, generator and bench against a
server that times out, rate-limits, errors, truncates, babbles, resets and dies.

Every test asserts that the run finishes, that failures are recorded as failures (never as a
crash, a silent ``none`` or a zero score), that retries and time stay within their bounds
(requests counted on the server), and that no credential of the endpoint URL leaks.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fault_server import FAULTS, FaultServer

from policies import PromptedPolicy, Setup, make_policy, play_episode
from rewards import LLMJudge, RuleJudge, score
from scenarios.generate.llm import ScenarioPipeline
from sotopia_tom_app.bench.records import EPISODES_FILE, read_records
from sotopia_tom_app.bench.runner import BenchConfig, run_bench
from sotopia_tom_env import SotopiaToMEnv
from sotopia_tom_env.llm import LLMError, OpenAIChatClient
from sotopia_tom_env.llm.client import redact

pytest.importorskip("openai", reason="the fault tests drive the real OpenAI client ([llm] extra)")
pytest.importorskip("tenacity", reason="the fault tests drive the real OpenAI client ([llm] extra)")

TIMEOUT_S = 0.3  # client deadline per attempt where the server hangs (for HANG_S)
# Time a busy machine may add to a run's deadlines: a vLLM server starting on the other test
# worker has stalled a 2-core machine for about 30 s.
SLACK_S = 40.0
HANG_S = 90.0  # past every bound below, so a client that waits out even one hang fails them
HANGING = {"timeout", "slow"}
# The deadline for faults answered at once: one a busy machine cannot reach, so every attempt
# reaches the server and the request counts below are exact.
PROMPT_S = 120.0
RETRIES = 1
FAILING = [f for f in FAULTS if f not in ("ok", "kill")]
# Faults the client retries (a broken transfer or an overloaded server), and the error kind
# each one ends in when it never clears.
RETRIED = {"timeout", "slow", "429", "500", "truncated", "reset"}
KIND = {"timeout": "timeout", "slow": "timeout", "429": "http", "500": "http",
        "truncated": "invalid_response", "empty_choices": "invalid_response",
        "reset": "connection"}  # fmt: skip
SPEAK = {"action_type": "speak", "argument": "Hello all, where do we stand?", "to": []}


def speak_reply(body: dict[str, Any]) -> str | None:
    """Healthy replies: a public message for action calls, minimal instances otherwise."""
    fmt = body.get("response_format") or {}
    if fmt.get("json_schema", {}).get("name") == "AgentAction":
        return json.dumps(SPEAK)
    return None


TALLY: Counter[str] = Counter()  # requests answered, by fault, over the whole module


@pytest.fixture(scope="module", autouse=True)
def figures():
    """Write the module's fault tally to ``$SOTOPIA_FAULT_FIGURES`` (for docs/reliability.md)."""
    yield
    path = os.environ.get("SOTOPIA_FAULT_FIGURES")
    if path:
        Path(path).write_text(json.dumps({"requests": sum(TALLY.values()), **TALLY}, indent=1))


@pytest.fixture
def server():
    with FaultServer(hang_s=HANG_S, reply=speak_reply, lifetime_s=4 * HANG_S) as fs:
        yield fs
    TALLY.update(fs.counts())


def client_for(
    url: str, retries: int = RETRIES, hangs: bool = False, **kw: Any
) -> OpenAIChatClient:
    """A client with a short deadline where the server ``hangs``, else one a busy machine
    cannot reach."""
    return OpenAIChatClient("fault-model", url, timeout_s=TIMEOUT_S if hangs else PROMPT_S,
                            max_retries=retries, backoff_s=0.01, **kw)  # fmt: skip


def attempts(fault: str) -> int:
    return RETRIES + 1 if fault in RETRIED else 1


def assert_sent(server: FaultServer, fault: str, sent: int) -> None:
    """The server saw every request sent (retries bounded). Where it hangs, an attempt can
    reach its 0.3 s deadline on a busy machine before its request arrives: at most ``sent``.
    Elsewhere every request arrives, however long a busy machine takes to log it."""
    seen = server.request_count(sent, timeout_s=5.0 if fault in HANGING else SLACK_S)
    assert 1 <= seen <= sent if fault in HANGING else seen == sent


# ------------------------------------------------------------------------------------ client


@pytest.mark.parametrize("fault", [*FAILING, "ok"])
def test_client_ends_every_fault_within_its_bounds(server, fault):
    server.set_script([], default=fault)
    client = client_for(server.url, hangs=fault in HANGING)
    start = time.perf_counter()
    try:
        result = asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
    except LLMError as e:
        assert fault in KIND, f"{fault} should have succeeded: {e}"
        assert e.kind == KIND[fault] and e.attempts == attempts(fault)
        assert client.stats.failures == 1 and client.stats.retries == attempts(fault) - 1
    else:
        assert fault in ("ok", "invalid_json")  # a babbling model is the caller's problem
        assert result.text and client.stats.calls == 1
    elapsed = time.perf_counter() - start
    assert_sent(server, fault, attempts(fault))
    assert elapsed < attempts(fault) * TIMEOUT_S + SLACK_S  # no hang outlives the deadlines
    if fault == "429":
        assert elapsed >= 0.2  # the server's retry-after-ms, not the 0.01 s backoff


def test_transient_faults_are_retried_until_a_reply_comes(server):
    server.set_script(["500", "429", "reset", "truncated", "timeout", "slow"])
    # Retries to spare: on a busy machine an attempt can miss the 0.3 s deadline while its
    # request is still on the way, and the next one then meets the same fault again.
    client = client_for(server.url, retries=12, hangs=True)
    result = asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
    assert result.text == "OK."
    assert server.request_count(7) >= 7 and server.requests[-1]["fault"] == "ok"
    assert client.stats.as_dict()["retries"] >= 6 and client.stats.failures == 0


def test_streaming_replies_and_model_listing(server):
    import openai

    sdk = openai.OpenAI(base_url=server.url, api_key="EMPTY", max_retries=0, timeout=5)
    assert [m.id for m in sdk.models.list()] == ["fault-model"]
    server.set_script(["slow"])
    stream = sdk.chat.completions.create(
        model="fault-model", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    assert "".join(c.choices[0].delta.content or "" for c in stream) == "OK."


def test_killed_server_refuses_then_restarts_on_the_same_port(server):
    client = client_for(server.url)
    server.set_script(["kill"])
    with pytest.raises(LLMError) as info:
        asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
    assert info.value.kind == "connection" and not server.running
    port = server.port
    server.restart()
    assert server.port == port
    assert asyncio.run(client.chat([{"role": "user", "content": "hi"}])).text == "OK."


# ----------------------------------------------------------------------------------- players


def play(client: Any, strategy: str, scenario: Any, max_turns: int = 3) -> tuple[Any, dict]:
    env = SotopiaToMEnv(scenarios=[scenario], max_turns=max_turns, reward_fn=None)
    players: dict[str, PromptedPolicy] = {}

    def factory(agent: str, s: Any) -> PromptedPolicy:
        return players.setdefault(agent, PromptedPolicy(agent, client, strategy))

    return asyncio.run(play_episode(env, factory, seed=0)), players


@pytest.mark.parametrize("strategy", ["basic", "tom_belief"])
@pytest.mark.parametrize("fault", FAILING)
def test_players_finish_the_episode_under_every_fault(server, tiny3, strategy, fault):
    server.set_script([], default=fault)
    start = time.perf_counter()
    result, players = play(client_for(server.url, hangs=fault in HANGING), strategy, tiny3)
    wall = time.perf_counter() - start
    stats = sum((p.stats for p in players.values()), Counter())
    assert result.transcript.steps == 3 and result.policy_errors == []  # finished, no crash
    assert [t["action_type"] for t in result.turn_log] == ["none"] * 3
    sent = stats["calls"] * attempts(fault)
    assert_sent(server, fault, sent)  # bounded retries
    assert wall < stats["calls"] * attempts(fault) * TIMEOUT_S + SLACK_S  # bounded time
    if fault == "invalid_json":  # the model's fault: rejected, retried once, then silence
        assert stats["llm_errors"] == 0 and stats["invalid_replies"] == 6
    else:  # the endpoint's fault: recorded as an LLM failure, with its kind
        assert stats["llm_errors"] == stats["calls"] > 0
        errors = [e for p in players.values() for e in p.errors]
        assert len(errors) == stats["calls"] and all(KIND[fault] in e for e in errors)


@pytest.mark.parametrize("strategy", ["basic", "tom_belief"])
def test_players_recover_when_faults_clear(server, tiny3, strategy):
    server.set_script(["500", "reset", "truncated", "429", "empty_choices", "invalid_json"] * 2)
    result, players = play(client_for(server.url, retries=2), strategy, tiny3, max_turns=6)
    said = [m for m in result.transcript.messages if m.text == SPEAK["argument"]]
    assert result.transcript.steps == 6 and said  # healthy replies became messages
    counts = server.counts()
    assert sum(counts[f] for f in ("500", "reset", "truncated", "429")) == 8
    stats = sum((p.stats for p in players.values()), Counter())
    assert len(server.requests) <= stats["calls"] * 3


# ------------------------------------------------------------------------------------- judge


@pytest.fixture(scope="module")
def ideal_episode(tiny):
    env = SotopiaToMEnv(scenarios=[tiny[0]], max_turns=6, reward_fn=None)
    result = asyncio.run(play_episode(env, lambda a, s: make_policy("ideal", Setup(a, s))))
    return tiny[0], result.transcript


def judge_with(url: str, **kw: Any) -> LLMJudge:
    return LLMJudge(client_for(url, **kw), cache=False, max_attempts=2, backoff_s=0.01)


@pytest.mark.parametrize("fault", FAILING)
def test_judge_records_failures_never_zeros(server, ideal_episode, fault):
    scenario, transcript = ideal_episode
    server.set_script([], default=fault)
    judgment = asyncio.run(
        judge_with(server.url, hangs=fault in HANGING).ajudge(scenario, transcript)
    )
    scores = score(judgment, scenario, transcript.rounds)
    assert set(judgment.failures) == {"DA", "IA", "EFF", "CPV"}
    assert scores.CM is None and all(scores.summary()[m] is None for m in ("DA", "IA", "EFF", "CPV"))  # fmt: skip
    reason = "ValidationError" if fault == "invalid_json" else KIND[fault]
    assert all(reason in why for why in judgment.failures.values())
    # 2 judge attempts per metric (the babbling model gets a repair call each), retries inside
    per_metric = 4 if fault == "invalid_json" else 2 * attempts(fault)
    assert_sent(server, fault, 4 * per_metric)


def test_judge_scores_when_the_endpoint_is_healthy_again(server, ideal_episode):
    scenario, transcript = ideal_episode
    server.set_script(["500", "reset", "truncated", "429"])
    judgment = asyncio.run(judge_with(server.url, retries=2).ajudge(scenario, transcript))
    assert judgment.failures == {}
    assert score(judgment, scenario, transcript.rounds).CM is not None


# --------------------------------------------------------------------------------- generator


@pytest.mark.parametrize("fault", ["invalid_json", "500", "timeout", "empty_choices"])
def test_generator_counts_garbage_and_failures_and_finishes(server, fault):
    server.set_script([], default=fault)
    pipeline = ScenarioPipeline(
        client_for(server.url, hangs=fault in HANGING), max_attempts=3, backoff_s=0
    )
    result = asyncio.run(pipeline.run("legal", 3, 1))
    assert result.accepted == [] and result.summary() == {"legal": {"attempts": 3, "gen_errors": 3}}
    assert_sent(server, fault, 3 * attempts(fault))


# ------------------------------------------------------------------------------------- bench


def bench(out: Any, client: Any, judge: Any, policy: str = "basic") -> list[Any]:
    config = BenchConfig(scenarios="tiny", policies=[policy], max_turns=3, model="fault-model")
    return asyncio.run(run_bench(config, out, client=client, judge=judge, concurrency=1))


def test_bench_killed_mid_run_resumes_every_episode_exactly_once(server, tmp_path):
    server.set_script(["ok"] * 4 + ["kill"])  # dies during the second episode
    client = client_for(server.url)
    with pytest.raises(RuntimeError, match="connection"):
        bench(tmp_path, client, RuleJudge())
    saved = list(read_records(tmp_path / EPISODES_FILE))
    assert [r.episode_id for r in saved] == ["basic/tiny-3-agents/0"]

    server.restart()
    records = bench(tmp_path, client, RuleJudge())
    ids = Counter(r.episode_id for r in records)
    assert ids == Counter({f"basic/tiny-{n}-agents/0": 1 for n in (3, 4, 5)})
    assert all(r.llm.get("llm_errors", 0) == 0 and r.scores.CM is not None for r in records)
    assert all(any(m.text == SPEAK["argument"] for m in r.transcript.messages) for r in records)


# --------------------------------------------------------------------------------- redaction

PASSWORD, QUERY_KEY, API_KEY = "pw-Zq81hunter2", "qk-7TcR0secret", "sk-live-9f8e7d6c5b4a"


def secret_url(server: FaultServer) -> str:
    return f"http://alice:{PASSWORD}@127.0.0.1:{server.port}/v1?api_key={QUERY_KEY}"


def leaks(text: str) -> list[str]:
    import base64

    basic = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    return [s for s in (PASSWORD, QUERY_KEY, API_KEY, basic) if s in text]


def test_errors_and_logs_never_show_endpoint_credentials(server, caplog):
    server.set_script([], default="500")  # its body echoes the request URL and auth header
    client = client_for(secret_url(server), api_key=API_KEY)
    with caplog.at_level(logging.DEBUG), pytest.raises(LLMError) as info:
        asyncio.run(client.chat([{"role": "user", "content": "hi"}]))
    error = info.value
    assert f"api_key={QUERY_KEY}" in server.requests[0]["path"]  # the key did reach the server
    shown = "".join(traceback.format_exception(error)) + repr(client) + error.endpoint
    assert "127.0.0.1" in shown and "internal error" in shown and leaks(shown) == []
    assert "HTTP Request" in caplog.text and leaks(caplog.text) == []


def test_saved_records_and_bench_errors_never_show_endpoint_credentials(server, tmp_path):
    server.set_script([], default="500")
    client = client_for(secret_url(server), api_key=API_KEY)
    judge = LLMJudge(client, cache=False, max_attempts=1)
    records = bench(tmp_path / "judged", client, judge, policy="ideal")
    assert all(r.scores.CM is None and len(r.judgment.failures) == 4 for r in records)
    assert leaks((tmp_path / "judged" / EPISODES_FILE).read_text()) == []

    with pytest.raises(RuntimeError) as info:
        bench(tmp_path / "played", client, RuleJudge())
    text = "".join(traceback.format_exception(info.value))
    assert "HTTP 500" in text and leaks(text) == []


def test_redact_keeps_what_helps_and_hides_what_hurts():
    line = (
        "POST https://bob:pa55word@llm.example.com:8443/v1/chat?api-version=2&key=k123&sig=s9 "
        "{'Authorization': 'Bearer sk-abcdef123456', 'x-api-key': 'xyz987'}"
    )
    assert redact(line, ["pa55word"]) == (
        "POST https://***@llm.example.com:8443/v1/chat?api-version=2&key=***&sig=*** "
        "{'Authorization': '***', 'x-api-key': '***'}"
    )
    assert redact("timeout at http://127.0.0.1:8000/v1", ["EMPTY"]) == (
        "timeout at http://127.0.0.1:8000/v1"
    )
