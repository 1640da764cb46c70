"""Rollout throughput against the local vLLM server: sequential episodes vs 16 at once.

The same set of short episodes (prompted ``basic`` players on Gold scenarios) is played twice
against one server with the embedded default model: one episode at a time, then 16 episodes
concurrently (their LLM calls reach the server together and are batched). It prints completion
tokens per second of both runs and their ratio.

    python benchmarks/rollout_throughput.py [--episodes 16] [--max-turns 6] [--model PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import time

import scenarios
from policies import PromptedPolicy, play_episode, play_many
from sotopia_tom_env.env import SotopiaToMEnv
from sotopia_tom_env.llm import VLLMServer


async def run(
    client, jobs: list[scenarios.Scenario], max_turns: int, concurrency: int
) -> tuple[float, int, float]:
    def tokens() -> int:
        return client.stats.as_dict()["completion_tokens"]

    async def one(s: scenarios.Scenario):
        env = SotopiaToMEnv(scenarios=[s], max_turns=max_turns)
        return await play_episode(env, lambda a, sc: PromptedPolicy(a, client, "basic"), scenario=s)

    before, start = tokens(), time.perf_counter()
    async for _, result in play_many(jobs, one, concurrency):
        if isinstance(result, BaseException):
            raise result
    elapsed = time.perf_counter() - start
    made = tokens() - before
    return made / elapsed, made, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--max-turns", type=int, default=6)
    parser.add_argument(
        "--model", default=None, help="model folder or id (default: the embedded SmolLM2)"
    )
    args = parser.parse_args()
    jobs = scenarios.load("gold")[: args.episodes]
    with VLLMServer(model=args.model) as server:
        client = server.client(max_concurrency=64)
        print(
            f"server ready in {server.startup_s:.0f} s; {len(jobs)} episodes of {args.max_turns} steps each"
        )
        asyncio.run(run(client, jobs[:1], 2, 1))  # warm-up: first requests compile and fill caches
        seq = asyncio.run(run(client, jobs, args.max_turns, 1))
        par = asyncio.run(run(client, jobs, args.max_turns, 16))
    print(f"{'mode':<14}{'tokens':>8}{'seconds':>9}{'tokens/s':>10}")
    for name, (rate, made, secs) in (("sequential", seq), ("16 concurrent", par)):
        print(f"{name:<14}{made:>8}{secs:>9.1f}{rate:>10.1f}")
    print(f"speed-up: {par[0] / seq[0]:.1f}x")


if __name__ == "__main__":
    main()
