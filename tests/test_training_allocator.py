"""The purge callback: returns jemalloc's kept pages every few steps, and is inert without it."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

pytest.importorskip("transformers")

from training.allocator import PurgeRetainedPages, jemalloc_mallctl

JEMALLOC = next(iter(sorted(glob.glob("/usr/lib/*/libjemalloc.so.2"))), None)

_CHILD = """
import sys
from types import SimpleNamespace
from training.allocator import PurgeRetainedPages

def rss_mb():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 1e6

callback = PurgeRetainedPages(every=5)
assert callback.mallctl is not None, "jemalloc not loaded"
blocks = [bytearray(50_000_000) for _ in range(10)]  # 500 MB written, then freed
del blocks
kept = rss_mb()
callback.on_step_end(None, SimpleNamespace(global_step=3), None)
not_yet = rss_mb()
callback.on_step_end(None, SimpleNamespace(global_step=5), None)
print(kept, not_yet, rss_mb())
"""


def test_without_jemalloc_the_callback_does_nothing():
    if jemalloc_mallctl() is not None:
        pytest.skip("this test process runs on jemalloc")
    callback = PurgeRetainedPages(every=1)
    assert callback.mallctl is None
    callback.on_step_end(None, SimpleNamespace(global_step=1), None)  # no error, no effect


@pytest.mark.skipif(JEMALLOC is None, reason="libjemalloc2 is not installed")
def test_with_jemalloc_kept_pages_go_back_on_purge_steps_only():
    env = dict(os.environ, LD_PRELOAD=JEMALLOC, MALLOC_CONF="dirty_decay_ms:-1,muzzy_decay_ms:-1")
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True,
                         timeout=120, check=True)  # fmt: skip
    kept, not_yet, purged = map(float, out.stdout.split())
    assert kept > 400 and not_yet > 400, "freed pages should stay resident between purges"
    assert purged < kept - 400, "a purge step should return them"
