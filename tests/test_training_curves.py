"""Training curves come from what each stage logged, finished or still running."""

import json

import pytest

pytest.importorskip("matplotlib")

from training.curves import log_history, plot, series


def test_curves_read_a_finished_and_a_running_stage(tmp_path):
    sft, grpo = tmp_path / "sft", tmp_path / "grpo"
    sft.mkdir()
    (sft / "log_history.json").write_text(
        json.dumps([{"step": 5, "loss": 1.5}, {"step": 10, "loss": 0.7}, {"train_runtime": 9.0}])
    )
    for step in (5, 10):  # a running stage: only checkpoints so far; the newest one counts
        ckpt = grpo / f"checkpoint-{step}"
        ckpt.mkdir(parents=True)
        rows = [
            {"step": s, "reward": s / 10, "rewards/cm_reward/mean": 0.9, "kl": s / 1000}
            for s in range(1, step + 1)
        ]
        (ckpt / "trainer_state.json").write_text(json.dumps({"log_history": rows}))
    assert series(log_history(sft), "loss") == ([5, 10], [1.5, 0.7])
    assert series(log_history(grpo), "reward")[0] == list(range(1, 11))
    assert series(log_history(grpo), "kl")[1][-1] == 0.01
    out = tmp_path / "img" / "curves.png"
    plot([sft, grpo], out)
    assert out.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(FileNotFoundError, match="no checkpoint yet"):
        log_history(tmp_path)
