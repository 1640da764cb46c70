"""Smoke test of benchmarks/bench_executors.py: a tiny bench with both executors, same records."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytestmark = pytest.mark.timeout(240)  # a stuck cluster fails the test instead of the suite

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_executors.py"


def load_script():
    """The script as a module (``benchmarks`` is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_executors", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # a Ray cluster takes 10-20 s to start on a busy machine
def test_both_executors_save_the_same_records(capsys):
    args = ["--limit", "2", "--policies", "ideal,random", "--seeds", "1", "--max-turns", "8"]
    assert load_script().main(args) == 0
    out = capsys.readouterr().out
    assert "| local | 4 |" in out and "| ray (2 workers) | 4 |" in out
    assert "records: the same 4 episodes" in out
