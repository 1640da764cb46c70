"""Self-play rollout speed through the local vLLM server: the compact layout vs the paper's.

What a student's self-play episode costs the server is reading each turn's prompt and writing
its reply. To compare the two prompt layouts on exactly the same work, the observable teacher
plays Gold episodes offline (every seat, up to ``--max-turns``), and each of its turns becomes a
request: that turn's prompt in one layout, with the teacher's reply length as the generation
(``max_tokens`` = its reply's tokens, end of sequence ignored). The episodes are then replayed
against one server as self-play is: ``--episodes`` in flight, the turns of an episode one after
another. The layouts alternate (``--rounds`` times each, paper first), and the script prints
episodes per hour for each, the median prompt tokens, and the ratio.

    python benchmarks/rollout_format.py [--episodes 16] [--max-turns 30] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import httpx

import scenarios
from sotopia_tom_env.llm import VLLMServer
from training.data import example, teacher_turns

LAYOUTS = {"paper": (), "compact": ("compact",)}

Turn = tuple[str, int]  # (prompt, reply tokens)


def episodes(n: int, max_turns: int, tokenizer) -> dict[str, list[list[Turn]]]:
    """``n`` Gold teacher episodes per layout: each turn's prompt and its reply's token count."""
    gold = scenarios.load("gold")
    chosen = gold[:: max(1, len(gold) // n)][:n]
    out: dict[str, list[list[Turn]]] = {}
    for name, options in LAYOUTS.items():
        out[name] = [
            [(turn.prompt, len(tokenizer(_reply(turn, action, s.roles, options)).input_ids))
             for turn, action in teacher_turns(s, max_turns=max_turns, options=options)]
            for s in chosen
        ]  # fmt: skip
    return out


def _reply(turn, action, roles, options) -> str:
    """The teacher's reply as that layout's training example writes it (ids in the compact one)."""
    return example(turn, action, roles, options)["completion"][0]["content"]


async def replay(url: str, model: str, eps: list[list[Turn]]) -> float:
    """Seconds to play every episode at once, each episode's turns in order."""
    async with httpx.AsyncClient(timeout=3600) as http:

        async def one(turns: list[Turn]) -> None:
            for prompt, n in turns:
                body = {"model": model, "messages": [{"role": "user", "content": prompt}],
                        "max_tokens": n, "min_tokens": n, "ignore_eos": True, "temperature": 0.7}  # fmt: skip
                (await http.post(f"{url}/chat/completions", json=body)).raise_for_status()

        start = time.perf_counter()
        await asyncio.gather(*(one(t) for t in eps))
        return time.perf_counter() - start


def setup(description: str) -> tuple[argparse.Namespace, Any]:
    """The command line of a replay benchmark, and the embedded model's tokenizer."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--max-turns", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    from transformers import AutoTokenizer

    from sotopia_tom_env.llm.models import default_model_dir

    return parser.parse_args(), AutoTokenizer.from_pretrained(default_model_dir())


def main() -> None:
    """Measure, alternating layouts, and print episodes per hour side by side."""
    args, tok = setup(__doc__.split("\n")[0])
    eps = episodes(args.episodes, args.max_turns, tok)
    seconds: dict[str, list[float]] = {name: [] for name in LAYOUTS}
    with VLLMServer(episodes=args.episodes) as server:
        for _ in range(args.rounds):
            for name in LAYOUTS:
                seconds[name].append(
                    asyncio.run(replay(server.base_url, server.model_name, eps[name]))
                )
    print("layout  | median prompt tokens | seconds per round | episodes per hour")
    rate = {}
    for name in LAYOUTS:
        tokens = statistics.median(len(tok(p).input_ids) for e in eps[name] for p, _ in e)
        rate[name] = args.episodes * 3600 / statistics.median(seconds[name])
        print(
            f"{name:7} | {tokens:20.0f} | {', '.join(f'{s:.0f}' for s in seconds[name]):>17} | {rate[name]:.0f}"
        )
    print(f"compact / paper: {rate['compact'] / rate['paper']:.2f}x episodes per hour")


if __name__ == "__main__":
    main()
