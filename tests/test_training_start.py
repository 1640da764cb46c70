"""Where a training stage starts: an adapter folder goes on as that LoRA, or merged and full."""

from pathlib import Path

import pytest

trl = pytest.importorskip("trl")
pytest.importorskip("peft")

SHIPPED = Path(__file__).parent.parent / "training" / "adapters" / "cpu-small"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("use_peft", [True, False], ids=["lora", "full"])
def test_an_adapter_folder_goes_on_as_lora_or_as_its_merged_model(use_peft):
    """Full: the adapter's change is in the weights, and every weight trains (PEFT froze them)."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from sotopia_tom_env.llm.models import resolve_model
    from training.arguments import start_from

    model_args = trl.ModelConfig(model_name_or_path=str(SHIPPED), use_peft=use_peft)
    model, peft_config = start_from(model_args, trl.SFTConfig(output_dir="unused", use_cpu=True))
    assert peft_config is None  # nothing new to wrap: the adapter's own config, or no LoRA
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    if use_peft:
        assert isinstance(model, PeftModel) and trainable
        assert all("lora_" in n for n in trainable)
        return
    assert not isinstance(model, PeftModel)
    assert trainable == {n for n, _ in model.named_parameters()}
    base = AutoModelForCausalLM.from_pretrained(resolve_model(None), dtype="float32")
    name = "model.layers.0.self_attn.q_proj.weight"
    merged, original = model.get_parameter(name), base.get_parameter(name)
    assert merged.dtype == original.dtype  # trained in the model's dtype, not the adapter's bf16
    assert (merged - original).abs().max() > 0
