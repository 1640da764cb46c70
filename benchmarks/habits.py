"""What a policy does in its transcripts: how much it says, repeats, asks late, and whether it leaves.

For each run folder (``sotopia-tom bench``) and each (policy, partners) in it, over the seats
it played (every seat in self-play, the tested seat in cross-play):

* ``msgs``: messages a seat sent; ``questions``: the share of them that ask something ("?");
* ``repeats``: the share that say word for word what the seat already said (case and spacing
  aside);
* ``left``: the share of seats that left before the episode ended;
* ``asked``: the seat's needed items the rule judge reads it asking for; ``late``: the share of
  those whose first ask came after the item had reached the seat (an ask that informs nobody,
  which the paper's IA still credits and the training reward does not);
* ``holder``: the share of asks for a needed item sent where its holder reads them;
* ``dm_only``: the share of the seat's public facts it may share that it stated only by direct
  message, never in public (the rule judge's DA credits a public fact only when every statement
  of it is public, so this is the part of that loss a public post would not have saved).

It reads what the judge reads (the rule judge's evidence per message), so it says where a
policy's IA and EFF come from: the transcripts, not the scores.

    python benchmarks/habits.py RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from rewards.judges.rule import RuleJudge
from scenarios import Scenario
from sotopia_tom_env.transcript import Transcript

COLUMNS = ("seats", "msgs", "questions", "repeats", "left", "asked", "late", "holder", "dm_only")


def seat_habits(scenario: Scenario, transcript: Transcript, evidence: list, seat: int) -> dict:
    """One seat's counts (see the module docstring)."""
    me = f"agent_{seat}"
    said = [e for e in evidence if e.message.sender == me and e.message.action_type == "speak"]
    texts = [" ".join(e.message.text.lower().split()) for e in said]
    first_ask: dict = {}
    arrived: dict = {}
    aimed = asks = 0
    channels: dict = defaultdict(set)  # an item the seat stated -> whether each statement was a DM
    for e in evidence:
        m = e.message
        if m.sender != me and m.visible_to(me):
            for ref in e.disclosed:
                arrived.setdefault(ref, m.step)
        if m.sender == me:
            for ref in e.disclosed:
                channels[ref].add(bool(m.recipients))
            for ref in e.requested & set(scenario.resolution.desired[seat]):
                first_ask.setdefault(ref, m.step)
                asks += 1
                aimed += not m.recipients or f"agent_{ref.agent}" in m.recipients
    late = sum(arrived.get(ref, step + 1) < step for ref, step in first_ask.items())
    facts = scenario.agents[seat].pre_interaction_knowledge
    public = [r for r in scenario.resolution.share[seat]
              if r is not None and scenario.resolution.may_share(r) and facts[r.name].sensitivity == "public"]  # fmt: skip
    return {
        "msgs": len(said),
        "questions": sum("?" in t for t in texts),
        "repeats": sum(t in texts[:k] for k, t in enumerate(texts)),
        "left": any(m.sender == me and m.action_type == "leave" for m in transcript.messages),
        "asked": len(first_ask),
        "late": late,
        "asks": asks,
        "aimed": aimed,
        "public": len(public),
        "dm_only": sum(channels.get(r) == {True} for r in public),
    }


def habits(runs: list[Path]) -> dict[tuple[str, str, str], dict[str, float]]:
    """(run folder name, policy, partners or "self") -> the columns of :data:`COLUMNS`."""
    judge = RuleJudge()
    seats: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for run in runs:
        with open(run / "episodes.jsonl", encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                scenario = Scenario.model_validate(record["scenario"])
                transcript = Transcript.model_validate(record["transcript"])
                evidence = judge.evidence_all(scenario, transcript)
                tested = [int(record["seat"].rsplit("_", 1)[1])] if record.get("partners") else (
                    range(len(scenario.agents))
                )  # fmt: skip
                key = (run.name, record["policy"], record.get("partners") or "self")
                seats[key] += [seat_habits(scenario, transcript, evidence, s) for s in tested]
    return {key: _row(rows) for key, rows in seats.items()}


def _row(rows: list[dict]) -> dict[str, float]:
    total = {k: sum(r[k] for r in rows) for k in rows[0]}
    msgs = max(total["msgs"], 1)
    return {
        "seats": len(rows),
        "msgs": total["msgs"] / len(rows),
        "questions": total["questions"] / msgs,
        "repeats": total["repeats"] / msgs,
        "left": total["left"] / len(rows),
        "asked": total["asked"] / len(rows),
        "late": total["late"] / max(total["asked"], 1),
        "holder": total["aimed"] / max(total["asks"], 1),
        "dm_only": total["dm_only"] / max(total["public"], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="sotopia-tom bench output folders")
    table = habits(parser.parse_args().runs)
    print("| run | policy | partners | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|" + "---|" * len(COLUMNS))
    for (run, policy, partners), row in table.items():
        cells = [f"{row[c]:.0f}" if c == "seats" else f"{row[c]:.2f}" for c in COLUMNS]
        print(f"| {run} | {policy} | {partners} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
