"""Shipping an adapter: bf16 weights, the same config; and the adapter the repository ships."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")

from policies.trained import LORA_RANKS  # noqa: E402
from training.export import CONFIG, WEIGHTS, export_adapter  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[1] / "training" / "adapters" / "cpu-small"


def _adapter(folder: Path, r: int = 4) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    tensors = {
        "base_model.model.layers.0.q_proj.lora_A.weight": torch.randn(r, 256, generator=gen),
        "base_model.model.layers.0.q_proj.lora_B.weight": torch.randn(256, r, generator=gen),
    }
    folder.mkdir()
    safetensors_torch.save_file(tensors, folder / WEIGHTS)
    (folder / CONFIG).write_text(json.dumps({"r": r, "lora_alpha": 2 * r, "peft_type": "LORA"}))
    return tensors


def test_export_halves_the_weights_and_keeps_values_and_config(tmp_path):
    src = tmp_path / "run"
    original = _adapter(src)
    dest = export_adapter(src, tmp_path / "shipped")
    shipped = safetensors_torch.load_file(dest / WEIGHTS)
    assert shipped.keys() == original.keys()
    for name, tensor in shipped.items():
        assert tensor.dtype == torch.bfloat16
        torch.testing.assert_close(tensor.float(), original[name], rtol=1e-2, atol=1e-2)
    assert (dest / CONFIG).read_text() == (src / CONFIG).read_text()
    assert (dest / WEIGHTS).stat().st_size < 0.6 * (src / WEIGHTS).stat().st_size


def test_export_names_the_missing_file(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(FileNotFoundError, match=r"run/adapter_config\.json"):
        export_adapter(tmp_path / "run", tmp_path / "out")


def test_the_shipped_adapter_is_small_described_and_servable():
    weights, config = SHIPPED / WEIGHTS, json.loads((SHIPPED / CONFIG).read_text())
    assert weights.stat().st_size <= 10 * 1024 * 1024
    card = (SHIPPED / "README.md").read_text()
    assert "base_model: HuggingFaceTB/SmolLM2-135M-Instruct" in card and "Silver" in card
    assert config["r"] in LORA_RANKS  # vLLM's --max-lora-rank accepts it
    tensors = safetensors_torch.load_file(weights)
    ranks = {t.shape[0] for name, t in tensors.items() if "lora_A" in name}
    assert ranks == {config["r"]}


def test_a_full_fine_tune_ships_as_the_lora_of_its_weight_change(tmp_path):
    """The extracted adapter's B @ A is the change, when the change has the adapter's rank."""
    import torch
    from safetensors.torch import load_file, save_file

    from training.export import extract_lora

    torch.manual_seed(0)
    name = "model.layers.0.self_attn.q_proj.weight"
    base = {name: torch.randn(12, 10), "model.norm.weight": torch.ones(10)}
    change = torch.randn(12, 2) @ torch.randn(2, 10) * 0.1  # rank 2
    full = {name: base[name] + change, "model.norm.weight": torch.ones(10) * 1.1}
    for folder, weights in (("base", base), ("full", full)):
        (tmp_path / folder).mkdir()
        save_file(weights, str(tmp_path / folder / "model.safetensors"))
    kept = extract_lora(tmp_path / "full", tmp_path / "base", tmp_path / "lora", rank=2)
    w = load_file(str(tmp_path / "lora" / "adapter_model.safetensors"))
    prefix = "base_model.model.model.layers.0.self_attn.q_proj"
    approx = w[f"{prefix}.lora_B.weight"].float() @ w[f"{prefix}.lora_A.weight"].float()
    assert kept > 0.999 and torch.allclose(approx, change, atol=2e-2)
    assert len(w) == 2  # norms are not linear layers: left out
    assert extract_lora(tmp_path / "full", tmp_path / "base", tmp_path / "r1", rank=1) < kept
