"""vLLM on CPU: OpenMP threads pinned to the cores against threads the kernel may move.

vLLM's CPU worker pins one OpenMP thread to each core of ``VLLM_CPU_OMP_THREADS_BIND``
(through ``GOMP_CPU_AFFINITY``, which also pins the worker's main thread to the first core
while it imports torch); ``nobind`` leaves placement to the kernel. This script starts the
local server each way on idle cores, beside one busy loop per core (another job on a shared
machine), and beside a second vLLM server that is pinned and answering requests (a bench and a
test run at once, or a player and a judge server), and sends the same batch of player prompts
to it. It prints the startup time, the batch's wall time and the ratios.

    python benchmarks/cpu_binding.py [--prompts 32] [--startup-timeout 300]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import scenarios
from sotopia_tom_env.actions import action_model
from sotopia_tom_env.llm import VLLMServer
from sotopia_tom_env.llm.server import ServerStartTimeout
from training.data import teacher_turns

PINNED = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))  # every core we may use
BESIDE = ("nothing", "busy loops", "a loaded vLLM server")


def _spin() -> None:
    while True:
        pass


async def _send(client, prompts: list[str], max_tokens: int) -> float:
    schema = action_model(None)

    def ask(p: str):
        messages = [{"role": "user", "content": p}]
        return client.chat(messages, response_format=schema, temperature=0.0, max_tokens=max_tokens)

    started = time.perf_counter()
    await asyncio.gather(*(ask(p) for p in prompts))
    return time.perf_counter() - started


@contextmanager
def _beside(what: str, prompts: list[str]) -> Iterator[None]:
    """Run ``what`` (one of BESIDE) for the block's duration."""
    if what == "busy loops":
        loops = [multiprocessing.Process(target=_spin, daemon=True) for _ in PINNED.split(",")]
        for p in loops:
            p.start()
        try:
            yield
        finally:
            for p in loops:
                p.kill()
                p.join()
    elif what == "a loaded vLLM server":
        os.environ["VLLM_CPU_OMP_THREADS_BIND"] = PINNED
        with VLLMServer(episodes=16) as other:
            stop = threading.Event()

            def load() -> None:
                client = other.client(max_concurrency=16, timeout_s=600)
                while not stop.is_set():
                    asyncio.run(_send(client, prompts, 64))

            worker = threading.Thread(target=load, daemon=True)
            worker.start()
            try:
                yield
            finally:
                stop.set()
                worker.join()
    else:
        yield


def _measure(binding: str, beside: str, prompts: list[str], args) -> tuple[float, float]:
    """Startup seconds and batch seconds of one server (inf when it did not start in time)."""
    with _beside(beside, prompts):
        os.environ["VLLM_CPU_OMP_THREADS_BIND"] = binding
        started = time.perf_counter()
        try:
            with VLLMServer(startup_timeout_s=args.startup_timeout, episodes=16) as server:
                startup = time.perf_counter() - started
                client = server.client(max_concurrency=16, timeout_s=600)
                return startup, asyncio.run(_send(client, prompts, args.max_tokens))
        except ServerStartTimeout:
            return float("inf"), float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--startup-timeout", type=float, default=300)
    args = parser.parse_args()

    gold = scenarios.load("gold")
    turns = [t for s in gold[:: max(1, len(gold) // 8)] for t, _ in teacher_turns(s)]
    prompts = [t.prompt for t in turns[:: max(1, len(turns) // args.prompts)]][: args.prompts]
    print(f"{len(prompts)} prompts, max_tokens {args.max_tokens}, {os.cpu_count()} cores")
    print(
        "| beside | pinned: startup s | batch s | nobind: startup s | batch s | batch pinned/nobind |"
    )
    print("|---|---|---|---|---|---|")
    for beside in BESIDE:
        (ps, pb), (ns, nb) = (_measure(b, beside, prompts, args) for b in (PINNED, "nobind"))
        print(
            f"| {beside} | {ps:.0f} | {pb:.1f} | {ns:.0f} | {nb:.1f} | {pb / nb:.2f}x |", flush=True
        )


if __name__ == "__main__":
    main()
