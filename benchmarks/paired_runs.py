"""The paired difference of two results folders of one policy, scenario by scenario.

``sotopia-tom report DIR --paired A,B`` pairs two policies of one folder by name. Two runs of
the same policy that differ in something the name does not carry (``--player-options``, a
judge, the code between them) are two folders instead: this pairs the only policy of each over
the scenarios and seeds both played and prints the mean difference ``B - A`` of every metric and
of the episode reward, with its 95% bootstrap interval.

    python benchmarks/paired_runs.py runs/eval/sd48-shipped runs/eval/sd48-guard
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sotopia_tom_app.bench.records import read_episodes
from sotopia_tom_app.bench.report import paired_markdown
from sotopia_tom_app.bench.summary import paired_differences


def named_by_folder(run: Path) -> list:
    """The run's episodes, their policy renamed to the folder (each folder holds one policy)."""
    records = read_episodes(run / "episodes.jsonl")
    policies = {r.policy for r in records}
    if len(policies) != 1:
        raise SystemExit(f"{run}: expected the episodes of one policy, found {sorted(policies)}")
    return [
        r.model_copy(
            update={"policy": str(run), "model": None, "episode_id": f"{run}/{r.episode_id}"}
        )
        for r in records
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path, help="results folder of the baseline")
    parser.add_argument("b", type=Path, help="results folder compared with it")
    args = parser.parse_args()
    records = named_by_folder(args.a) + named_by_folder(args.b)
    paired = paired_differences(records, str(args.a), str(args.b))
    print(f"{args.b} - {args.a}, {paired['pairs']} pairs")
    print(paired_markdown(paired))


if __name__ == "__main__":
    main()
