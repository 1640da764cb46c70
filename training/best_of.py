"""RL by self-imitation: the student's above-average self-play episodes, seat by seat.

Launch::

    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml --stage best-of-cpu-small
    # then SFT on its selection: the variant sft-best-of-cpu-small (docs/training.md, Configs)

The student plays the same Silver scenarios ``rounds`` times through the vLLM server, every seat
its own, exactly as the benchmark plays it (its card's layout, the reply schema, temperature
0.7): each round is a DAgger round (:mod:`training.dagger`) in ``OUT/round-K``, so a killed run
resumes. Each seat of each episode is scored by the training reward
(:func:`training.rollout.training_reward`: the seat's return, efficiency over the fixed
horizon, leaks charged). For every scenario and seat, the rounds in which the seat earned more
than its mean over the rounds are kept, and their turns, the student's own replies at the
states it reached, become ``OUT/data.jsonl``: SFT examples for the next stage (its
``extra_data``). A malformed reply is never an example.

Training on them is a policy-gradient step whose advantages are clipped to {0, 1} against a
per-seat baseline (expert iteration; ReST-EM, Singh et al. 2023): the policy moves toward what
it already does when that earns more than its average, and nothing else is taught. On 2 CPU
cores it fits where per-turn GRPO did not: a GRPO sample costs the rest of an episode to score
one turn, while one self-play episode scores every turn of every seat at once.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from statistics import fmean
from typing import Any

import scenarios
from policies import play_episode
from policies.trained import TrainedSpec
from scenarios import Scenario
from sotopia_tom_env import AgentAction, EnvConfig, parallel_env
from sotopia_tom_env.actions import parse_action
from sotopia_tom_env.routing import Roster
from training import dagger
from training.arguments import play_arguments, read_play_config
from training.data import kind_counts, kind_of, layout_reply, read_rows
from training.rollout import Replay, training_reward


def seat_returns(record: dict[str, Any], s: Scenario, max_turns: int) -> dict[str, float]:
    """Each seat's training reward in a recorded episode (``nan`` where the judge failed)."""
    env = parallel_env(scenarios=[s], reward_fn=training_reward(max_turns), max_turns=max_turns)
    result = asyncio.run(play_episode(env, lambda a, _: Replay(a, record["actions"]), scenario=s))
    seats = [f"agent_{i}" for i in range(len(s.agents))]
    failed = {a for a in seats if result.final_infos.get(a, {}).get("judge_failed", True)}
    return {a: math.nan if a in failed else result.returns.get(a, 0.0) for a in seats}


def above_mean(returns: Sequence[float], margin: float = 0.0) -> list[int]:
    """The rounds whose return beats the mean of the rounds by more than ``margin``.

    A seat with a judge failure in any round keeps nothing (its baseline is unknown), and a
    seat whose rounds all tie keeps nothing (no advantage, nothing to learn).

    Example:
        >>> above_mean([0.5, 0.9, 0.4])
        [1]
        >>> above_mean([0.7, 0.7, 0.7])
        []
    """
    if any(math.isnan(r) for r in returns):
        return []
    mean = fmean(returns)
    return [k for k, r in enumerate(returns) if r > mean + margin]


MAX_CHARS = EnvConfig.model_fields["max_message_chars"].default  # as the env played them


def own_reply(text: str, agent: str, s: Scenario, roster: Roster) -> AgentAction | None:
    """The student's recorded reply as an action, or ``None`` if the env rejected it."""
    parsed, error = parse_action(text, agent, roster, MAX_CHARS)
    if error is not None:
        return None
    to = [s.roles[int(r.rsplit("_", 1)[1])] for r in parsed.recipients]
    return AgentAction(action_type=parsed.action_type, argument=parsed.argument, to=to)


def select(rounds: Sequence[Path], chosen: Sequence[Scenario], *, max_turns: int,
           options: Sequence[str], margin: float = 0.0) -> tuple[list[dict[str, Any]], dict[str, Any]]:  # fmt: skip
    """The examples of every seat's above-mean rounds, and a summary of the selection."""
    by_id = {s.scenario_id: s for s in chosen}
    records = [_records(r) for r in rounds]
    rows_of = [_rows_by_seat(r / "data.jsonl") for r in rounds]
    out: list[dict[str, Any]] = []
    seats = tied = 0
    everyone: list[float] = []  # each seat-round's return, and those of the rounds kept
    kept: list[float] = []
    for sid, s in by_id.items():
        if any(sid not in rec for rec in records):
            continue  # a round that misses the scenario gives no baseline
        returns = [seat_returns(rec[sid], s, max_turns) for rec in records]
        roster = Roster(s.roles)
        for agent in returns[0]:
            seats += 1
            seat = [r[agent] for r in returns]
            best = above_mean(seat, margin)
            tied += not best
            everyone += seat
            kept += [seat[k] for k in best]
            for k in best:
                for row in rows_of[k].get((sid, agent), []):
                    if not row.get("own", True):  # its player's fallback, not the student's reply
                        continue
                    action = own_reply(row["student"], agent, s, roster)
                    if action is not None:
                        out.append(_example(row, action, s, options))
    summary = {
        "seats": seats,
        "seats_without_advantage": tied,
        "seat_rounds_kept": len(kept),
        "mean_return": fmean(everyone) if everyone else math.nan,  # nan where a judge failed
        "mean_return_kept": fmean(kept) if kept else math.nan,
        "examples": len(out),
        "kinds": kind_counts(out),
        "rounds": [str(r) for r in rounds],
    }
    return out, summary


def _example(row: dict[str, Any], action: AgentAction, s: Scenario,
             options: Sequence[str]) -> dict[str, Any]:  # fmt: skip
    completion = [{"role": "assistant", "content": layout_reply(action, s.roles, options)}]
    keep = ("prompt", "scenario_id", "agent", "step")
    return {**{k: row[k] for k in keep}, "completion": completion, "kind": kind_of(action)}


def _records(folder: Path) -> dict[str, dict[str, Any]]:
    return {r["scenario_id"]: r for r in read_rows(folder / "episodes.jsonl")}


def _rows_by_seat(path: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    by_seat: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in read_rows(path):
        by_seat.setdefault((row["scenario_id"], row["agent"]), []).append(row)
    return by_seat


@dataclass
class BestOfArguments:
    """One self-imitation stage (a YAML config of the same fields, or the command line)."""

    player: str  # the trained player that plays (an adapter folder)
    out: str  # folder of the rounds, data.jsonl and selection.json
    rounds: int = 3  # self-play episodes of each scenario
    margin: float = 0.0  # a seat's round is kept if it beats the seat's mean by more
    scenarios: str = "silver"  # training scenarios (Gold is refused)
    every: int = 30  # play every N-th scenario ...
    offset: int = 4  # ... starting at this one
    max_turns: int = 30
    concurrency: int = 20


def run(args: BestOfArguments) -> Path:
    """Play the rounds not played yet, select, write ``OUT/data.jsonl``; the folder."""
    out = Path(args.out)
    rounds = [out / f"round-{k}" for k in range(args.rounds)]
    shared = {f.name for f in fields(dagger.DaggerArguments)}  # how each round is played
    play = {k: v for k, v in asdict(args).items() if k in shared}
    for folder in rounds:
        dagger.run(dagger.DaggerArguments(**{**play, "out": str(folder)}))
    chosen = scenarios.load(args.scenarios)[args.offset :: args.every]
    options = TrainedSpec(args.player).options
    rows, summary = select(
        rounds, chosen, max_turns=args.max_turns, options=options, margin=args.margin
    )
    (out / "data.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (out / "selection.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return out


def run_config(config: str | Path | Mapping[str, Any]) -> Path:
    """Run the stage a config (a YAML file or its mapping) describes (:class:`BestOfArguments`)."""
    return run(read_play_config(BestOfArguments, config))


def main(argv: Sequence[str] | None = None) -> Path:
    """Command line: ``python -m training.best_of --config FILE`` or the fields as options."""
    return run(play_arguments(BestOfArguments, argv, __doc__.split("\n")[0]))


if __name__ == "__main__":
    main()
