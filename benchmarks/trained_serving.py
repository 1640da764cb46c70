"""Serving a trained adapter: LoRA on the base model's server against the adapter merged in.

The same batch of player prompts (the prompts seats see on Gold, structured outputs, greedy) is
sent to two local vLLM servers in turn, ``--concurrency`` at a time: one serving the base model
with the adapter loaded as LoRA (``--enable-lora``), one serving the adapter merged into the
base weights, as ``bench`` does. Prints the wall time, throughputs and their ratio.

    python benchmarks/trained_serving.py [--adapter training/adapters/cpu-small] [--prompts 48]
"""

from __future__ import annotations

import argparse
import asyncio
import time

import scenarios
from policies.trained import lora_server_args, merged_model, parse_trained
from sotopia_tom_env.actions import action_model
from sotopia_tom_env.llm import VLLMServer
from sotopia_tom_env.llm.models import resolve_model
from training.data import teacher_turns


async def _send(client, prompts: list[str], max_tokens: int) -> tuple[float, int, int]:
    """Wall seconds, prompt tokens and completion tokens for the whole batch."""
    schema = action_model(None)

    def ask(prompt: str):
        messages = [{"role": "user", "content": prompt}]
        return client.chat(messages, response_format=schema, temperature=0.0, max_tokens=max_tokens)

    started = time.perf_counter()
    out = await asyncio.gather(*(ask(p) for p in prompts))
    wall = time.perf_counter() - started
    return wall, sum(r.prompt_tokens for r in out), sum(r.completion_tokens for r in out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="training/adapters/cpu-small")
    parser.add_argument("--prompts", type=int, default=48)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()

    spec = parse_trained(f"trained:{args.adapter}")
    gold = scenarios.load("gold")
    turns = [t for s in gold[:: max(1, len(gold) // 12)] for t, _ in teacher_turns(s)]
    prompts = [t.prompt for t in turns[:: max(1, len(turns) // args.prompts)]][: args.prompts]
    base = resolve_model(None)
    servers = {
        "LoRA": VLLMServer(extra_args=lora_server_args([spec]), episodes=args.concurrency),
        "merged": VLLMServer(
            model=str(merged_model(spec, base)),
            served_name=spec.served_name,
            episodes=args.concurrency,
        ),
    }
    rows = {}
    for mode, server in servers.items():
        with server:
            client = server.client(max_concurrency=args.concurrency).with_model(spec.served_name)
            asyncio.run(_send(client, prompts[:4], args.max_tokens))  # warm-up
            rows[mode] = asyncio.run(_send(client, prompts, args.max_tokens))
    print(f"{len(prompts)} prompts, {args.concurrency} at a time, max {args.max_tokens} tokens")
    print(f"{'serving':<8} {'wall s':>8} {'prompt tok/s':>13} {'completion tok/s':>17}")
    for mode, (wall, p, c) in rows.items():
        print(f"{mode:<8} {wall:8.1f} {p / wall:13.0f} {c / wall:17.1f}")
    (lw, _, lc), (mw, _, mc) = rows["LoRA"], rows["merged"]
    print(f"merged / LoRA: {lw / mw:.2f}x less wall time, {(mc / mw) / (lc / lw):.2f}x tokens/s")


if __name__ == "__main__":
    main()
