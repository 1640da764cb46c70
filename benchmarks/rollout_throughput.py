"""Rollout throughput against the local vLLM server: episodes one at a time vs many at once.

Prompted players (``basic`` by default) play Gold scenarios against one server with the
embedded default model: first ``--sequential`` episodes one at a time, then ``--episodes``
episodes concurrently (their LLM calls reach the server together and are batched). It prints,
for both runs, completion tokens per second and the prefix-cache hit rate (prompt tokens the
server found cached / prompt tokens, from its ``/metrics``), and the ratio of the two rates.
Tokens per second count the replies the players received; the server's own count of generated
tokens and the client's retries are printed next to them, since a reply that outruns the
client's deadline is generated, thrown away and asked for again.
Each agent's prompt extends its previous one, so a high hit rate means the server reads each
conversation once, not once per turn.

    python benchmarks/rollout_throughput.py [--episodes 16] [--sequential 4] [--max-turns 30]
        [--strategy basic] [--player-options aux_last] [--timeout 900] [--model PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass

import scenarios
from policies import PromptedPolicy, play_episode, play_many
from sotopia_tom_env.env import SotopiaToMEnv
from sotopia_tom_env.llm import VLLMServer


@dataclass
class Phase:
    """One run's totals."""

    episodes: int
    seconds: float
    completion_tokens: int  # in replies the players received
    generated_tokens: float  # by the server, including replies lost to a client timeout
    prompt_tokens: float
    cached_tokens: float
    retries: int  # attempts repeated after a timeout or a server error

    @property
    def rate(self) -> float:
        return self.completion_tokens / self.seconds

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / max(self.prompt_tokens, 1)


def run(
    server: VLLMServer, client, jobs: list[scenarios.Scenario], args, concurrency: int
) -> Phase:
    """Play ``jobs`` with at most ``concurrency`` episodes in flight and measure the server."""

    async def one(s: scenarios.Scenario):
        env = SotopiaToMEnv(scenarios=[s], max_turns=args.max_turns)
        return await play_episode(
            env,
            lambda a, sc: PromptedPolicy(a, client, args.strategy, options=args.options),
            scenario=s,
        )

    async def play_all() -> None:
        async for _, result in play_many(jobs, one, concurrency):
            if isinstance(result, BaseException):
                raise result

    stats = client.stats.as_dict()
    before, start = server.metrics(), time.perf_counter()
    asyncio.run(play_all())
    elapsed, after = time.perf_counter() - start, server.metrics()

    def delta(name: str) -> float:
        return after.get(name, 0.0) - before.get(name, 0.0)

    now = client.stats.as_dict()
    made, retries = (int(now[k] - stats[k]) for k in ("completion_tokens", "retries"))
    queried, hits = delta("vllm:prefix_cache_queries"), delta("vllm:prefix_cache_hits")
    return Phase(len(jobs), elapsed, made, delta("vllm:generation_tokens"), queried, hits, retries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=16, help="episodes played concurrently")
    parser.add_argument("--sequential", type=int, default=4, help="episodes played one at a time")
    parser.add_argument("--max-turns", type=int, default=30, help="steps per episode")
    parser.add_argument("--strategy", default="basic")
    parser.add_argument("--player-options", default="", help="comma-separated player options")
    parser.add_argument(
        "--timeout", type=float, default=900, help="client deadline of one LLM call, in seconds"
    )
    parser.add_argument(
        "--model", default=None, help="model folder or id (default: the embedded SmolLM2)"
    )
    args = parser.parse_args()
    args.options = [o for o in args.player_options.split(",") if o]
    jobs = scenarios.load("gold")[: args.episodes]
    with VLLMServer(model=args.model, episodes=args.episodes) as server:
        # A deadline long enough for CPU decoding: a retried reply is generated twice.
        client = server.client(max_concurrency=64, timeout_s=args.timeout)
        print(
            f"server ready in {server.startup_s:.0f} s; {args.strategy} players "
            f"{args.options or ''}, {args.max_turns} steps per episode"
        )
        warm = argparse.Namespace(**{**vars(args), "max_turns": 2})
        run(server, client, scenarios.load("gold")[-1:], warm, 1)  # compile, fill caches
        seq = run(server, client, jobs[: args.sequential], args, 1)
        par = run(server, client, jobs, args, args.episodes)
    print(
        f"{'mode':<15}{'episodes':>9}{'tokens':>8}{'generated':>10}{'retries':>8}"
        f"{'seconds':>9}{'tokens/s':>10}{'prefix hit':>12}"
    )
    for name, p in (("sequential", seq), (f"{args.episodes} concurrent", par)):
        print(
            f"{name:<15}{p.episodes:>9}{p.completion_tokens:>8}{p.generated_tokens:>10.0f}"
            f"{p.retries:>8}{p.seconds:>9.1f}{p.rate:>10.1f}{p.hit_rate:>11.0%}"
        )
    print(f"speed-up: {par.rate / seq.rate:.1f}x")


if __name__ == "__main__":
    main()
