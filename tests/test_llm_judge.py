"""The LLM judge against fake clients: structured requests, retries, repair, cache, failures."""

from __future__ import annotations

import asyncio
import json

import pytest

import scenarios
from policies import IdealPlayer, play_episode
from rewards import LLMJudge, RuleJudge, score
from rewards.judges.cache import DiskCache
from rewards.verdicts import VERDICT_MODELS
from sotopia_tom_env.env import SotopiaToMEnv
from sotopia_tom_env.llm import FakeChatClient, LLMError


@pytest.fixture(scope="module")
def episode():
    s = scenarios.load("tiny")[0]
    env = SotopiaToMEnv(scenarios=[s])
    result = asyncio.run(play_episode(env, lambda a, sc: IdealPlayer(a, sc), scenario=s))
    return s, result.transcript


def metric_of(messages):
    text = messages[0]["content"]
    return next(
        m for m in ("DISCLOSURE", "INQUIRY", "EFFICIENCY", "PRIVACY") if m in text.split("\n")[0]
    )


@pytest.fixture(scope="module")
def rule_verdicts(episode):
    s, t = episode
    j = RuleJudge().judge(s, t)
    return {"DISCLOSURE": j.da, "INQUIRY": j.ia, "EFFICIENCY": j.eff, "PRIVACY": j.cpv}


def good_client(rule_verdicts, **kw):
    return FakeChatClient(
        lambda messages, fmt: rule_verdicts[metric_of(messages)].model_dump_json(), **kw
    )


def test_one_structured_call_per_metric_and_scores_match(episode, rule_verdicts, tmp_path):
    s, t = episode
    client = good_client(rule_verdicts)
    judge = LLMJudge(client, cache=DiskCache(tmp_path))
    j = judge.judge(s, t)
    assert not j.failures and j.judge == "llm:fake-model"
    assert len(client.requests) == 4
    assert {r["response_format"] for r in client.requests} == set(VERDICT_MODELS.values())
    assert all(r["temperature"] == 0.0 for r in client.requests)
    prompt = client.requests[0]["messages"][0]["content"]
    for part in (
        "## Agent Policies",
        "## Knowledge Ownership",
        "## Transcript",
        "[R0.1]",
        "private to=",
    ):
        assert part in prompt
    assert score(j, s, t.rounds).summary() == score(RuleJudge().judge(s, t), s, t.rounds).summary()


def test_cache_hit_makes_no_call(episode, rule_verdicts, tmp_path):
    s, t = episode
    LLMJudge(good_client(rule_verdicts), cache=DiskCache(tmp_path)).judge(s, t)
    again = good_client(rule_verdicts)
    j = LLMJudge(again, cache=DiskCache(tmp_path)).judge(s, t)
    assert not j.failures and again.requests == []
    other_model = good_client(rule_verdicts, model="other")
    LLMJudge(other_model, cache=DiskCache(tmp_path)).judge(s, t)
    assert len(other_model.requests) == 4  # the key includes the model


def test_timeouts_and_server_errors_are_retried(episode, rule_verdicts):
    s, t = episode
    fails = {"n": 0}

    def flaky(messages, fmt):
        if metric_of(messages) == "PRIVACY" and fails["n"] < 2:
            fails["n"] += 1
            kind = "timeout" if fails["n"] == 1 else "http"
            return LLMError(
                kind, model="m", endpoint="fake", status_code=500 if kind == "http" else None
            )
        return rule_verdicts[metric_of(messages)].model_dump_json()

    j = LLMJudge(FakeChatClient(flaky), cache=False, backoff_s=0.001).judge(s, t)
    assert not j.failures and j.cpv is not None and fails["n"] == 2


def test_garbage_output_goes_through_repair(episode, rule_verdicts):
    s, t = episode
    calls = {"PRIVACY": 0}

    def messy(messages, fmt):
        text = messages[0]["content"]
        if text.startswith("The following answer"):  # the repair call
            return rule_verdicts["PRIVACY"].model_dump_json()
        m = metric_of(messages)
        if m == "PRIVACY":
            calls[m] += 1
            return "Sure! Here is my verdict: violations are none, trust me."
        if m == "DISCLOSURE":  # almost JSON: prose around it and a trailing comma, fixed locally
            return "Result:\n" + rule_verdicts[m].model_dump_json()[:-1] + ",}\nDone."
        return rule_verdicts[m].model_dump_json()

    client = FakeChatClient(messy)
    j = LLMJudge(client, cache=False, backoff_s=0.001).judge(s, t)
    assert not j.failures
    assert j.cpv == rule_verdicts["PRIVACY"] and j.da == rule_verdicts["DISCLOSURE"]
    assert (
        sum(r["messages"][0]["content"].startswith("The following answer") for r in client.requests)
        == 1
    )


def test_persistent_failure_is_recorded_never_scored_zero(episode, rule_verdicts):
    s, t = episode

    def broken(messages, fmt):
        if metric_of(messages) == "EFFICIENCY":
            return LLMError("http", model="m", endpoint="fake", status_code=500)
        return rule_verdicts[metric_of(messages)].model_dump_json()

    j = LLMJudge(FakeChatClient(broken), cache=False, max_attempts=2, backoff_s=0.001).judge(s, t)
    assert set(j.failures) == {"EFF"} and "after 2 attempts" in j.failures["EFF"]
    sc = score(j, s, t.rounds)
    assert sc.EFF is None and sc.CM is None and sc.DA is not None


def test_invalid_json_everywhere_fails_cleanly(episode):
    s, t = episode
    j = LLMJudge(FakeChatClient(lambda m, f: "not json at all"), cache=False, max_attempts=1).judge(
        s, t
    )
    assert set(j.failures) == {"DA", "IA", "EFF", "CPV"}


def test_concurrency_is_bounded(episode, rule_verdicts):
    s, t = episode
    state = {"now": 0, "peak": 0}

    async def slow(messages, fmt):
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return rule_verdicts[metric_of(messages)].model_dump_json()

    judge = LLMJudge(FakeChatClient(slow), cache=False, max_concurrency=2)

    async def many():
        return await asyncio.gather(*(judge.ajudge(s, t) for _ in range(3)))

    results = asyncio.run(many())
    assert all(not r.failures for r in results) and state["peak"] == 2


def test_against_an_openai_client_with_http_500_then_success(episode, rule_verdicts):
    pytest.importorskip("openai")
    import openai._base_client as base

    hx = getattr(base, "httpx2", None) or base.httpx
    s, t = episode
    seen = {"n": 0}

    def handler(request):
        body = json.loads(request.content)
        assert (
            body["response_format"]["type"] == "json_schema"
            and body["response_format"]["json_schema"]["strict"]
        )
        seen["n"] += 1
        if seen["n"] == 1:
            return hx.Response(500, json={"error": {"message": "boom"}})
        content = rule_verdicts[metric_of(body["messages"])].model_dump_json()
        return hx.Response(
            200,
            json={
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )

    from sotopia_tom_env.llm import OpenAIChatClient

    client = OpenAIChatClient(
        "m",
        "http://test.invalid/v1",
        http_client=hx.AsyncClient(transport=hx.MockTransport(handler)),
        backoff_s=0.001,
    )
    j = asyncio.run(LLMJudge(client, cache=False, max_concurrency=1).ajudge(s, t))
    assert not j.failures and seen["n"] == 5
