"""Ship a trained player as a LoRA adapter: weights in bfloat16, its config and card.

Launch::

    python -m training.export runs/train/cpu-small training/adapters/cpu-small
    python -m training.export runs/train/sft-full-cpu-small runs/train/sft-full-lora --rank 32

A full fine-tune ships the same way, as a LoRA adapter extracted from its weight difference
(:func:`extract_lora`): the best rank-``r`` approximation (truncated SVD) of each linear
layer's change, which the benchmark serves like any other adapter.

Training keeps LoRA weights in float32 (bf16 autocast computes in bf16 but stores fp32);
the served model computes in bf16 anyway, so storing the weights in bf16 halves the file and
changes no served reply beyond bf16 rounding. A rank-16 adapter of SmolLM2-135M on all linear
layers is 19.5 MB in fp32 and 9.8 MB in bf16. The model card (``README.md``) is written by
hand and kept if the destination already has one.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from policies.trained import CARD

WEIGHTS = "adapter_model.safetensors"
CONFIG = "adapter_config.json"


def export_adapter(src: str | Path, dest: str | Path) -> Path:
    """Copy the adapter in ``src`` to ``dest`` with its floating-point weights in bf16.

    Raises:
        FileNotFoundError: naming the missing file when ``src`` is not an adapter folder.
    """
    import torch
    from safetensors.torch import load_file, save_file

    src, dest = Path(src), Path(dest)
    for name in (CONFIG, WEIGHTS):
        if not (src / name).is_file():
            raise FileNotFoundError(f"{src / name}: not found; pass a training.sft / training.grpo output_dir")  # fmt: skip
    tensors = load_file(src / WEIGHTS)
    tensors = {k: v.to(torch.bfloat16) if v.is_floating_point() else v for k, v in tensors.items()}
    dest.mkdir(parents=True, exist_ok=True)
    save_file(tensors, dest / WEIGHTS, metadata={"format": "pt"})
    shutil.copyfile(src / CONFIG, dest / CONFIG)
    if (src / CARD).is_file():
        shutil.copyfile(src / CARD, dest / CARD)
    return dest


TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
"""The linear layers an extracted adapter covers (the LoRA runs' ``all-linear``)."""


def extract_lora(full: str | Path, base: str | Path, dest: str | Path, rank: int) -> float:
    """Write a rank-``rank`` LoRA adapter of ``full``'s change from ``base``; the share kept.

    Each target layer's change ``W_full - W_base`` is replaced by its best rank-``rank``
    approximation ``B @ A`` (truncated SVD, split evenly between the two factors), with
    ``lora_alpha = rank`` so the scale is 1. Changes to other weights (embeddings, norms) are
    left out. Returns the share of the changes' squared norm the adapter keeps.
    """
    import torch
    from safetensors.torch import save_file

    full_w, base_w = _weights(Path(full)), _weights(Path(base))
    out, kept, total = {}, 0.0, 0.0
    for name, w in full_w.items():
        if not name.endswith(".weight") or name.split(".")[-2] not in TARGETS:
            continue
        delta = w.float() - base_w[name].float()
        u, sv, vh = torch.linalg.svd(delta, full_matrices=False)
        root = sv[:rank].sqrt()
        prefix = f"base_model.model.{name.removesuffix('.weight')}"
        out[f"{prefix}.lora_A.weight"] = (root[:, None] * vh[:rank]).to(torch.bfloat16).contiguous()
        out[f"{prefix}.lora_B.weight"] = (u[:, :rank] * root).to(torch.bfloat16).contiguous()
        kept, total = kept + float((sv[:rank] ** 2).sum()), total + float((sv**2).sum())
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    save_file(out, dest / WEIGHTS, metadata={"format": "pt"})
    config = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": rank, "lora_alpha": rank,
              "lora_dropout": 0.0, "bias": "none", "target_modules": list(TARGETS),
              "base_model_name_or_path": str(Path(base).resolve()), "inference_mode": True}  # fmt: skip
    (dest / CONFIG).write_text(json.dumps(config, indent=1))
    if (Path(full) / CARD).is_file():
        shutil.copyfile(Path(full) / CARD, dest / CARD)
    return kept / total if total else 1.0


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"{folder}: no *.safetensors weights")
    return {k: v for f in files for k, v in load_file(f).items()}


def main() -> None:
    """Command line: ``python -m training.export SRC DEST``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src", type=Path, help="the adapter folder a training stage saved")
    parser.add_argument("dest", type=Path, help="where to write the shipped adapter")
    parser.add_argument(
        "--rank", type=int, default=32, help="rank of an adapter extracted from a full fine-tune"
    )
    parser.add_argument(
        "--base", help="the base model of a full fine-tune (default: the embedded one)"
    )
    args = parser.parse_args()
    if (args.src / CONFIG).is_file():
        out = export_adapter(args.src, args.dest)
    else:
        from sotopia_tom_env.llm.models import resolve_model

        share = extract_lora(args.src, resolve_model(args.base), args.dest, args.rank)
        print(f"rank {args.rank} keeps {share:.1%} of the fine-tune's change (squared norm)")
        out = args.dest
    print(f"{out / WEIGHTS}: {(out / WEIGHTS).stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
