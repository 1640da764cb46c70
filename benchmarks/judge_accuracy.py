"""Rule-judge accuracy, precision and recall per metric on the labelled corpus.

python benchmarks/judge_accuracy.py [--corpus tests/data/judge_corpus.jsonl] [--misses]
"""

from __future__ import annotations

import argparse

from rewards import RuleJudge
from rewards.judges.corpus import evaluate, load_cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="tests/data/judge_corpus.jsonl")
    parser.add_argument("--misses", action="store_true", help="list the cases the judge gets wrong")
    args = parser.parse_args()
    report = evaluate(load_cases(args.corpus), RuleJudge())
    print(f"{'metric':<8}{'cases':>7}{'accuracy':>10}{'precision':>11}{'recall':>8}")
    for name, r in [*report["metrics"].items(), ("all", report["overall"])]:
        print(
            f"{name:<8}{r['n']:>7}{r['accuracy']:>10.3f}{r['precision']:>11.3f}{r['recall']:>8.3f}"
        )
    if args.misses:
        for m in report["misses"]:
            print(f"  {m['id']:<10} {m['note']:<40} label={m['label']} predicted={m['predicted']}")


if __name__ == "__main__":
    main()
