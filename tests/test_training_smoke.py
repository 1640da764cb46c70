"""The ``cpu-smoke`` training config end to end (slow): SFT warm start, two GRPO steps, then the
saved adapter plays a bench episode as ``trained:PATH`` through the local vLLM server.

Sizes are the config's (tiny lengths, two optimiser steps per stage), so the whole file stays
within a few minutes on two idle cores.
"""

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("trl")
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

CONFIGS = Path(__file__).parent.parent / "training" / "configs"


def _config(tmp_path, name, **changes):
    """A copy of a shipped config with some keys changed (e.g. the output folder)."""
    data = yaml.safe_load((CONFIGS / name).read_text())
    data.update(changes)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def _lora_weights(folder):
    from safetensors.torch import load_file

    return load_file(str(folder / "adapter_model.safetensors"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from trl import GRPOConfig, TrlParser

    from training.grpo import GRPOScriptArguments, main

    tmp = tmp_path_factory.mktemp("train")
    sft = _config(tmp, "sft-cpu-smoke.yaml", output_dir=str(tmp / "sft"))
    grpo = _config(tmp, "cpu-smoke.yaml", output_dir=str(tmp / "grpo"), sft_config=str(sft))
    parser = TrlParser((GRPOScriptArguments, GRPOConfig))
    out = main(*parser.parse_args_and_config(args=["--config", str(grpo)]))
    return tmp / "sft", out


def test_grpo_moves_the_adapter_and_logs_every_reward_part(trained):
    sft, grpo = trained
    before, after = _lora_weights(sft), _lora_weights(grpo)
    assert before.keys() == after.keys()
    assert any(not (before[k] == after[k]).all() for k in before), "two GRPO steps changed nothing"
    steps = [e for e in json.loads((grpo / "log_history.json").read_text()) if "loss" in e]
    assert len(steps) == 2
    for part in ("env_reward", "da", "ia", "eff", "cpv", "cm", "malformed"):
        assert all(f"rewards/{part}_reward/mean" in e for e in steps), part


def test_the_trained_adapter_plays_a_bench_episode(trained, tmp_path):
    from typer.testing import CliRunner

    from sotopia_tom_env.bench.records import EPISODES_FILE, read_records
    from sotopia_tom_env.cli import app

    _, grpo = trained
    # Bounded budgets: a 135M adapter on CPU must not spend minutes on one reply.
    args = ["bench", "--policies", f"trained:{grpo}", "--scenarios", "gold", "--limit", "1",
            "--max-turns", "4", "--player-options", "short_messages",
            "--out", str(tmp_path / "bench")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (record,) = read_records(tmp_path / "bench" / EPISODES_FILE)
    assert record.policy == f"trained:{grpo}" and record.scores.CM is not None
    assert record.llm.get("calls", 0) >= 1 and record.llm.get("llm_errors", 0) == 0
