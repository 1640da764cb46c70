"""A newcomer's first episode: each prompted strategy plays one short episode from a cold server.

For each strategy it runs, in a fresh process, what a new user types first,

    sotopia-tom run --scenarios tiny --policy STRATEGY --judge rule --seed 0 --max-turns 6 --json

(with ``--out`` to a temporary folder, so the episode can be read back). The wall time therefore
includes Python's start, starting the local vLLM server with the embedded default model,
playing, judging and stopping the server. The model's one-time conversion (GGUF to a model
folder, about 30 s on first use) is done before the first timing. From the saved episode it
prints, per call purpose (action, coach note, state record init and update): the calls, the
tokens generated, the longest reply, the budget sent and the replies cut by it; and the load
average around each run, since on a shared machine the times move with it.

    python benchmarks/first_run.py [--strategies basic,cot,...] [--max-tokens auto]
        [--max-turns 6] [--model PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from policies import STRATEGIES
from sotopia_tom_env.llm import default_model_dir

PURPOSES = ("action", "coach", "state_init", "state_update")


def play(strategy: str, args: argparse.Namespace) -> tuple[float, dict[str, Any] | None]:
    """Run the command for one strategy; its wall time and the episode it saved (None: failed)."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "sotopia_tom_app.cli", "run", "--scenarios", "tiny",
                   "--policy", strategy, "--judge", "rule", "--seed", "0",
                   "--max-turns", str(args.max_turns), "--max-tokens", args.max_tokens,
                   "--json", "--out", out]  # fmt: skip
        if args.model:
            command += ["--model", args.model]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if done.returncode != 0:  # say why, and go on with the other strategies
            print(f"{strategy}: exit {done.returncode}\n{done.stderr[-3000:]}", file=sys.stderr)
            return wall, None
        line = (Path(out) / "episodes.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return wall, json.loads(line)


def per_purpose(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Calls, tokens, the longest reply, the budgets sent and the cut replies, per purpose."""
    seen: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"calls": 0, "tokens": 0, "longest": 0, "budgets": set(), "cut": 0}
    )
    for turn in record["turn_log"]:
        for call in turn.get("calls") or ():
            row, tokens = seen[call["purpose"]], call.get("completion_tokens", 0)
            row["calls"] += 1
            row["tokens"] += tokens
            row["longest"] = max(row["longest"], tokens)
            row["budgets"].add(call.get("max_tokens"))
            row["cut"] += call.get("finish_reason") == "length"
    return seen


def cell(rows: dict[str, dict[str, Any]], key: str) -> str:
    """One column's values for the purposes a strategy used, e.g. ``12 / 3 / -``."""
    values = []
    for p in PURPOSES:
        if p not in rows:
            values.append("-")
        elif key == "budgets":
            values.append(
                ",".join("none" if b is None else str(b) for b in sorted(rows[p][key], key=str))
            )
        else:
            values.append(f"{rows[p][key]:,}")
    return " / ".join(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--max-tokens", default="auto", help="passed to `run` (auto, none, N)")
    parser.add_argument("--max-turns", type=int, default=6)
    parser.add_argument("--model", default=None, help="default: the embedded SmolLM2-135M")
    args = parser.parse_args()
    if args.model is None:
        default_model_dir()  # the one-time conversion is not part of any strategy's time
    print(f"{os.cpu_count()} cores; `run --max-turns {args.max_turns} --max-tokens "
          f"{args.max_tokens}`; per purpose: action / coach / state init / state update")  # fmt: skip
    print("| strategy | wall s | episode s | steps | calls | tokens generated | longest reply "
          "| budget | cut by budget | load before, after |")  # fmt: skip
    print("|---|---:|---:|---:|---|---|---|---|---|---|")
    for strategy in args.strategies.split(","):
        load = os.getloadavg()[0]
        wall, record = play(strategy, args)
        if record is None:
            print(f"| {strategy} | {wall:.0f} | failed (see stderr) |", flush=True)
            continue
        rows = per_purpose(record)
        print(f"| {strategy} | {wall:.0f} | {record['wall_s']:.0f} | {len(record['turn_log'])} "
              f"| {cell(rows, 'calls')} | {cell(rows, 'tokens')} | {cell(rows, 'longest')} "
              f"| {cell(rows, 'budgets')} | {cell(rows, 'cut')} "
              f"| {load:.1f}, {os.getloadavg()[0]:.1f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
