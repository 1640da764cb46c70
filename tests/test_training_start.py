"""Where a training stage starts: an adapter folder goes on as that LoRA, or merged and in full."""

from pathlib import Path

import pytest

trl = pytest.importorskip("trl")
pytest.importorskip("peft")

SHIPPED = Path(__file__).parent.parent / "training" / "adapters" / "cpu-small"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("merge", [False, True], ids=["lora", "merged"])
def test_an_adapter_folder_goes_on_as_lora_unless_merged_for_a_full_fine_tune(merge):
    """Without ``merge`` the adapter goes on as LoRA even where ``use_peft`` is left at TRL's
    default (false), as the continuing stage configs leave it; merged, the adapter's change is in
    the weights and every weight trains (PEFT froze them)."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from sotopia_tom_env.llm.models import resolve_model
    from training.arguments import start_from

    model_args = trl.ModelConfig(model_name_or_path=str(SHIPPED))
    args = trl.SFTConfig(output_dir="unused", use_cpu=True)
    model, peft_config = start_from(model_args, args, merge=merge)
    assert peft_config is None  # nothing new to wrap: the adapter's own config, or no LoRA
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    if not merge:
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


def test_merging_needs_an_adapter_and_a_full_fine_tune():
    from training.arguments import start_from

    args = trl.SFTConfig(output_dir="unused", use_cpu=True)
    with pytest.raises(ValueError, match="use_peft: false"):
        start_from(
            trl.ModelConfig(model_name_or_path=str(SHIPPED), use_peft=True), args, merge=True
        )
    with pytest.raises(ValueError, match="an adapter folder"):
        start_from(trl.ModelConfig(model_name_or_path=None), args, merge=True)
