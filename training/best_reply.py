"""RL by best-of-K at the turn: the student's best own reply at each of its own states.

Launch::

    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml --stage best-reply-cpu-small
    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml --stage sft-best-reply-cpu-small   # SFT on its choice

The states are the student's own: the turns of its self-play episodes (``episodes.jsonl`` of
:mod:`training.dagger` or :mod:`training.best_of` rounds), replayed through the env. At each
state the student samples ``samples`` replies through the vLLM server exactly as the benchmark
plays it (its card's layout, the reply schema, temperature 0.7), and a silent turn joins them
as one more candidate. Each candidate is scored by the difference it makes: the env replays
the episode to the state, plays the candidate, and ends the episode there, and the seat's
training reward (:func:`training.rollout.training_reward`: dense terms, the judge's scores with
efficiency over the fixed horizon, leaks and relays charged) is its score. The candidates of a
state share everything before it, so their scores differ only by what the reply itself does to
the judged result: a new fact on its channel or a well-aimed ask earns, a private fact restated
in public loses its disclosure credit, a leak costs its penalty.

A state whose candidates all tie teaches nothing and is dropped. At the others the best
candidate (the student's own reply where it ties the silent turn) becomes an SFT example
(``OUT/data.jsonl``): rejection sampling with a one-step reward (RAFT, Dong et al. 2023), where
the policy moves toward its best move at each state it reaches. The one-step score is myopic by
design: it does not wait for partners' answers, which made every continuation-scored GRPO
sample cost the rest of an episode and its partners' luck (docs/training.md). Its bias: a move
whose value comes later (leaving, waiting for an answer) is worth what a silent turn is.

Each state's candidates and scores are appended to ``OUT/samples.jsonl`` as its episode is
done, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

import scenarios
from policies import PromptedPolicy, play_many
from policies.trained import TrainedSpec
from scenarios import Scenario
from sotopia_tom_env import AgentAction
from sotopia_tom_env.routing import Roster
from training.arguments import play_arguments, read_play_config
from training.best_of import own_reply
from training.dagger import player_client
from training.data import example, kind_counts, layout_reply, read_rows
from training.rollout import Seen, replay, turn_score
from training.separation import assert_disjoint_from_gold
from training.state import TurnState

TIE = 1e-9


async def score(state: TurnState, s: Scenario, reply: str, eff_turns: int) -> float:
    """The one-step score of ``reply`` at ``state`` (:func:`training.rollout.turn_score`)."""
    return (await turn_score(state, s, reply, eff_turns))[1]


def choose(own: Sequence[bool], rewards: Sequence[float]) -> int | None:
    """The candidate to imitate: a best one, the student's own before a silent turn.

    ``None`` when the candidates tie or one has no verdict (nothing to learn, or unknown).

    Example:
        >>> choose([True, True, False], [0.1, 0.3, 0.0])
        1
        >>> choose([True, False], [0.0, 0.0]) is None
        True
        >>> choose([True, False], [-2.0, 0.0])
        1
    """
    if any(math.isnan(r) for r in rewards) or max(rewards) - min(rewards) <= TIE:
        return None
    tops = [k for k, r in enumerate(rewards) if r >= max(rewards) - TIE]
    return next((k for k in tops if own[k]), tops[0])


SILENT = AgentAction(action_type="none", argument="", to=[])


async def sample(seen: Seen, start: tuple[Any, Any], client: Any, k: int, strategy: str,
                 options: Sequence[str]) -> list[str]:  # fmt: skip
    """``k`` replies of the student at a state; a fallback or a failed call is left out."""
    player = PromptedPolicy(seen.state.seat, client, strategy, options=options, record_calls=False)
    player.reset(*start)
    replies = await asyncio.gather(*(player.act(seen.observation, seen.info) for _ in range(k)))
    return [r for r in replies if isinstance(r, str)]


def candidates_of(replies: Sequence[str], s: Scenario, options: Sequence[str],
                  agent: str) -> list[tuple[str, bool]]:  # fmt: skip
    """The distinct valid replies, as the env read them, and the silent turn: ``(text, own)``."""
    roster = Roster(s.roles)
    out: dict[str, bool] = {}
    for r in replies:
        action = own_reply(r, agent, s, roster)
        if action is not None:
            out.setdefault(layout_reply(action, s.roles, options), True)
    out.setdefault(layout_reply(SILENT, s.roles, options), False)
    return list(out.items())


async def collect(records: Sequence[dict[str, Any]], by_id: dict[str, Scenario], client: Any,
                  out: Path, args: BestReplyArguments, strategy: str,
                  options: Sequence[str]) -> None:  # fmt: skip
    """Sample and score every ``every``-th state of the records not done yet; append them."""
    path = out / "samples.jsonl"
    done = {r["episode"] for r in read_rows(path)} if path.exists() else set()
    todo = [r for r in records if _key(r) not in done]

    async def one(record: dict[str, Any]) -> list[dict[str, Any]]:
        s = by_id[record["scenario_id"]]
        seen, start = replay(record, s, args.max_turns, strategy, options)
        chosen = seen[record["offset"] :: args.every]
        replies = await asyncio.gather(
            *(
                sample(x, start[x.state.seat], client, args.samples, strategy, options)
                for x in chosen
            )
        )
        rows = []
        for x, rs in zip(chosen, replies, strict=True):
            cands = candidates_of(rs, s, options, x.state.seat)
            scores = [await score(x.state, s, text, args.max_turns) for text, _ in cands]
            rows.append({"episode": _key(record), "scenario_id": s.scenario_id,
                         "agent": x.state.seat, "step": x.state.step, "prompt": x.state.prompt,
                         "sampled": len(rs), "candidates": [t for t, _ in cands],
                         "own": [o for _, o in cands], "rewards": scores})  # fmt: skip
        return rows

    finished = len(records) - len(todo)
    async for record, rows in play_many(todo, one, args.episodes_at_once):
        if isinstance(rows, BaseException):
            print(f"{_key(record)}: {type(rows).__name__}: {rows}")  # tried again on resume
            continue
        with path.open("a") as f:  # one episode at a time: a killed run loses what is in flight
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        finished += 1
        print(f"{_key(record)}: {len(rows)} states ({finished}/{len(records)})", flush=True)


def _key(record: dict[str, Any]) -> str:
    return f"{record['source']}#{record['scenario_id']}"


def select(samples: Sequence[dict[str, Any]], by_id: dict[str, Scenario],
           options: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:  # fmt: skip
    """The examples (each untied state's chosen reply) and a summary of the choice."""
    rows, advantages, silent, distinct = [], [], 0, []
    for x in samples:
        distinct.append(sum(x["own"]))
        k = choose(x["own"], x["rewards"])
        if k is None:
            continue
        s = by_id[x["scenario_id"]]
        action = own_reply(x["candidates"][k], x["agent"], s, Roster(s.roles))
        assert action is not None  # every candidate was read by the env before it was scored
        turn = TurnState(x["scenario_id"], x["agent"], x["step"], x["prompt"])
        rows.append({**example(turn, action, s.roles, options), "reward": x["rewards"][k]})
        own = [r for r, o in zip(x["rewards"], x["own"], strict=True) if o]
        advantages.append(x["rewards"][k] - (fmean(own) if own else 0.0))
        silent += not x["own"][k]
    summary = {
        "states": len(samples),
        "states_tied": len(samples) - len(rows),
        "examples": len(rows),
        "silent_chosen": silent,
        "mean_distinct_replies": fmean(distinct) if distinct else math.nan,
        "mean_advantage_over_own": fmean(advantages) if advantages else math.nan,
        "kinds": kind_counts(rows),
    }
    return rows, summary


@dataclass
class BestReplyArguments:
    """One best-of-K stage (a YAML config of the same fields, or the command line)."""

    player: str  # the trained player that samples (an adapter folder)
    episodes: str  # comma-separated folders whose episodes.jsonl give the states
    out: str  # folder of samples.jsonl, data.jsonl and selection.json
    scenarios: str = "silver"  # the scenarios the episodes played (Gold is refused)
    samples: int = 4  # the student's replies sampled at each state
    every: int = 3  # every N-th acting turn of each episode (offset by episode, to cover all)
    max_turns: int = 30  # the episodes' turn limit, and the efficiency horizon
    concurrency: int = 16  # LLM calls in flight
    episodes_at_once: int = 4  # episodes whose states are sampled together


def run(args: BestReplyArguments) -> Path:
    """Sample and score the states not done yet, select, write ``OUT/data.jsonl``; the folder."""
    card = TrainedSpec(args.player)
    pool = scenarios.load(args.scenarios)
    by_id = {s.scenario_id: s for s in pool}
    records = []
    for folder in args.episodes.split(","):
        for n, r in enumerate(read_rows(Path(folder) / "episodes.jsonl")):
            records.append({**r, "source": folder, "offset": n % args.every})
    assert_disjoint_from_gold([by_id[r["scenario_id"]] for r in records])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with player_client(args.player, args.concurrency) as client:
        asyncio.run(collect(records, by_id, client, out, args, card.strategy, card.options))
    rows, summary = select(read_rows(out / "samples.jsonl"), by_id, card.options)
    (out / "data.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (out / "selection.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return out


def run_config(config: str | Path | Mapping[str, Any]) -> Path:
    """Run the stage a config (a YAML file or its mapping) describes (:class:`BestReplyArguments`)."""
    return run(read_play_config(BestReplyArguments, config))


def main(argv: Sequence[str] | None = None) -> Path:
    """Command line: ``python -m training.best_reply --config FILE`` or the fields as options."""
    return run(play_arguments(BestReplyArguments, argv, __doc__.split("\n")[0]))


if __name__ == "__main__":
    main()
