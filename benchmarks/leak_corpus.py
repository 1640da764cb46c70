"""Rule-judge recall per leak class and false flags per hard-negative class (tests/leak_eval.py).

Every restricted item of Gold (and of a seeded sample of Silver scenarios) is leaked in every
class that fits its details; hard negatives state no value. For a leak class the table gives
the cases, recall (the item found) and precision (the share of flagged items that are the
case's own item); for a negative class, the share of cases with any item flagged.

    python benchmarks/leak_corpus.py [--silver 40] [--misses 3] [--against /path/to/other/tree]

``--against`` also runs the judge of another checkout (e.g. ``git worktree add /tmp/base HEAD``)
over the same cases, in a subprocess, and prints its recall next to this one's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _corpus_module():
    sys.path.insert(0, str(ROOT / "tests"))
    import leak_eval  # tests/ is on the path only for this script

    return leak_eval


def make_cases(silver: int, seed: int) -> dict[str, list]:
    """The corpus of Gold and of ``silver`` sampled Silver scenarios."""
    import scenarios

    sample = random.Random(seed).sample(scenarios.load("silver"), silver) if silver else []
    groups = {"gold": scenarios.load("gold"), "silver": sample}
    return {name: _corpus_module().corpus(group, seed) for name, group in groups.items() if group}


def judge_rows(cases: dict[str, list]) -> dict[str, list[dict]]:
    """Per group, one row per class: cases, recall or flagged share, precision, misses."""
    lw = _corpus_module()
    out = {}
    for group, group_cases in cases.items():
        res = lw.evaluate(group_cases)
        out[group] = [
            {"kind": k, "cases": t.cases, "rate": t.rate, "precision": t.precision,
             "negative": k in lw.NEGATIVE_CLASSES, "misses": [c.messages for c in t.misses]}
            for k, t in sorted(res.items())
        ]  # fmt: skip
    return out


def other_tree(path: str, cases: dict[str, list]) -> dict[str, list[dict]]:
    """The same rows for the same messages, judged by another checkout's judge."""
    dump = {g: [[c.scenario.id, c.ref.agent, c.ref.name, c.kind, c.messages, c.leak] for c in cs]
            for g, cs in cases.items()}  # fmt: skip
    code = f"""
import json, sys
sys.path.insert(0, {str(ROOT / "benchmarks")!r})
import leak_corpus, scenarios
from scenarios import ItemRef
lw = leak_corpus._corpus_module()
dump = json.load(sys.stdin)
lib = {{s.id: s for g in ("gold", "silver") for s in scenarios.load(g)}}
cases = {{g: [lw.Case(lib[sid], ItemRef(a, n), k, tuple(m), leak) for sid, a, n, k, m, leak in cs]
         for g, cs in dump.items()}}
print(json.dumps(leak_corpus.judge_rows(cases)))
"""
    env = {**os.environ, "PYTHONPATH": path}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=path, check=True,
                         input=json.dumps(dump), capture_output=True, text=True)  # fmt: skip
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--silver", type=int, default=40, help="Silver scenarios sampled")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--misses", type=int, default=0, help="missed cases shown per class")
    parser.add_argument("--against", help="another checkout whose judge to compare")
    args = parser.parse_args()
    cases = make_cases(args.silver, args.seed)
    mine = judge_rows(cases)
    base = other_tree(args.against, cases) if args.against else {}
    for group, table in mine.items():
        old = {r["kind"]: r for r in base.get(group, [])}
        print(f"\n{group}: {'class':<28}{'cases':>7}{'recall/flagged':>16}{'precision':>11}"
              + (f"{'other tree':>12}" if old else ""))  # fmt: skip
        for negative in (False, True):
            for r in (r for r in table if r["negative"] == negative):
                prec = "" if negative else f"{r['precision']:.3f}"
                extra = f"{old[r['kind']]['rate']:>12.3f}" if r["kind"] in old else ""
                print(f"{'':8}{r['kind']:<28}{r['cases']:>7}{r['rate']:>16.3f}{prec:>11}{extra}")
                for messages in r["misses"][: args.misses]:
                    print(f"{'':12}{' | '.join(messages)!r}"[:220])
        leaks = [r for r in table if not r["negative"]]
        negs = [r for r in table if r["negative"] and r["kind"] not in _corpus_module().KNOWN_GAPS]
        caught = sum(r["rate"] * r["cases"] for r in leaks) / sum(r["cases"] for r in leaks)
        flagged = sum(r["rate"] * r["cases"] for r in negs) / sum(r["cases"] for r in negs)
        print(f"{'':8}{'all leaks':<28}{sum(r['cases'] for r in leaks):>7}{caught:>16.4f}")
        label = "negatives bar known gaps"
        print(f"{'':8}{label:<28}{sum(r['cases'] for r in negs):>7}{flagged:>16.4f}")


if __name__ == "__main__":
    main()
