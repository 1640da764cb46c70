"""The ``cpu-smoke`` training pipeline end to end (slow): SFT on the teacher (continuing the
shipped adapter), a DAgger round through the local vLLM server, SFT on its labels, a best-of-K
round at the student's own states and SFT on its choice, two GRPO steps on the student's own
states, then the saved adapter plays a bench episode as ``trained:PATH`` through the local vLLM
server.

Sizes are the configs' (two optimiser steps a stage, one group of four GRPO samples a step), so
the whole file takes a few minutes on two idle cores.
"""

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")
pytestmark = [pytest.mark.slow, pytest.mark.vllm, pytest.mark.timeout(2400)]

CONFIGS = Path(__file__).parent.parent / "training" / "configs"


def _pipeline(tmp_path):
    """The smoke pipeline with every stage's folders moved under ``tmp_path``."""
    path = tmp_path / "pipeline.yaml"
    smoke = (CONFIGS / "pipeline-cpu-smoke.yaml").read_text()
    path.write_text(smoke.replace("runs/train/", f"{tmp_path}/"))
    return path


def _lora_weights(folder):
    from safetensors.torch import load_file

    return load_file(str(folder / "adapter_model.safetensors"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from training.pipeline import run

    tmp = tmp_path_factory.mktemp("train")
    out = run(_pipeline(tmp))
    return tmp, out


def test_every_stage_wrote_its_output_and_card(trained):
    tmp, out = trained
    assert out == tmp / "cpu-smoke"
    for stage in ("sft-cpu-smoke", "sft-dagger-cpu-smoke", "sft-best-reply-cpu-smoke", "cpu-smoke"):
        card = json.loads((tmp / stage / "sotopia_tom.json").read_text())
        assert card["options"] == ["compact"] and card["strategy"] == "basic"
    rows = [
        json.loads(x) for x in (tmp / "dagger-cpu-smoke" / "data.jsonl").read_text().splitlines()
    ]
    episodes = (tmp / "dagger-cpu-smoke" / "episodes.jsonl").read_text().splitlines()
    assert len(episodes) == 2 and rows
    # each row: the student's own prompt, the teacher's reply in the compact layout's ids
    assert all("Say in public:" in r["prompt"][0]["content"] or "Never say:" in r["prompt"][0]["content"]
               for r in rows)  # fmt: skip


def test_best_reply_sampled_every_second_turn_of_the_round(trained):
    tmp, _ = trained
    selection = json.loads((tmp / "best-reply-cpu-smoke" / "selection.json").read_text())
    lines = (tmp / "dagger-cpu-smoke" / "episodes.jsonl").read_text().splitlines()
    turns = [len(json.loads(x)["actions"]) for x in lines]  # one acting seat a step
    assert selection["states"] == sum(len(range(n % 2, t, 2)) for n, t in enumerate(turns))
    rows = (tmp / "best-reply-cpu-smoke" / "data.jsonl").read_text().splitlines()
    assert len(rows) == selection["examples"] == selection["states"] - selection["states_tied"]


def test_grpo_learns_from_untied_groups_only_and_logs_every_reward_part(trained):
    """A group whose samples all score the same is dropped (no gradient); any other moves the
    adapter. Which groups tie is up to sampling, so the test checks each step both ways."""
    tmp, grpo = trained
    before, after = _lora_weights(tmp / "sft-dagger-cpu-smoke"), _lora_weights(grpo)
    assert before.keys() == after.keys()
    steps = [e for e in json.loads((grpo / "log_history.json").read_text()) if "loss" in e]
    assert len(steps) == 2
    for part in ("env_reward", "da", "ia", "eff", "cpv", "cm", "malformed", "tied", "distinct"):
        assert all(f"rewards/{part}_reward/mean" in e for e in steps), part
    untied = [e for e in steps if float(e["frac_reward_zero_std"]) < 1]
    assert all((e in untied) == (float(e["rewards/tied_reward/mean"]) < 1) for e in steps)
    assert all(float(e["grad_norm"]) == 0 for e in steps if e not in untied)
    assert all(float(e["grad_norm"]) > 0 for e in untied)
    moved = any(not (before[k] == after[k]).all() for k in before)
    assert moved == bool(untied), (moved, [e["frac_reward_zero_std"] for e in steps])


def test_the_trained_adapter_plays_a_bench_episode(trained, tmp_path):
    from typer.testing import CliRunner

    from sotopia_tom_app.bench.records import EPISODES_FILE, read_records
    from sotopia_tom_app.cli import app

    _, grpo = trained
    # Bounded budgets: a 135M adapter on CPU must not spend minutes on one reply.
    args = ["bench", "--policies", f"trained:{grpo}", "--scenarios", "gold", "--limit", "1",
            "--max-turns", "2", "--player-options", "short_messages",
            "--out", str(tmp_path / "bench")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (record,) = read_records(tmp_path / "bench" / EPISODES_FILE)
    assert record.policy == f"trained:{grpo}" and record.scores.CM is not None
    assert record.llm.get("calls", 0) >= 1 and record.llm.get("llm_errors", 0) == 0
