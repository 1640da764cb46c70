"""How likely a trained adapter is to leave: on each seat's first turn, and where the teacher leaves.

For each adapter, on Gold scenarios spread over the set (the observable teacher on every seat), the prompt a
seat sees is given to the adapter with the reply opened as ``{"action_type":"``, and the
probability of the next token being ``leave`` is read off, at the players' temperature. A
player that has learnt *when* to leave has a low value on first turns and a high one where the
scripted player leaves (its needs met, its facts shared). Runs in process on CPU.

    python benchmarks/leave_probe.py ADAPTER [ADAPTER ...] [--scenarios 8] [--temperature 0.7]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer

import scenarios
from sotopia_tom_env.llm.models import resolve_model
from training.data import teacher_turns

OPENING = '{"action_type":"'  # the reply up to the action type, as structured outputs write it


def leave_probabilities(adapter: str, picked: list, temperature: float) -> tuple[list, list]:
    """P(leave) on every seat's first turn, and on the turn where the teacher first leaves."""
    config = json.loads((Path(adapter) / "adapter_config.json").read_text())
    base = config["base_model_name_or_path"]
    if Path(base).is_absolute() and not Path(base).exists():  # the training machine's cache
        base = resolve_model()
    tok = AutoTokenizer.from_pretrained(base)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    model = PeftModel.from_pretrained(model, adapter).eval()
    leave = tok.encode("leave")[0]

    def p_leave(prompt: str) -> float:
        chat = [{"role": "user", "content": prompt}]
        text = tok.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
        with torch.no_grad():
            logits = model(**tok(text + OPENING, return_tensors="pt")).logits[0, -1]
        return float(torch.softmax(logits / temperature, -1)[leave])

    first, at_leave = [], []
    for s in picked:
        seen: set[str] = set()
        turns = teacher_turns(s)
        for turn, _ in turns:
            if turn.seat not in seen:
                seen.add(turn.seat)
                first.append(p_leave(turn.prompt))
        at_leave.append(next(p_leave(t.prompt) for t, a in turns if a.action_type == "leave"))
    return first, at_leave


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("adapters", nargs="+", help="adapter folders (training output_dir)")
    parser.add_argument("--scenarios", type=int, default=8, help="Gold scenarios, spread out")
    parser.add_argument("--temperature", type=float, default=0.7, help="the players' default")
    args = parser.parse_args()
    gold = scenarios.load("gold")
    picked = gold[:: max(1, len(gold) // args.scenarios)][: args.scenarios]
    print("adapter | first turns: median / max | where the teacher leaves: median / max")
    for adapter in args.adapters:
        first, at_leave = leave_probabilities(adapter, picked, args.temperature)
        print(
            f"{adapter} | {statistics.median(first):.3f} / {max(first):.3f} (n={len(first)})"
            f" | {statistics.median(at_leave):.3f} / {max(at_leave):.3f} (n={len(at_leave)})"
        )


if __name__ == "__main__":
    main()
