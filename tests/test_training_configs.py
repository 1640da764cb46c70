"""Every shipped training config parses into its script and trainer arguments."""

from pathlib import Path

import pytest

trl = pytest.importorskip("trl")

from training.grpo import GRPOScriptArguments  # noqa: E402
from training.sft import SFTScriptArguments  # noqa: E402

CONFIGS = sorted((Path(__file__).parent.parent / "training" / "configs").glob("*.yaml"))
# GPU configs ask for bf16, which the trainer refuses on a machine without a GPU.
ON_CPU = ["--bf16", "false", "--use_cpu", "true"]


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_parses(path):
    sft = path.stem.startswith("sft-")
    kinds = (SFTScriptArguments, trl.SFTConfig) if sft else (GRPOScriptArguments, trl.GRPOConfig)
    extra = ON_CPU if "gpu" in path.stem else []
    script, args = trl.TrlParser(kinds).parse_args_and_config(args=["--config", str(path), *extra])
    assert args.output_dir.startswith("runs/train/")
    if not sft and script.sft_config:
        assert Path(script.sft_config).is_file() and "sft-" in script.sft_config
    if "gpu" in path.stem and not sft:
        assert script.generator == "trl-vllm" and args.use_vllm


def test_a_bad_generator_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="use_lora"):
        GRPOScriptArguments(generator="server", use_lora=False)
    with pytest.raises(ValueError, match="generator must be"):
        GRPOScriptArguments(generator="telepathy")
