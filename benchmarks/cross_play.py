"""Cross-play against self-play, seat by seat: what a policy keeps beside partners it never met.

A cross-play run (``sotopia-tom bench --partners P``) scores the tested seat alone, while a
self-play run's report scores the whole scenario, so their InfoMgmt rows do not compare. This
reads the per-seat scores (DA, IA and InfoMgmt of each agent) from the runs' ``episodes.jsonl``
and, for every (policy, partners) pair, sets each tested seat beside the same seat of the same
scenario in the policy's self-play: the means of both, the paired difference of InfoMgmt with
its 95% bootstrap interval, and the share of its self-play score the policy keeps.

    python benchmarks/cross_play.py SELF_PLAY_DIR CROSS_PLAY_DIR [CROSS_PLAY_DIR ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from sotopia_tom_app.bench.summary import bootstrap_ci

Seat = tuple[str, int]  # (scenario id, agent index)


def seat_scores(run: Path) -> dict[tuple[str, str], dict[Seat, dict[str, float]]]:
    """(policy, partners or "self") -> seat -> that agent's scores, from one results folder."""
    out: dict[tuple[str, str], dict[Seat, dict[str, float]]] = defaultdict(dict)
    with open(run / "episodes.jsonl", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            agents = list((record["scores"].get("per_agent") or {}).values())
            if not agents:  # a judge failure scores no seat
                continue
            sid = record["scenario"]["scenario_id"]
            if record.get("partners"):
                seat = int(record["seat"].rsplit("_", 1)[1])
                out[(record["policy"], record["partners"])][(sid, seat)] = agents[seat]
            else:
                for seat, scores in enumerate(agents):
                    out[(record["policy"], "self")][(sid, seat)] = scores
    return out


def rows(runs: list[Path]) -> list[str]:
    """One markdown row per (policy, partners) that has self-play seats to compare with."""
    cells: dict[tuple[str, str], dict[Seat, dict[str, float]]] = defaultdict(dict)
    for run in runs:
        for key, seats in seat_scores(run).items():
            cells[key].update(seats)
    lines = []
    for (policy, partners), seats in cells.items():
        own = cells.get((policy, "self"), {})
        common = [s for s in seats if s in own]
        if partners == "self" or not common:
            continue
        line = [policy, partners, str(len(common))]
        for m in ("da", "ia", "cm"):
            cross = statistics.mean(seats[s][m] for s in common)
            line.append(f"{cross:.3f} / {statistics.mean(own[s][m] for s in common):.3f}")
        diff = [seats[s]["cm"] - own[s]["cm"] for s in common]
        low, high = bootstrap_ci(diff)
        line.append(f"{statistics.mean(diff):+.3f} [{low:+.2f}, {high:+.2f}]")
        base = statistics.mean(own[s]["cm"] for s in common)
        kept = statistics.mean(seats[s]["cm"] for s in common) / base if base else float("nan")
        line.append(f"{kept:.0%}")
        lines.append("| " + " | ".join(line) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="results folders of sotopia-tom bench")
    args = parser.parse_args()
    print("| policy | partners | seats | DA: cross / self | IA: cross / self | "
          "InfoMgmt: cross / self | InfoMgmt, cross - self | kept |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows(args.runs)))


if __name__ == "__main__":
    main()
