"""Wall time of one scripted bench with the local executor and with Ray, side by side.

The same run (Gold scenarios x scripted policies x seeds, rule judge, no LLM) is played once
in this process (``play_bench``) and once on a local Ray cluster (``play_bench_ray``), each into
a fresh folder; then the two folders must hold the same records, timing fields aside. The Ray
row splits the cluster's start from the bench itself; "first record" is when the first episode
was saved, which for Ray includes starting the worker processes.

    python benchmarks/bench_executors.py [--limit 5] [--seeds 50] [--max-turns 60]
        [--policies ideal,random,leaky,silent] [--workers 2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sotopia_tom_env
from rewards import RuleJudge
from sotopia_tom_app.bench.records import EPISODES_FILE, read_records
from sotopia_tom_app.bench.runner import BenchConfig, play_bench

# Fields that differ between any two runs of the same episode.
TIMING = {"wall_s", "finished_at"}


@dataclass
class Timing:
    """One executor's run: episodes saved and where its wall time went."""

    episodes: int
    start_s: float  # bringing the executor up (Ray: the cluster); 0 for the local one
    first_s: float  # from the start of play to the first saved record
    play_s: float  # from the start of play to the last saved record


def config(args: argparse.Namespace) -> BenchConfig:
    return BenchConfig(scenarios="gold", limit=args.limit, policies=args.policies.split(","),
                       seeds=list(range(args.seeds)), max_turns=args.max_turns)  # fmt: skip


class FirstRecord:
    """Progress callback noting when the first record was saved."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.first: float | None = None

    def __call__(self, _record: object) -> None:
        if self.first is None:
            self.first = time.perf_counter() - self.start


def run_local(cfg: BenchConfig, out: Path, concurrency: int) -> Timing:
    clock = FirstRecord()
    n = asyncio.run(play_bench(cfg, out, judge=RuleJudge(), concurrency=concurrency,
                               on_record=clock))  # fmt: skip
    return Timing(n, 0.0, clock.first or 0.0, time.perf_counter() - clock.start)


def run_ray(cfg: BenchConfig, out: Path, workers: int, concurrency: int) -> Timing:
    from sotopia_tom_app.bench.ray_executor import import_ray, play_bench_ray

    ray = import_ray()
    # The workers must import the same checkout as this process, whatever else is installed.
    root = str(Path(sotopia_tom_env.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": path}})  # fmt: skip
    start_s = time.perf_counter() - start
    try:
        clock = FirstRecord()
        n = play_bench_ray(cfg, out, workers=workers, concurrency=concurrency, on_record=clock)
        return Timing(n, start_s, clock.first or 0.0, time.perf_counter() - clock.start)
    finally:
        ray.shutdown()


def saved(out: Path) -> dict[str, dict[str, Any]]:
    """The records of ``out`` by episode id, timing fields left out."""
    records = [r.model_dump(mode="json") for r in read_records(out / EPISODES_FILE)]
    return {r["episode_id"]: {k: v for k, v in r.items() if k not in TIMING} for r in records}


def differences(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> list[str]:
    """Episode ids missing from one side or saved differently."""
    return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))


def table(rows: dict[str, Timing]) -> str:
    lines = ["| executor | episodes | start s | first record s | play s | total s | "
             "episodes/s (play) | episodes/s (total) |", "|---|" + "---:|" * 7]  # fmt: skip
    for name, t in rows.items():
        total = t.start_s + t.play_s
        lines.append(f"| {name} | {t.episodes} | {t.start_s:.1f} | {t.first_s:.1f} | "
                     f"{t.play_s:.1f} | {total:.1f} | {t.episodes / t.play_s:.1f} | "
                     f"{t.episodes / total:.1f} |")  # fmt: skip
    return "\n".join(lines)


def compare(cfg: BenchConfig, workers: int, concurrency: int) -> tuple[Timing, Timing, list[str]]:
    """Play ``cfg`` with both executors into fresh folders; (local, ray, differing ids)."""
    with tempfile.TemporaryDirectory() as tmp:
        local_out, ray_out = Path(tmp, "local"), Path(tmp, "ray")
        local = run_local(cfg, local_out, concurrency)
        ray = run_ray(cfg, ray_out, workers, concurrency)
        return local, ray, differences(saved(local_out), saved(ray_out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=5, help="Gold scenarios (one per sector)")
    parser.add_argument("--policies", default="ideal,random,leaky,silent")
    parser.add_argument("--seeds", type=int, default=50, help="seeds 0..N-1 per pair")
    parser.add_argument("--max-turns", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2, help="Ray worker processes")
    parser.add_argument("--concurrency", type=int, default=16, help="in flight (Ray: per worker)")
    args = parser.parse_args(argv)
    cfg = config(args)
    local, ray, diff = compare(cfg, args.workers, args.concurrency)

    print(f"{local.episodes} scripted episodes ({len(cfg.policies)} policies x {args.limit} "
          f"Gold scenarios x {args.seeds} seeds, max {args.max_turns} turns, rule judge), "
          f"{args.concurrency} in flight per process\n")  # fmt: skip
    print(table({"local": local, f"ray ({args.workers} workers)": ray}))
    print(f"\nRay / local wall time: {ray.play_s / local.play_s:.2f}x play, "
          f"{(ray.start_s + ray.play_s) / local.play_s:.2f}x with the cluster start")  # fmt: skip
    if diff:
        print(f"records differ for {len(diff)} episodes, e.g. {diff[:3]}", file=sys.stderr)
        return 1
    print(f"records: the same {local.episodes} episodes in both folders (timing fields aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
