"""Training on CPU without paying the kernel for the same memory at every step.

A CPU training step allocates a few very large buffers (logits over the 49k-token vocabulary,
attention scores) and frees them. glibc malloc, and jemalloc at its default decay, hand such
blocks back to the kernel, which zero-fills them again on the next step: a third of the SFT
process's CPU time went to the kernel (``docs/performance.md``). jemalloc told to keep freed
pages reuses them instead (2% kernel time), but then resident memory climbs without bound,
because batches of varying length leave free extents it does not reuse.
:class:`PurgeRetainedPages` hands them back after each optimiser step, once its micro-batches
have reused them: 16% kernel time, memory bounded. ``make train`` sets this up when jemalloc
is installed::

    LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 sotopia-tom train ...

Without jemalloc loaded the callback does nothing.
"""

from __future__ import annotations

import ctypes
from typing import Any

from transformers import TrainerCallback

PURGE_EVERY = 1  # optimiser steps between purges: a step of micro-batches reuses its pages, memory stays bounded
_ALL_ARENAS = b"arena.4096.purge"  # MALLCTL_ARENAS_ALL


def jemalloc_mallctl() -> Any:
    """The ``mallctl`` of jemalloc when it is this process's allocator, else ``None``."""
    return getattr(ctypes.CDLL(None), "mallctl", None)


class PurgeRetainedPages(TrainerCallback):
    """Every ``every`` optimiser steps, return jemalloc's free pages to the system."""

    def __init__(self, every: int = PURGE_EVERY) -> None:
        self.every = every
        self.mallctl = jemalloc_mallctl()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Purge all arenas on every ``every``-th step."""
        if self.mallctl is not None and state.global_step % self.every == 0:
            self.mallctl(_ALL_ARENAS, None, None, None, ctypes.c_size_t(0))
