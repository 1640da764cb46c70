"""Ship a trained LoRA adapter: its weights in bfloat16 and its config, nothing else.

Launch::

    python -m training.export runs/train/cpu-small training/adapters/cpu-small

Training keeps LoRA weights in float32 (bf16 autocast computes in bf16 but stores fp32);
the served model computes in bf16 anyway, so storing the weights in bf16 halves the file and
changes no served reply beyond bf16 rounding. A rank-16 adapter of SmolLM2-135M on all linear
layers is 19.5 MB in fp32 and 9.8 MB in bf16. The model card (``README.md``) is written by
hand and kept if the destination already has one.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

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
    return dest


def main() -> None:
    """Command line: ``python -m training.export SRC DEST``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src", type=Path, help="the adapter folder a training stage saved")
    parser.add_argument("dest", type=Path, help="where to write the shipped adapter")
    args = parser.parse_args()
    out = export_adapter(args.src, args.dest)
    print(f"{out / WEIGHTS}: {(out / WEIGHTS).stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
