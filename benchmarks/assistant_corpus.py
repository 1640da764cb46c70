"""Rule-judge recall and false flags on messages written in the voices of chat assistants.

``benchmarks/data/assistant_corpus.jsonl`` holds messages written by hand, one row each, for a
sample of Gold and Silver scenarios (status updates, bold recaps, markdown tables, hedges,
replies to a question), labelled with the item they concern and one of

* ``leak``: the messages state the item's value (the judge must flag the item);
* ``careful``: the sender talks about the item, or says an unrelated thing in the same words or
  numbers, without stating any value (the judge must flag nothing);
* ``share``: the sender shares a shareable item (the judge must flag nothing else),

with, where the messages state another of the sender's items too, that item in ``also``, and
with the family of the issue it exercises (markdown, scale, dates, codes-names, split,
false-flags). The messages are sent, in order, by the agent in the row (the item's owner) in
public, as ``tests/leak_eval.py`` sends its leaks. Rows are split into ``dev`` (developed
against), ``test`` (written first, before any change to the judge, and scored at the end), and
four held-out parts on scenarios no other part uses, each written later and scored once before
the judge was changed against it (``heldout``; ``heldout2``, ``heldout3`` and ``heldout4``, written
blind by authors who never read the judge; docs/metrics.md).

    python benchmarks/assistant_corpus.py [--split dev|test|heldout|heldout2|heldout3|heldout4|all] [--misses] [--against TREE]

``--against`` scores the judge of another checkout on the same rows, in a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data" / "assistant_corpus.jsonl"
FAMILIES = ("markdown", "scale", "dates", "codes-names", "split", "false-flags")


def load(path: Path = DATA) -> list[dict]:
    """The corpus rows."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def flags(rows: list[dict]) -> list[list[str]]:
    """For each row, the names of the items the rule judge finds disclosed by its messages."""
    import scenarios
    from rewards.judges.rule import RuleJudge
    from sotopia_tom_env.transcript import Transcript

    lib = {s.id: s for group in ("gold", "silver") for s in scenarios.load(group)}
    judge = RuleJudge()
    out = []
    for row in rows:
        s = lib[row["scenario"]]
        t = Transcript(
            scenario_id=s.id, sector=s.sector, scenario_goal=s.scenario_goal, roles=s.roles
        )
        for text in row["messages"]:
            t.add_step([(f"agent_{row['agent']}", (), "speak", text)])
        found = set().union(*(ev.disclosed for ev in judge.evidence_all(s, t)))
        out.append(sorted(f"{r.agent}:{r.name}" for r in found))
    return out


def other_tree(tree: str, rows: list[dict]) -> list[list[str]]:
    """:func:`flags` computed by another checkout's judge."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); "
        "import assistant_corpus as a; print(json.dumps(a.flags(json.load(sys.stdin))))"
    )
    env = {**os.environ, "PYTHONPATH": tree}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, check=True,
                         input=json.dumps(rows), capture_output=True, text=True)  # fmt: skip
    return json.loads(out.stdout.splitlines()[-1])


def wrong(row: dict, found: list[str]) -> bool:
    """Whether the judge got the row wrong (a leak missed, or a flag it should not raise).

    ``also`` names the sender's other items whose values the messages state as well (a recap
    that gives two of its figures): flagging those is right, whatever the row's label.
    """
    own = f"{row['agent']}:{row['item']}"
    if row["label"] == "leak":
        return own not in found
    right = {own} if row["label"] == "share" else set()
    right |= {f"{row['agent']}:{item}" for item in row.get("also", ())}
    return any(f not in right for f in found)


def table(rows: list[dict], found: list[list[str]]) -> dict[str, dict[str, list[int]]]:
    """Per family: [cases, judged wrong] for leaks, careful and share messages."""
    out: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row, f in zip(rows, found, strict=True):
        cell = out[row["family"]][row["label"]]
        cell[0] += 1
        cell[1] += wrong(row, f)
    return out


def report(rows: list[dict], found: list[list[str]], base: list[list[str]] | None) -> None:
    mine, old = table(rows, found), table(rows, base) if base else None
    head = f"{'family':<14}{'leaks':>7}{'recall':>8}{'careful':>9}{'flagged':>9}{'share':>7}"
    head += f"{'flagged':>9}" + (f"{'recall (other)':>16}{'flagged (other)':>17}" if old else "")
    print(head)
    totals = defaultdict(lambda: [0, 0])
    for fam in [*FAMILIES, *sorted(set(mine) - set(FAMILIES))]:
        cells = mine.get(fam, {})
        leak, careful, share = (cells.get(k, [0, 0]) for k in ("leak", "careful", "share"))
        for k, c in (("leak", leak), ("careful", careful), ("share", share)):
            totals[k][0] += c[0]
            totals[k][1] += c[1]
        line = (f"{fam:<14}{leak[0]:>7}{_rate(leak, True):>8}{careful[0]:>9}"
                f"{_rate(careful):>9}{share[0]:>7}{_rate(share):>9}")  # fmt: skip
        if old:
            o = old.get(fam, {})
            neg = [sum(o.get(k, [0, 0])[i] for k in ("careful", "share")) for i in (0, 1)]
            line += f"{_rate(o.get('leak', [0, 0]), True):>16}{_rate(neg):>17}"
        print(line)
    leak, careful, share = totals["leak"], totals["careful"], totals["share"]
    print(f"{'all':<14}{leak[0]:>7}{_rate(leak, True):>8}{careful[0]:>9}{_rate(careful):>9}"
          f"{share[0]:>7}{_rate(share):>9}")  # fmt: skip


def _rate(cell: list[int], recall: bool = False) -> str:
    cases, bad = cell
    if not cases:
        return "-"
    return f"{(cases - bad) / cases if recall else bad / cases:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split",
        default="dev",
        choices=["dev", "test", "heldout", "heldout2", "heldout3", "heldout4", "all"],
    )
    parser.add_argument("--misses", action="store_true", help="print every row judged wrong")
    parser.add_argument("--against", help="another checkout whose judge to compare")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    rows = [r for r in load(args.data) if args.split in ("all", r["split"])]
    found = flags(rows)
    base = other_tree(args.against, rows) if args.against else None
    print(f"split: {args.split} ({len(rows)} rows)")
    report(rows, found, base)
    if args.misses:
        for row, f in zip(rows, found, strict=True):
            if wrong(row, f):
                text = " | ".join(row["messages"]).replace("\n", "\\n")
                print(f"  {row['family']:<12} {row['label']:<8} {row['scenario']} "
                      f"[{row['item']}] {text[:150]!r} -> {f}")  # fmt: skip


if __name__ == "__main__":
    main()
