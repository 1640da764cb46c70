"""Score only the labelled positions in TRL's fused LM head, on the CPU too.

TRL's SFT and GRPO trainers compute the per-token log-probabilities with a fused LM head
(``fused_lm_head=True``) that projects the hidden states onto the vocabulary in tiles. On
Triton devices it projects only the positions that carry a label; elsewhere it projects every
position, so that a compiler that specialises on shapes sees one shape a batch. Nothing is
compiled on the CPU, and there the projection of every prompt position onto the 49k-token
vocabulary (its backward pass, and the entropy the trainer logs) is more than a quarter of a
LoRA step, for a loss on a reply of about 60 of a turn's 1,000 tokens. Scoring the labelled
positions alone gives the same loss and the same gradients (``tests/test_training_fused_head.py``)
in 0.73x the step time (``benchmarks/sft_step.py``).

The switch is TRL's own test, ``trl.trainer.utils._use_triton``, read when a forward pass
decides whether to compact; ``trl`` is pinned, and the test above fails if that changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def score_labelled_positions_only() -> Iterator[None]:
    """Within the block, TRL's fused LM head scores only labelled positions on the CPU."""
    import trl.trainer.utils as trl_utils

    saved = trl_utils._use_triton
    # Only the compacting decision reads this name: the kernels pick their Triton path through
    # their own module's binding, so on the CPU they still run their PyTorch tiles.
    trl_utils._use_triton = lambda device: device.type == "cpu" or saved(device)
    try:
        yield
    finally:
        trl_utils._use_triton = saved
