"""Bench memory vs episodes requested, and memory per episode in flight.

1. Peak RSS of ``play_bench`` asked for 100, 1,000 and 10,000 scripted episodes (Gold
   scenarios, ``ideal``/``random``/``leaky``/``silent`` players, rule judge), each in a fresh
   process so the peaks do not mix. ``--play N`` stops each run after N saved episodes: the
   runner draws jobs only as slots free up, so what is *requested* should not move the peak.
2. Memory per episode in flight: tracemalloc's peak while playing the same episodes with 1 and
   with 64 in flight, the difference divided by 63.

Local vs Ray wall time is ``benchmarks/bench_executors.py``.

    python benchmarks/bench_memory.py [--play 1000] [--max-turns 6]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from rewards import RuleJudge
from sotopia_tom_app.bench.runner import BenchConfig, play_bench

POLICIES = ["ideal", "random", "leaky", "silent"]
SCENARIOS = 5  # Gold scenarios, one per sector: 20 episodes per seed
REQUESTED = (100, 1_000, 10_000)


class Enough(Exception):
    """Raised from the progress callback to stop a run after ``--play`` episodes."""


def config(requested: int, max_turns: int) -> BenchConfig:
    seeds = list(range(requested // (SCENARIOS * len(POLICIES))))
    return BenchConfig(scenarios="gold", limit=SCENARIOS, policies=POLICIES, seeds=seeds,
                       max_turns=max_turns)  # fmt: skip


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def play(cfg: BenchConfig, stop_after: int, concurrency: int) -> tuple[int, float]:
    """Play ``cfg`` into a fresh folder until ``stop_after`` episodes; (played, seconds)."""
    played = 0

    def count(_record: object) -> None:
        nonlocal played
        played += 1
        if played >= stop_after:
            raise Enough

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as out, contextlib.suppress(Enough):
        asyncio.run(play_bench(cfg, Path(out), judge=RuleJudge(), concurrency=concurrency,
                               on_record=count))  # fmt: skip
    return played, time.perf_counter() - start


def child(args: argparse.Namespace) -> None:
    """One measurement in this (fresh) process, printed as JSON."""
    cfg = config(args.child, args.max_turns)
    before = peak_rss_mb()  # after imports and the scenario set: what every run pays
    if args.trace:
        tracemalloc.start()
    played, secs = play(cfg, args.play, args.concurrency)
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if args.trace else 0.0
    print(json.dumps({"requested": args.child, "played": played, "seconds": secs,
                      "before_mb": before, "peak_mb": peak_rss_mb(), "traced_mb": traced}))  # fmt: skip


def measure(requested: int, play_n: int, max_turns: int, concurrency: int, trace: bool) -> dict:
    cmd = [sys.executable, __file__, "--child", str(requested), "--play", str(play_n),
           "--max-turns", str(max_turns), "--concurrency", str(concurrency)]  # fmt: skip
    run = subprocess.run(cmd + ["--trace"] * trace, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--play", type=int, default=1000, help="stop each run after N episodes")
    parser.add_argument("--max-turns", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)

    print(f"peak RSS by episodes requested (each run stops after {args.play} saved, "
          f"{args.concurrency} in flight, max {args.max_turns} turns)")  # fmt: skip
    print(f"{'requested':>10}{'played':>8}{'seconds':>9}{'RSS before':>12}{'peak RSS':>10}")
    for n in REQUESTED:
        r = measure(n, args.play, args.max_turns, args.concurrency, trace=False)
        print(f"{n:>10,}{r['played']:>8}{r['seconds']:>9.1f}"
              f"{r['before_mb']:>9.0f} MB{r['peak_mb']:>7.0f} MB")  # fmt: skip

    one, many = (measure(256, 256, args.max_turns, c, trace=True) for c in (1, 64))
    per = (many["traced_mb"] - one["traced_mb"]) / 63
    print(f"\ntraced peak with 1 in flight {one['traced_mb']:.1f} MB, with 64 "
          f"{many['traced_mb']:.1f} MB: {per * 1024:.0f} KB per episode in flight")  # fmt: skip


if __name__ == "__main__":
    main()
