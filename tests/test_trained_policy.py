import asyncio
import json

import pytest

import scenarios
from policies import Setup, make_policy, play_episode
from policies.trained import lora_server_args, parse_trained
from sotopia_tom_env import parallel_env
from sotopia_tom_env.llm.fake import FakeChatClient


@pytest.fixture
def adapter(tmp_path):
    folder = tmp_path / "my adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"r": 12}))
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
    assert args[:5] == ["--enable-lora", "--max-lora-rank", "16", "--max-loras", "1"]
    assert args[-1] == f"{a.served_name}={adapter.resolve()}" and " " not in a.served_name


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
