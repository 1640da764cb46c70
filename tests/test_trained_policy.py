import asyncio
import json
from pathlib import Path

import pytest

import scenarios
from policies import Setup, make_policy, play_episode
from policies.trained import BASE_ADAPTER, lora_server_args, parse_trained, zero_adapter
from sotopia_tom_env import parallel_env
from sotopia_tom_env.llm.fake import FakeChatClient


@pytest.fixture
def adapter(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file

    monkeypatch.setenv("SOTOPIA_TOM_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "my adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"r": 12}))
    weights = {"q_proj.lora_A.weight": torch.ones(12, 8), "q_proj.lora_B.weight": torch.ones(8, 12)}
    save_file(weights, str(folder / "adapter_model.safetensors"))
    return folder


def test_names_parse_with_an_optional_strategy():
    assert parse_trained("trained:a/b").strategy == "basic"
    assert parse_trained("trained:a/b+tom_coach").path == "a/b"
    assert parse_trained("ideal") is None
    for bad in ("trained:", "trained:x+telepathy"):
        with pytest.raises(ValueError):
            parse_trained(bad)


def test_the_server_loads_each_adapter_once_at_a_rank_vllm_accepts(adapter):
    a, b = parse_trained(f"trained:{adapter}"), parse_trained(f"trained:{adapter}+cot")
    args = lora_server_args([a, b])
    assert args[:5] == ["--enable-lora", "--max-lora-rank", "16", "--max-loras", "2"]
    assert args[-2] == f"{a.served_name}={adapter.resolve()}" and " " not in a.served_name
    assert args[-1].startswith(f"{BASE_ADAPTER}=")


def test_the_base_model_is_served_through_a_zero_adapter_of_the_same_shape(adapter):
    from safetensors.torch import load_file

    zero = zero_adapter(adapter)
    assert zero_adapter(adapter) == zero  # built once, then reused
    assert (zero / "adapter_config.json").read_text() == (
        adapter / "adapter_config.json"
    ).read_text()
    original, zeros = (load_file(str(f / "adapter_model.safetensors")) for f in (adapter, zero))
    assert {k: v.shape for k, v in zeros.items()} == {k: v.shape for k, v in original.items()}
    assert all(not v.any() for v in zeros.values())


def test_a_trained_player_asks_the_server_for_its_adapter(adapter):
    s = scenarios.load("tiny")[0]
    client = FakeChatClient(
        lambda messages, fmt: '{"action_type": "none", "argument": "", "to": []}'
    )
    name = f"trained:{adapter}+cot"
    env = parallel_env(scenarios=[s], max_turns=3)
    asyncio.run(
        play_episode(env, lambda a, sc: make_policy(name, Setup(a, sc, client=client)), scenario=s)
    )
    served = parse_trained(name).served_name
    assert client.requests and all(r["model"] == served for r in client.requests)
    assert "silently" in client.requests[0]["messages"][0]["content"]  # the cot strategy's prompt
    assert client.model == "fake-model"  # the base client is untouched


def test_saving_llm_calls_can_be_turned_off_for_every_llm_player(adapter):
    s = scenarios.load("tiny")[0]
    client = FakeChatClient(["{}"])
    for name in ("basic", f"trained:{adapter}"):
        assert make_policy(name, Setup("agent_0", s, client=client)).record_calls
        assert not make_policy(
            name, Setup("agent_0", s, client=client, record_calls=False)
        ).record_calls


def test_bench_records_the_save_calls_choice(tmp_path):
    from typer.testing import CliRunner

    from sotopia_tom_env.cli import app

    out = tmp_path / "b"
    args = [
        "bench",
        "--scenarios",
        "tiny",
        "--policies",
        "ideal",
        "--max-turns",
        "3",
        "--out",
        str(out),
    ]
    assert CliRunner().invoke(app, [*args, "--no-save-calls"]).exit_code == 0
    assert json.loads((out / "config.json").read_text())["save_calls"] is False


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_prompted_player_batched_with_a_trained_one_still_gets_the_base_model():
    """vLLM's CPU LoRA kernels once gave base-model tokens the last adapter's weights."""
    from sotopia_tom_env.actions import action_model
    from sotopia_tom_env.cli import _client
    from training.data import ideal_turns

    shipped = Path(__file__).parent.parent / "training" / "adapters" / "cpu-small"
    spec = parse_trained(f"trained:{shipped}")
    schema = action_model(None)
    prompts = [ideal_turns(s)[0][0].prompt for s in scenarios.load("gold")[::50][:3]]

    async def replies(client, n_base, n_adapter):
        ask = lambda c, p: c.chat(  # noqa: E731
            [{"role": "user", "content": p}], response_format=schema, temperature=0.0, max_tokens=16
        )
        adapter = client.with_model(spec.served_name)
        out = await asyncio.gather(*(ask(client, p) for p in prompts[:n_base]),
                                   *(ask(adapter, p) for p in prompts[:n_adapter]))  # fmt: skip
        return [r.text for r in out]

    with _client(True, None, None, [spec], concurrency=8) as client:
        alone = asyncio.run(replies(client, 3, 0))
        trained = asyncio.run(replies(client, 0, 3))
        mixed = asyncio.run(replies(client, 3, 3))[:3]
    assert all(a != t for a, t in zip(alone, trained, strict=True)), (
        "the adapter must matter for this check"
    )
    assert all(m != t for m, t in zip(mixed, trained, strict=True)), (mixed, trained)
    assert sum(m == a for m, a in zip(mixed, alone, strict=True)) >= 2, (mixed, alone)
