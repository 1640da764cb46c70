"""The GPU pipeline (``pipeline-gpu-1.yaml``) on the CPU at smoke size (slow): its SFT stage,
then its GRPO stage sampling with TRL's own vLLM engine colocated in the training process
(``generator: trl-vllm``, ``vllm_mode: colocate``), as on the GPU.

Each stage is the pipeline's, changed as ``sotopia-tom train --stage NAME --set FIELD=VALUE``
changes it: the bundled SmolLM2-135M for the 1.5B model, the settings a CPU refuses (bf16), and
smoke sizes (one scenario, one optimiser step, one group of two short samples, 4-turn episodes),
no gradient checkpointing (CPU time). On the CPU the engine starts eager and takes the policy's
weights through vLLM's in-place reload instead of TRL's per-tensor load
(``training.generate.colocated_on_cpu``, ``sync_by_reload``), and here torch.compile is off:
vLLM's sampler compiles two small helpers with inductor on its first batch, a minute or more
here. The file takes about 4 minutes on two busy cores. The sampled replies are not yet well
formed, so the group usually ties and the step has no gradient (the path is tested, not learning).
"""

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")
pytest.importorskip("vllm")
pytestmark = [pytest.mark.slow, pytest.mark.vllm, pytest.mark.timeout(900)]

PIPELINE = Path(__file__).parent.parent / "training" / "configs" / "pipeline-gpu-1.yaml"
ON_CPU = {"bf16": False, "use_cpu": True, "gradient_checkpointing": False}
SMOKE = {
    "sft": {"limit": 1, "max_steps": 1, "per_device_train_batch_size": 1,
            "gradient_accumulation_steps": 1, "warmup_steps": 0, "max_length": 2048,
            "save_strategy": "no", "logging_steps": 1},
    "grpo": {"limit": 1, "max_turns": 4, "max_steps": 1, "per_device_train_batch_size": 2,
             "gradient_accumulation_steps": 1, "num_generations": 2, "max_completion_length": 48,
             "save_strategy": "no"},
}  # fmt: skip


def _settings(stage, tmp, model):
    """A stage's changes: its folders under ``tmp``, the small model, CPU settings, smoke sizes."""
    start = stage.fields["model_name_or_path"]
    start = str(tmp / Path(start).name) if start.startswith("runs/") else model
    return {"output_dir": str(tmp / stage.name), "model_name_or_path": start,
            **ON_CPU, **SMOKE[stage.kind]}  # fmt: skip


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Every stage of the GPU pipeline run in order, and what TRL's engine did meanwhile."""
    import torch
    from trl.generation.vllm_generation import VLLMGeneration

    from sotopia_tom_env.llm.models import default_model_dir
    from training import generate
    from training.pipeline import run, stages

    tmp, model = tmp_path_factory.mktemp("gpu-path"), str(default_model_dir())
    seen = {"engines": [], "samples": [], "syncs": 0}
    original_generate, original_sync = VLLMGeneration.generate, generate.sync_by_reload

    def spy_generate(self, prompts, images, num_generations, profiler=None):
        out = original_generate(self, prompts, images, num_generations, profiler)
        seen["engines"].append((self.mode, type(self.llm).__name__))
        _, completions, logprobs, _ = out
        pairs = zip(completions, logprobs, strict=True)
        seen["samples"] += [(list(c), [lp[0] for lp in lps]) for c, lps in pairs]
        return out

    def spy_sync(generation):
        original_sync(generation)
        synced = generation.sync_weights

        def counted():
            synced()
            seen["syncs"] += 1

        generation.sync_weights = counted

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(torch._dynamo.config, "disable", True)
        mp.setattr(VLLMGeneration, "generate", spy_generate)
        mp.setattr(generate, "sync_by_reload", spy_sync)
        outs = {
            stage.name: run(PIPELINE, echo=lambda _: None, only=stage.name,
                            settings=_settings(stage, tmp, model))
            for stage in stages(PIPELINE)
        }  # fmt: skip
    return tmp, outs, seen


def test_every_stage_of_the_gpu_pipeline_wrote_its_adapter_and_card(ran):
    tmp, outs, _ = ran
    assert list(outs) == ["sft-gpu-1", "gpu-1"]
    for name, out in outs.items():
        assert out == tmp / name and (out / "adapter_model.safetensors").is_file(), name
        assert json.loads((out / "sotopia_tom.json").read_text())["strategy"] == "basic"
    grpo = json.loads((tmp / "gpu-1" / "adapter_config.json").read_text())
    assert Path(grpo["base_model_name_or_path"]).name == "SmolLM2-135M-Instruct"


def test_grpo_sampled_with_trls_colocated_engine_and_logged_the_env_reward(ran):
    tmp, _, seen = ran
    # TRL's in-process engine sampled every reply: the group's, then the seat's continuation turns
    assert seen["engines"] and set(seen["engines"]) == {("colocate", "LLM")}
    assert len(seen["engines"]) >= 2 and seen["syncs"] >= 1  # weights synced before sampling
    # each reply with its sampled tokens' logprobs, which only TRL's engine gives the trainer
    assert all(0 < len(c) == len(lps) <= 48 for c, lps in seen["samples"])
    assert all(lp <= 0 for _, lps in seen["samples"] for lp in lps)
    log = json.loads((tmp / "gpu-1" / "log_history.json").read_text())
    (step,) = [e for e in log if "loss" in e]
    assert "rewards/env_reward_reward/mean" in step and "reward" in step
    assert "sampling/importance_sampling_ratio/mean" in step  # TRL's correction had logprobs
