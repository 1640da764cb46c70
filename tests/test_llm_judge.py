"""The LLM judge against fake clients: structured requests, retries, repair, cache, failures.

The last test (slow) runs it against the real local vLLM server with a bounded token budget.
"""

from __future__ import annotations

import asyncio
import json

import pytest

import scenarios
from policies import IdealPlayer, play_episode
from rewards import LLMJudge, RuleJudge, score
from rewards.judges.cache import DiskCache
from rewards.judges.llm import output_bounds
from rewards.verdicts import VERDICT_MODELS, bounded_model
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
    formats = {r["response_format"].__name__: r["response_format"] for r in client.requests}
    assert set(formats) == {m.__name__ for m in VERDICT_MODELS.values()}
    # the schema sent is a bounded copy fitted to the scenario, not the uncapped verdict model
    assert not set(formats.values()) & set(VERDICT_MODELS.values())
    da = formats["DAVerdict"].model_json_schema()
    assert da["properties"]["agents"]["maxItems"] == len(s.agents) == 3
    assert all(r["temperature"] == 0.0 and r["max_tokens"] == 4096 for r in client.requests)
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


def test_a_stale_cache_entry_is_asked_again_and_overwritten(episode, rule_verdicts, tmp_path):
    s, t = episode
    cache = DiskCache(tmp_path)
    LLMJudge(good_client(rule_verdicts), cache=cache).judge(s, t)
    entries = sorted(tmp_path.rglob("*.json"))
    assert len(entries) == 4
    entries[0].write_text('{"verdicts_of_an_older_schema": []}', encoding="utf-8")
    again = good_client(rule_verdicts)
    j = LLMJudge(again, cache=cache).judge(s, t)
    assert not j.failures and len(again.requests) == 1
    assert '"verdicts_of_an_older_schema"' not in entries[0].read_text(encoding="utf-8")


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


def long_named(scenario: scenarios.Scenario, old: str, extra: int = 180) -> scenarios.Scenario:
    """``scenario`` with item ``old`` renamed to a name of more than ``extra`` characters."""
    new = old + " (" + "long qualifier " * (extra // 15) + ")"
    text = scenario.model_dump_json().replace(json.dumps(old), json.dumps(new))
    return scenarios.Scenario.model_validate_json(text)


@pytest.fixture(scope="module")
def long_episode():
    s = long_named(scenarios.load("tiny")[0], "Pilot patient outcomes")
    env = SotopiaToMEnv(scenarios=[s])
    result = asyncio.run(play_episode(env, lambda a, sc: IdealPlayer(a, sc), scenario=s))
    return s, result.transcript


def test_long_item_names_are_judged_and_only_the_llm_schema_is_capped(long_episode):
    s, t = long_episode
    longest = max(len(x) for x in s.agents[0].goals.sharing_policy.what_to_share)
    assert longest > 180
    rule = RuleJudge().judge(s, t)  # the rule judge fills the uncapped models with the full name
    names = [i.item_name for i in rule.da.agents[0].items_should_share]
    assert max(map(len, names)) == longest
    asserted: list[bool] = []

    def echo(messages, fmt):
        # the bounded schema fits the scenario's longest name; an over-long reasoning (which a
        # backend ignoring maxLength might produce) still parses: caps steer, never reject
        metric = metric_of(messages)
        if metric == "DISCLOSURE":
            item = fmt.model_json_schema()["$defs"]["DAItemAssessment"]["properties"]
            asserted.append(item["item_name"]["maxLength"] == longest)
        verdict = {"DISCLOSURE": rule.da, "INQUIRY": rule.ia, "EFFICIENCY": rule.eff}
        reply = verdict.get(metric, rule.cpv).model_dump()
        for a in reply.get("agents", []):
            for items in a.values():
                for i in items if isinstance(items, list) else []:
                    i["reasoning"] = "x" * 1000
        return json.dumps(reply)

    j = LLMJudge(FakeChatClient(echo), cache=False, max_attempts=1).judge(s, t)
    assert not j.failures and asserted == [True]
    assert [i.item_name for i in j.da.agents[0].items_should_share] == names
    sc = score(j, s, t.rounds)
    assert sc.summary() == score(rule, s, t.rounds).summary() and sc.CM is not None


def test_output_bounds_fit_the_scenario_and_transcript(long_episode):
    s, t = long_episode
    b = output_bounds(s, t, reasoning_chars=40)
    per_agent = [
        len(x)
        for a in s.agents
        for x in (
            a.goals.sharing_policy.what_to_share,
            a.goals.sharing_policy.what_not_to_share,
            a.post_interaction_knowledge.desired_knowledge,
            a.post_interaction_knowledge.cannot_know_knowledge,
        )
    ]
    assert (b.agents, b.items, b.max_round, b.reasoning_chars) == (3, max(per_agent), t.rounds, 40)
    short = output_bounds(scenarios.load("tiny")[0], t)
    assert short.name_chars == 64  # a floor: role and item names are all shorter in tiny
    schema = bounded_model(VERDICT_MODELS["EFF"], b).model_json_schema()
    assert schema["properties"]["total_rounds"]["maximum"] == t.rounds


@pytest.mark.parametrize("max_concurrency", [1, 2, 3])
def test_judge_can_be_called_from_many_event_loops(episode, rule_verdicts, max_concurrency):
    s, t = episode
    state = {"now": 0, "peak": 0}

    async def contended(messages, fmt):
        # the calls overlap, so they wait on the semaphore: that binds it to the running loop
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.002)
        state["now"] -= 1
        return rule_verdicts[metric_of(messages)].model_dump_json()

    client = FakeChatClient(contended)
    judge = LLMJudge(client, cache=False, max_concurrency=max_concurrency, max_attempts=1)
    judgments = [judge.judge(s, t) for _ in range(3)]
    judgments += [asyncio.run(judge.ajudge(s, t)) for _ in range(2)]
    assert [j.failures for j in judgments] == [{}] * 5
    assert len(client.requests) == 5 * 4 and state["peak"] == max_concurrency


def test_max_tokens_and_reasoning_cap_reach_the_request(episode, rule_verdicts):
    s, t = episode
    client = good_client(rule_verdicts)
    LLMJudge(client, cache=False, max_tokens=321, reasoning_chars=17).judge(s, t)
    assert {r["max_tokens"] for r in client.requests} == {321}
    da = next(
        r["response_format"] for r in client.requests if metric_of(r["messages"]) == "DISCLOSURE"
    )
    item = da.model_json_schema()["$defs"]["DAItemAssessment"]["properties"]
    assert item["reasoning"]["maxLength"] == 17
    with pytest.raises(ValueError, match="max_tokens must be at least 1, got 0"):
        LLMJudge(client, max_tokens=0)


@pytest.mark.slow
@pytest.mark.vllm
@pytest.mark.timeout(600)  # covers starting the shared server when this test is the first to use it
def test_real_server_verdicts_parse_within_a_bounded_budget(vllm_server, episode, tmp_path):
    """The embedded model fills all four verdicts under a bounded budget.

    Complete verdicts of this episode take 6-850 tokens per metric (SmolLM2's tokenizer, short
    reasoning, indented JSON), hence 1,024. On CPU the server's numerics move with how requests
    are batched, and now and then a verdict runs past its budget and is cut: the judge's second
    attempt is what it does then. Worst case: 4 metrics x 2 attempts x (call + repair) x 1,024
    tokens, each call cut at 180 s with no client retry; about a minute when idle.
    """
    s, t = episode
    client = vllm_server.client(max_concurrency=4, timeout_s=180, max_retries=0)
    judge = LLMJudge(client, cache=DiskCache(tmp_path), max_tokens=1024, reasoning_chars=16,
                     max_attempts=2)  # fmt: skip
    judgment = asyncio.run(judge.ajudge(s, t))
    assert not judgment.failures, judgment.failures  # every verdict parsed (quality may be poor)
    assert client.stats.completion_tokens <= 4 * 2 * 2 * 1024
    assert score(judgment, s, t.rounds).CM is not None
