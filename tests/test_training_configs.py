"""Every shipped training config parses into its script and trainer arguments, and the cpu-small
pipeline is the stages it was when each stage had a file of its own."""

import re
import shlex
from pathlib import Path

import pytest

trl = pytest.importorskip("trl")

from training import pipeline  # noqa: E402
from training.grpo import GRPOScriptArguments  # noqa: E402
from training.pipeline import changed, find, is_pipeline, parse, parse_settings, stages  # noqa: E402
from training.sft import SFTScriptArguments  # noqa: E402

ROOT = Path(__file__).parent.parent
ALL = sorted((ROOT / "training" / "configs").glob("*.yaml"))
PIPELINES = [p for p in ALL if is_pipeline(p)]
CONFIGS = [p for p in ALL if p not in PIPELINES]  # one stage's file: SFT (sft-*) or GRPO
STAGES = [(p, k) for p in PIPELINES for k in range(len(stages(p)))]
CPU_SMALL = ROOT / "training" / "configs" / "pipeline-cpu-small.yaml"
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


@pytest.mark.parametrize(("path", "k"), STAGES, ids=[f"{p.stem}-{k + 1}" for p, k in STAGES])
def test_every_pipeline_stage_parses(path, k):
    stage = stages(path)[k]
    if "gpu" in path.stem and stage.kind not in pipeline.PLAYING:
        stage = changed(stage, {"bf16": False, "use_cpu": True})
    parsed = parse(stage)
    assert stage.out.startswith("runs/train/")
    if stage.kind in pipeline.PLAYING:
        assert parsed.every >= 1
    else:
        model = parsed[2]
        assert not model.use_peft or model.lora_target_modules == "all-linear", stage.label


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
    """A stage's model, player or data is an output folder of an earlier stage."""
    written: list[str] = []
    for stage in stages(path):
        data = stage.fields
        needs = [data.get("player"), data.get("model_name_or_path"), *data.get("extra_data", [])]
        needs += (data.get("episodes") or "").split(",")
        for need in filter(None, needs):
            if need.startswith("runs/"):
                assert any(need == w or need.startswith(w + "/") for w in written), (stage.label, need)  # fmt: skip
        written.append(stage.out)


# The cpu-small stages as the eleven stage files before this pipeline held them gave them: an
# interrupted `make train` goes on from the runs/train/* folders it wrote, and its results
# reproduce, only while each stage's kind, place, folders, inputs and settings stay the same.
# (kind, output folder, model or player it starts from, what else it reads, its own settings)
CPU_SMALL_STAGES = [
    ("sft", "sft-cpu-small", None, [],
     {"max_steps": 160, "learning_rate": 1e-3, "limit": None, "mix_seed": 0, "use_peft": True, "lora_dropout": 0.0}),
    ("dagger", "dagger-cpu-small", "sft-cpu-small", [], {"every": 15, "offset": 2}),
    ("sft", "sft-dagger-cpu-small", "sft-cpu-small", ["dagger-cpu-small/data.jsonl"],
     {"max_steps": 80, "learning_rate": 5e-4, "limit": 20, "mix_seed": 1}),
    ("dagger", "dagger2-cpu-small", "sft-dagger-cpu-small", [], {"every": 15, "offset": 9}),
    ("sft", "sft-dagger2-cpu-small", "sft-dagger-cpu-small",
     ["dagger-cpu-small/data.jsonl", "dagger2-cpu-small/data.jsonl"],
     {"max_steps": 80, "learning_rate": 5e-4, "limit": 20, "mix_seed": 2}),
    ("dagger", "dagger3-cpu-small", "sft-dagger2-cpu-small", [], {"every": 15, "offset": 12}),
    ("sft", "sft-dagger3-cpu-small", "sft-dagger2-cpu-small", ["dagger3-cpu-small/data.jsonl"],
     {"max_steps": 80, "learning_rate": 5e-4, "limit": 20, "mix_seed": 4}),
    ("best_of", "best-of-cpu-small", "sft-dagger2-cpu-small", [],
     {"rounds": 3, "margin": 0.0, "every": 30, "offset": 4, "concurrency": 20}),
    ("grpo", "grpo-cpu-small", "sft-dagger2-cpu-small", [f"best-of-cpu-small/round-{r}" for r in range(3)],
     {"every": 3, "probe": 4, "continuation": "none", "max_steps": 200, "num_generations": 4,
      "per_device_train_batch_size": 2, "gradient_accumulation_steps": 2, "beta": 0.02,
      "lr_scheduler_type": "constant"}),
    ("best_reply", "best-reply-cpu-small", "sft-dagger2-cpu-small",
     [f"best-of-cpu-small/round-{r}" for r in range(3)], {"samples": 4, "every": 3}),
    ("sft", "sft-best-reply-cpu-small", "sft-dagger2-cpu-small", ["best-reply-cpu-small/data.jsonl"],
     {"max_steps": 60, "learning_rate": 2e-4, "limit": 0, "mix_seed": 3, "upweight": 1, "keep_none": 1.0, "keep_leave": 1.0}),
    ("dagger", "selfplay-best-reply-cpu-small", "sft-best-reply-cpu-small", [], {"every": 15, "offset": 7}),
    ("best_reply", "best-reply-2-cpu-small", "sft-best-reply-cpu-small", ["selfplay-best-reply-cpu-small"],
     {"samples": 4, "every": 2}),
    ("sft", "sft-best-reply-2-cpu-small", "sft-best-reply-cpu-small", ["best-reply-2-cpu-small/data.jsonl"],
     {"max_steps": 60, "learning_rate": 2e-4, "limit": 0, "mix_seed": 3, "upweight": 1, "keep_none": 1.0, "keep_leave": 1.0}),
]  # fmt: skip
# What every SFT stage of it had, and every stage that plays.
SFT_SHARED = {"scenarios": "silver", "strategy": "basic", "options": ["compact"],
              "per_device_train_batch_size": 1, "gradient_accumulation_steps": 4,
              "warmup_steps": 5, "max_length": 2048, "completion_only_loss": True, "use_cpu": True,
              "gradient_checkpointing": False, "bf16": True, "logging_steps": 5, "save_steps": 10,
              "save_total_limit": 2, "seed": 0}  # fmt: skip
PLAY_SHARED = {"scenarios": "silver", "max_turns": 30}
GRPO_SHARED = {"scenarios": "silver", "strategy": "basic", "options": ["compact"], "max_turns": 30,
               "use_cpu": True, "bf16": True, "save_steps": 10, "seed": 0}  # fmt: skip


def _value(parsed, name):
    """A field of a stage's parsed arguments: one dataclass, or the script's, trainer's, model's."""
    for part in parsed if isinstance(parsed, tuple) else (parsed,):
        if hasattr(part, name):
            return getattr(part, name)
    raise AttributeError(name)


def test_the_cpu_small_pipeline_is_the_stages_it_was():
    found = stages(CPU_SMALL)
    assert [(s.kind, s.name) for s in found] == [(k, n) for k, n, *_ in CPU_SMALL_STAGES]
    for stage, (kind, name, start, reads, own) in zip(found, CPU_SMALL_STAGES, strict=True):
        parsed = parse(stage)
        playing = kind in pipeline.PLAYING
        assert stage.out == f"runs/train/{name}"
        assert _value(parsed, "player" if playing else "model_name_or_path") == (
            start and f"runs/train/{start}"
        ), name
        read = _value(parsed, "episodes").split(",") if kind in ("best_reply", "grpo") else []
        read += _value(parsed, "extra_data") if kind == "sft" else []
        assert read == [f"runs/train/{r}" for r in reads], name
        shared = {"sft": SFT_SHARED, "grpo": GRPO_SHARED}.get(kind, PLAY_SHARED)
        for field, value in {**shared, **own}.items():
            assert _value(parsed, field) == value, (name, field)
        if kind == "sft":
            assert _value(parsed, "lr_scheduler_type") == "cosine"
            assert not _value(parsed, "merge_adapter")


# The stage files the pipeline replaced that it does not run, as docs/training.md reruns them.
VARIANTS = {
    "sft-full-cpu-small": ("sft-cpu-small", ["use_peft=false", "learning_rate=1.0e-4"]),
    "sft-full-best-reply-2-cpu-small": (
        "sft-best-reply-2-cpu-small",
        ["merge_adapter=true", "learning_rate=2.0e-5"],
    ),
    "sft-best-of-cpu-small": (
        "sft-best-reply-cpu-small",
        ["extra_data=[runs/train/best-of-cpu-small/data.jsonl]", "learning_rate=5.0e-4"],
    ),
}


@pytest.mark.parametrize("name", VARIANTS)
def test_a_stage_file_no_pipeline_runs_is_a_variant_of_a_stage(name):
    base, settings = VARIANTS[name]
    settings = [*settings, f"output_dir=runs/train/{name}"]
    stage = changed(find(CPU_SMALL, base), parse_settings(settings))
    script, args, model = parse(stage)
    assert args.output_dir == f"runs/train/{name}"
    if "full" in name:  # every weight, at a tenth of the LoRA rate
        assert not model.use_peft and args.learning_rate == pytest.approx(
            parse(find(CPU_SMALL, base))[1].learning_rate / 10
        )
        assert script.merge_adapter == ("best-reply" in name)
    else:  # self-imitation: the DAgger round-2 adapter on its own above-mean turns
        assert script.extra_data == ["runs/train/best-of-cpu-small/data.jsonl"]
        assert model.model_name_or_path == "runs/train/sft-dagger2-cpu-small"
        assert args.learning_rate == 5e-4


def test_every_stage_command_in_the_docs_names_a_stage_and_fields_that_parse():
    text = (ROOT / "docs" / "training.md").read_text()
    commands = [shlex.split(m) for m in re.findall(r"sotopia-tom train (--config [^\n`]*--stage [^\n`#]*)", text)]  # fmt: skip
    assert commands
    for words in commands:
        config, name = words[words.index("--config") + 1], words[words.index("--stage") + 1]
        settings = [words[k + 1] for k, w in enumerate(words) if w == "--set"]
        parse(changed(find(ROOT / config, name), parse_settings(settings)))


def test_settings_are_read_as_yaml():
    assert parse_settings(["a=1", "b=false", "c=[x, y]", "d=2.0e-5", "e=runs/x"]) == {
        "a": 1, "b": False, "c": ["x", "y"], "d": 2e-5, "e": "runs/x"
    }  # fmt: skip
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        parse_settings(["learning_rate"])


def _write(tmp_path, text):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    return path


def test_a_malformed_pipeline_names_the_stage(tmp_path):
    bad = _write(tmp_path, "stages:\n  - sft: {output_dir: runs/train/a}\n  - teleport: {}\n")
    with pytest.raises(ValueError, match="stage 2: unknown kind 'teleport'"):
        stages(bad)
    bad = _write(tmp_path, "stages:\n  - sft: {max_steps: 2}\n")
    with pytest.raises(ValueError, match=r"stage 1 \(sft\): no output_dir"):
        stages(bad)
    bad = _write(tmp_path, "stages:\n  - dagger: {out: runs/train/a}\n  - sft: {output_dir: runs/train/a}\n")  # fmt: skip
    with pytest.raises(ValueError, match=r"stage 2 \(sft a\): writes runs/train/a, as .*stage 1 does"):  # fmt: skip
        stages(bad)


def test_a_misspelt_field_fails_before_any_stage_runs_naming_stage_and_field(tmp_path, monkeypatch):
    path = _write(tmp_path, (
        "base:\n  dagger: {max_turns: 4}\n"
        "stages:\n  - dagger: {player: p, out: runs/train/d}\n"
        "  - sft: {output_dir: runs/train/s, use_cpu: true, lerning_rate: 0.1}\n"
    ))  # fmt: skip
    ran = []
    monkeypatch.setitem(pipeline.RUNNERS, "dagger", lambda c: ran.append(c))
    with pytest.raises(ValueError, match=r"stage 2 \(sft s\): unknown fields \['lerning_rate'\]"):
        pipeline.run(path, echo=lambda line: None)
    assert not ran
    with pytest.raises(ValueError, match=r"stage 1 \(dagger d\): unknown fields \['evry'\]"):
        pipeline.run(path, echo=lambda line: None, only="d", settings={"evry": 3})


def test_a_pipeline_runs_its_stages_in_order_and_says_what_each_took(tmp_path, monkeypatch):
    path = _write(tmp_path, (
        "base:\n  sft: {use_cpu: true, max_steps: 2}\n"
        "stages:\n  - sft: {output_dir: runs/train/a}\n"
        "  - dagger: {player: runs/train/a, out: runs/train/b}\n"
        "  - sft: {output_dir: runs/train/c, max_steps: 3}\n"
    ))  # fmt: skip
    ran = []
    for kind in pipeline.KINDS:
        monkeypatch.setitem(
            pipeline.RUNNERS, kind, lambda c, k=kind: ran.append((k, c)) or tmp_path / f"out-{k}"
        )
    lines = []
    assert pipeline.run(path, echo=lines.append) == tmp_path / "out-sft"
    assert ran == [  # each stage's own fields over its kind's base
        ("sft", {"use_cpu": True, "max_steps": 2, "output_dir": "runs/train/a"}),
        ("dagger", {"player": "runs/train/a", "out": "runs/train/b"}),
        ("sft", {"use_cpu": True, "max_steps": 3, "output_dir": "runs/train/c"}),
    ]
    assert lines[0] == "stage sft: a" and lines[1].endswith(" min)")
    assert lines[3].startswith(f"  -> {tmp_path / 'out-dagger'} (")
    assert lines[-1].startswith(f"pipeline {path}: ") and lines[-1].endswith(" min")
    ran.clear()
    pipeline.run(path, echo=lines.append, only="c", settings={"max_steps": 9})
    assert ran == [("sft", {"use_cpu": True, "max_steps": 9, "output_dir": "runs/train/c"})]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--stage", "nope"], "no stage 'nope'; its stages: sft-cpu-small, dagger-cpu-small"),
        (["--set", "max_steps=1"], "name it (--stage NAME)"),
        (["--stage", "sft-cpu-small", "--set", "max_steps"], "FIELD=VALUE"),
        (["--stage", "dagger-cpu-small", "--set", "evry=3"], "unknown fields ['evry']"),
        (["--stage", "sft-cpu-small", "--set", "learning_rate=fast"], "invalid float value"),
    ],
)
def test_train_refuses_a_bad_stage_or_setting_in_one_line_before_training(args, says):
    from typer.testing import CliRunner

    from sotopia_tom_app.cli import app

    result = CliRunner().invoke(app, ["train", "--config", str(CPU_SMALL), *args])
    assert result.exit_code != 0 and says in " ".join(result.output.split()), result.output


def test_until_ends_the_pipeline_and_later_stages_run_by_name(tmp_path, monkeypatch):
    text = (
        "until: b\nstages:\n  - sft: {output_dir: runs/train/a, use_cpu: true}\n"
        "  - dagger: {player: runs/train/a, out: runs/train/b}\n"
        "  - sft: {output_dir: runs/train/c, use_cpu: true}\n"
    )
    path = _write(tmp_path, text)
    ran = []
    for kind in pipeline.KINDS:
        monkeypatch.setitem(pipeline.RUNNERS, kind, lambda c, k=kind: ran.append(k) or tmp_path / k)
    assert pipeline.run(path, echo=lambda line: None) == tmp_path / "dagger"
    assert ran == ["sft", "dagger"]
    pipeline.run(path, echo=lambda line: None, only="c")  # a later stage, by name
    assert ran[-1] == "sft" and len(ran) == 3
    # a stage after ``until`` is still checked before anything runs
    bad = _write(tmp_path, text.replace("c, use_cpu: true", "c, lerning_rate: 1"))
    with pytest.raises(ValueError, match=r"stage 3 \(sft c\): unknown fields \['lerning_rate'\]"):
        pipeline.run(bad, echo=lambda line: None)
    with pytest.raises(ValueError, match="until: no stage 'z'; its stages: a, b, c"):
        pipeline.run(_write(tmp_path, text.replace("until: b", "until: z")), echo=print)


@pytest.mark.parametrize("path", ["runs/train/not-yet-trained", "./adapter", "/nowhere/adapter"])
def test_a_stage_names_the_model_folder_that_is_not_there(path):
    """A stage run before the one that writes its start says so, rather than asking the Hub."""
    from trl import ModelConfig

    from training.arguments import base_model

    with pytest.raises(ValueError, match=f"model_name_or_path: nothing at {path}"):
        base_model(ModelConfig(model_name_or_path=path))
