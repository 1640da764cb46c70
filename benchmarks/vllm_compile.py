"""vLLM on CPU: eager (the default here) vs compiled with torch.compile, on self-play work.

The servers this project starts pass ``--enforce-eager``: no torch.compile, so a server is up in
about half a minute. This measures what that costs a rollout. The observable teacher's Gold
episodes in the compact layout are replayed against one server as self-play is (the requests
of :mod:`rollout_format`: each turn's prompt, the teacher's reply length as the generation),
first on an eager server, then on a compiled one (``--no-enforce-eager``), ``--rounds`` times
each (the first round of a server fills its prefix cache). Prints each server's start-up time
and seconds per round, and the ratio of the rounds' medians.

    python benchmarks/vllm_compile.py [--episodes 16] [--max-turns 30] [--rounds 2]
"""

from __future__ import annotations

import asyncio
import statistics
import time

from rollout_format import episodes, replay, setup

from sotopia_tom_env.llm import VLLMServer

SERVERS = {"eager": (), "compiled": ("--no-enforce-eager",)}


def main() -> None:
    args, tokenizer = setup(__doc__.split("\n")[0])
    work = episodes(args.episodes, args.max_turns, tokenizer)["compact"]
    print(f"{sum(len(e) for e in work)} requests a round, {args.episodes} episodes in flight")
    print("server   | start-up, s | seconds per round")
    median = {}
    for name, extra in SERVERS.items():
        began = time.perf_counter()
        with VLLMServer(episodes=args.episodes, extra_args=extra) as server:
            startup = time.perf_counter() - began
            rounds = [asyncio.run(replay(server.base_url, server.model_name, work))
                      for _ in range(args.rounds)]  # fmt: skip
        median[name] = statistics.median(rounds)
        print(f"{name:8} | {startup:11.0f} | {', '.join(f'{s:.1f}' for s in rounds)}")
    print(f"compiled / eager: {median['eager'] / median['compiled']:.2f}x the requests per second")


if __name__ == "__main__":
    main()
