import asyncio
import json
import shutil
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


def test_an_adapter_finds_its_base_model_on_a_machine_other_than_the_one_it_was_trained_on(
    tmp_path, monkeypatch
):
    import sotopia_tom_env.llm.models as models

    embedded = tmp_path / "here" / models.DEFAULT_MODEL_NAME
    monkeypatch.setattr(models, "default_model_dir", lambda: embedded)
    folder, other = tmp_path / "adapter", tmp_path / "other-base"
    folder.mkdir(), other.mkdir()
    spec = parse_trained(f"trained:{folder}")

    def recorded(base: str) -> str:
        (folder / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": base}))
        return spec.base()

    # The trainer's cache folder of another home: the embedded model as this machine has it.
    assert recorded(f"/home/someone/.cache/sotopia-tom/models/{models.DEFAULT_MODEL_NAME}") == str(
        embedded
    )
    assert recorded(str(other)) == str(other.resolve())  # a folder that exists is kept
    assert recorded("Qwen/Qwen2.5-0.5B-Instruct") == "Qwen/Qwen2.5-0.5B-Instruct"  # a hub id


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

    from sotopia_tom_app.cli import app

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


def test_bench_plays_the_base_model_first_then_each_adapter_alone(adapter, tmp_path):
    from sotopia_tom_app.bench.orchestrate import phases as _phases

    other = tmp_path / "other"
    shutil.copytree(adapter, other)
    names = [f"trained:{adapter}", "basic", f"trained:{other}", f"trained:{adapter}+cot", "ideal"]
    specs = [parse_trained(n) for n in names if n.startswith("trained:")]
    assert _phases(names, None) == [
        ({"basic", "ideal"}, None),
        ({f"trained:{adapter}", f"trained:{adapter}+cot"}, specs[0]),
        ({f"trained:{other}"}, specs[1]),
    ]
    assert _phases(names, "http://host/v1") == [(set(names), None)]  # their server
    # Cross-play mixes weights in one episode: an adapter beside the base model's prompted
    # partners, or two adapters, is served through LoRA; beside scripted partners, merged.
    tested = [f"trained:{adapter}", "ideal", f"trained:{other}"]
    assert _phases(tested, None, "basic") == [
        ({"ideal"}, None),
        ({f"trained:{adapter}"}, (specs[0],)),
        ({f"trained:{other}"}, (specs[1],)),
    ]
    assert _phases(tested, None, "observable")[1] == ({f"trained:{adapter}"}, specs[0])
    mixed = _phases(tested, None, f"trained:{adapter}")
    assert ({"ideal", f"trained:{adapter}"}, specs[0]) in mixed  # beside the adapter: merged
    assert any(w == tuple(sorted(specs[:2], key=lambda s: s.path)) for _, w in mixed)


def test_each_bench_phase_plays_only_its_own_policies_on_its_own_client(
    adapter, tmp_path, monkeypatch
):
    from contextlib import contextmanager

    from typer.testing import CliRunner

    from sotopia_tom_app import cli
    from sotopia_tom_app.bench import orchestrate
    from sotopia_tom_app.bench.records import read_records

    none = '{"action_type": "none", "argument": "", "to": []}'
    opened = []

    @contextmanager
    def fake(name):
        client = FakeChatClient(lambda messages, fmt: none, model="base-model")
        opened.append((name, client))
        yield client

    monkeypatch.setattr(
        orchestrate, "players_client", lambda needed, *a: fake("base" if needed else None)
    )
    monkeypatch.setattr(orchestrate, "merged_client", lambda model, spec, n: fake(spec.path))
    out = tmp_path / "run"
    trained = f"trained:{adapter}"
    args = ["bench", "--scenarios", "tiny", "--limit", "1", "--max-turns", "2", "--out", str(out)]
    result = CliRunner().invoke(app := cli.app, [*args, "--policies", f"basic,{trained},random"])
    assert result.exit_code == 0, result.output
    assert [name for name, _ in opened] == ["base", str(adapter)]
    base, merged = (c for _, c in opened)
    assert {r["model"] for r in base.requests} == {"base-model"}
    assert {r["model"] for r in merged.requests} == {parse_trained(trained).served_name}
    records = {r.policy: r for r in read_records(out / "episodes.jsonl")}
    assert set(records) == {"basic", trained, "random"}
    assert records[trained].model == "base-model"  # one row per policy, whatever served it
    # Resuming with every episode played opens no server at all.
    opened.clear()
    assert CliRunner().invoke(app, [*args, "--policies", f"basic,{trained},random"]).exit_code == 0
    assert opened == []


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_merged_adapter_adds_its_scaled_product_to_the_targeted_weights_only(
    tmp_path, monkeypatch
):
    pytest.importorskip("peft")
    from safetensors.torch import load_file
    from torch.nn.functional import cosine_similarity

    from policies.trained import merged_model
    from sotopia_tom_env.llm.models import resolve_model

    monkeypatch.setenv("SOTOPIA_TOM_CACHE", str(tmp_path / "cache"))
    shipped = Path(__file__).parent.parent / "training" / "adapters" / "cpu-small"
    base = resolve_model(None)
    spec = parse_trained(f"trained:{shipped}")
    merged = merged_model(spec, base)
    assert merged_model(spec, base) == merged  # built once, then reused
    config = json.loads((shipped / "adapter_config.json").read_text())
    lora = load_file(str(shipped / "adapter_model.safetensors"))
    before = load_file(str(Path(base) / "model.safetensors"))
    after = load_file(str(merged / "model.safetensors"))
    assert before.keys() == after.keys()
    a_keys = [k for k in lora if k.endswith("lora_A.weight")]
    for a_key in a_keys[:4]:
        module = a_key.removeprefix("base_model.model.").removesuffix(".lora_A.weight")
        a, b = lora[a_key].float(), lora[a_key.replace("lora_A", "lora_B")].float()
        delta = (b @ a) * config["lora_alpha"] / config["r"]
        got = after[f"{module}.weight"].float() - before[f"{module}.weight"].float()
        assert delta.abs().max() > 0 and cosine_similarity(got.flatten(), delta.flatten(), 0) > 0.99
    untouched = [k for k in before if "norm" in k]
    assert untouched and all((before[k] == after[k]).all() for k in untouched)
    assert (merged / "tokenizer.json").read_bytes() == (Path(base) / "tokenizer.json").read_bytes()


@pytest.mark.slow
@pytest.mark.vllm
@pytest.mark.timeout(600)
def test_a_prompted_player_batched_with_a_trained_one_still_gets_the_base_model():
    """vLLM's CPU LoRA kernels once gave base-model tokens the last adapter's weights."""
    from sotopia_tom_app.bench.orchestrate import players_client as _client
    from sotopia_tom_env.actions import action_model
    from training.data import teacher_turns

    shipped = Path(__file__).parent.parent / "training" / "adapters" / "cpu-small"
    spec = parse_trained(f"trained:{shipped}")
    schema = action_model(None)
    # the adapter's own layout (its card), about half the paper's tokens to prefill
    prompts = [teacher_turns(s, spec.strategy, max_turns=1, options=spec.options)[0][0].prompt
               for s in scenarios.load("gold")[::50][:3]]  # fmt: skip

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
