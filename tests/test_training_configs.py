"""Every shipped training config parses into its script and trainer arguments."""

from pathlib import Path

import pytest

trl = pytest.importorskip("trl")

from training.best_of import BestOfArguments  # noqa: E402
from training.best_reply import BestReplyArguments  # noqa: E402
from training.dagger import DaggerArguments  # noqa: E402
from training.grpo import GRPOScriptArguments  # noqa: E402
from training.pipeline import is_pipeline, stages  # noqa: E402
from training.sft import SFTScriptArguments  # noqa: E402

ALL = sorted((Path(__file__).parent.parent / "training" / "configs").glob("*.yaml"))
PIPELINES = [p for p in ALL if is_pipeline(p)]
PLAYERS = {
    "dagger-": DaggerArguments,
    "selfplay-": DaggerArguments,  # a DAgger round whose episodes, not labels, are used
    "best-of-": BestOfArguments,
    "best-reply-": BestReplyArguments,
}  # stages that play episodes
PLAYING = [p for p in ALL if p.stem.startswith(tuple(PLAYERS))]
CONFIGS = [p for p in ALL if p not in PIPELINES and p not in PLAYING]
# GPU configs ask for bf16, which the trainer refuses on a machine without a GPU.
ON_CPU = ["--bf16", "false", "--use_cpu", "true"]


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_parses(path):
    sft = path.stem.startswith("sft-")
    kinds = (SFTScriptArguments, trl.SFTConfig) if sft else (GRPOScriptArguments, trl.GRPOConfig)
    extra = ON_CPU if "gpu" in path.stem else []
    script, args, model = trl.TrlParser((*kinds, trl.ModelConfig)).parse_args_and_config(
        args=["--config", str(path), *extra]
    )
    assert args.output_dir.startswith("runs/train/")
    # TRL's own default targets only some projections; every LoRA stage here adapts all of them.
    assert not model.use_peft or model.lora_target_modules == "all-linear", path
    if "gpu" in path.stem and not sft:
        assert script.generator == "trl-vllm" and args.use_vllm


def test_a_bad_generator_is_refused_with_the_fix():
    from types import SimpleNamespace

    from training.grpo import _generator

    sampling = SimpleNamespace(max_completion_length=8, temperature=1.0)
    with pytest.raises(ValueError, match="use_peft: true"):
        _generator(GRPOScriptArguments(generator="server"), sampling, trl.ModelConfig())
    with pytest.raises(ValueError, match="generator must be"):
        GRPOScriptArguments(generator="telepathy")


@pytest.mark.parametrize("path", PIPELINES, ids=[p.stem for p in PIPELINES])
def test_each_pipeline_stage_reads_what_the_one_before_wrote(path):
    """A stage's model, DAgger player or data is an output folder of an earlier stage."""
    import yaml

    written: list[str] = []
    for kind, config in stages(path):
        data = yaml.safe_load(config.read_text())
        if kind in ("dagger", "best_of", "best_reply"):
            assert data["player"] in written, f"{config}: plays {data['player']}, not trained yet"
            written.append(data["out"])
            continue
        needs = [data.get("model_name_or_path"), data.get("episodes"), *data.get("extra_data", [])]
        for need in filter(None, needs):
            if need.startswith("runs/"):
                assert any(need == w or need.startswith(w + "/") for w in written), (config, need)
        written.append(data["output_dir"])


@pytest.mark.parametrize("path", PLAYING, ids=[p.stem for p in PLAYING])
def test_playing_stage_config_parses(path):
    import yaml

    (kind,) = [k for prefix, k in PLAYERS.items() if path.stem.startswith(prefix)]
    args = kind(**yaml.safe_load(path.read_text()))
    assert args.out.startswith("runs/train/") and args.every >= 1


def test_a_malformed_pipeline_names_the_stage(tmp_path):
    bad = tmp_path / "p.yaml"
    bad.write_text("stages:\n  - sft: training/configs/sft-cpu-smoke.yaml\n  - teleport: x.yaml\n")
    with pytest.raises(ValueError, match="stage 2: unknown kind 'teleport'"):
        stages(bad)


def test_a_pipeline_runs_its_stages_in_order_and_says_what_each_took(tmp_path, monkeypatch):
    from training import pipeline

    path = tmp_path / "p.yaml"
    path.write_text(
        "stages:\n  - sft: training/configs/sft-cpu-smoke.yaml\n"
        "  - grpo: training/configs/cpu-smoke.yaml\n"
    )
    ran = []
    for kind in pipeline.KINDS:
        monkeypatch.setitem(
            pipeline.RUNNERS, kind, lambda c, k=kind: ran.append(k) or tmp_path / f"out-{k}"
        )
    lines = []
    assert pipeline.run(path, echo=lines.append) == tmp_path / "out-grpo"
    assert ran == ["sft", "grpo"]
    assert lines[1].endswith(" min)") and lines[3].startswith(f"  -> {tmp_path / 'out-grpo'} (")
    assert lines[-1].startswith(f"pipeline {path}: ") and lines[-1].endswith(" min")
