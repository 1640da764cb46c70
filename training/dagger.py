"""On-policy data (DAgger): the student plays Silver, the teacher labels the states it reached.

Launch::

    sotopia-tom train --config training/configs/pipeline-cpu-small.yaml --stage dagger-cpu-small
    python -m training.dagger --player runs/train/sft-cpu-small --out runs/train/dagger-1

A model trained only on the teacher's own episodes never sees the states its own mistakes lead
to. Here the trained player plays every seat of Silver episodes through a local vLLM server,
exactly as the benchmark plays it (its prompt layout, the reply schema, temperature 0.7), while
an observable teacher shadows each seat: on every turn it is given the seat's observation and
says what it would do (:meth:`policies.ObservablePlayer.label`), and the student's action is
what the env plays. Each turn becomes an example of the student's prompt with the teacher's
reply, mixed like the warm start's (:func:`training.data.mix`), for the next SFT round
(``extra_data`` in its config).

``OUT/data.jsonl`` holds the examples (each seat's teacher reply once an episode, at the first
state that called for it; ``unique_labels: false`` keeps every turn) and ``OUT/episodes.jsonl``
each episode's actions in step order, from which :mod:`training.rollout` replays the student's
own turn states for RL. Both are appended as each episode ends, so a killed run resumes where it
stopped. An episode in which a call of the student failed for good (a timeout, a server gone) is
not saved: its fallback turns were the endpoint's, not the student's, so the resumed run plays
it again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scenarios
from policies import ObservablePlayer, PromptedPolicy, play_episode, play_many
from policies.trained import TrainedSpec, merged_model
from scenarios import Scenario
from sotopia_tom_env import AgentAction, parallel_env
from training.arguments import play_arguments, read_play_config
from training.data import example, seat_prompt
from training.separation import assert_disjoint_from_gold
from training.state import TurnState


class Shadowed:
    """Plays the student and records, on each turn, its prompt with the teacher's action.

    Args:
        student: the trained player of the seat.
        strategy, options: the prompt the student sees (to record it as the example's prompt).
        roles: the scenario's roles, in seat order.
        played: where each step's action, as the env is given it, is noted (shared by seats).
    """

    def __init__(self, student: PromptedPolicy, strategy: str, options: Sequence[str],
                 roles: Sequence[str], played: dict[int, tuple[str, str]]) -> None:  # fmt: skip
        self.student, self.agent, self.name = student, student.agent, student.name
        self.teacher = ObservablePlayer(student.agent)
        self.strategy, self.options, self.roles = strategy, tuple(options), list(roles)
        self.turns: list[tuple[int, str, AgentAction]] = []  # (step, prompt, teacher's action)
        self.played = played
        self.fallbacks: set[int] = set()  # steps where no reply was valid and the player fell back

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Reset both the student and its shadow."""
        self.student.reset(observation, info)
        self.teacher.reset(observation, info)

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The student's action; the teacher's is kept as the label."""
        text, role = observation["text"], info["role"]
        prompt = seat_prompt(self.strategy, text, role, self.roles, self.options)
        self.turns.append((info["step"], prompt, self.teacher.label(observation)))
        action = await self.student.act(observation, info)
        if not isinstance(action, str):  # a prompted player returns the model's own words as text
            self.fallbacks.add(info["step"])
        self.played[info["step"]] = (self.agent, _as_text(action))
        return action


def _as_text(action: Any) -> str:
    """An action as the text the env parses (a raw reply stays as the model wrote it)."""
    return (
        action if isinstance(action, str) else AgentAction.model_validate(action).model_dump_json()
    )


async def play_shadowed(s: Scenario, client: Any, strategy: str, options: Sequence[str],
                        max_turns: int, unique: bool = True
                        ) -> tuple[list[dict[str, Any]], dict[str, Any]]:  # fmt: skip
    """One student episode of ``s``: the labelled examples and the episode's action record.

    With ``unique``, a seat's teacher reply is labelled once, at the first state that called
    for it: a student that stalls reaches the same state turn after turn, and the same label
    repeated taught the round's SFT to repeat itself (docs/training.md, Retraining).
    """
    env = parallel_env(scenarios=[s], reward_fn=None, max_turns=max_turns)
    played: dict[int, tuple[str, str]] = {}  # step -> (agent, the action the env was given)
    players = {
        a: Shadowed(
            PromptedPolicy(a, client, strategy, options=options, record_calls=False),
            strategy,
            options,
            s.roles,
            played,
        )
        for a in (f"agent_{i}" for i in range(len(s.agents)))
    }
    await play_episode(env, players, scenario=s)
    failed = [e for p in players.values() for e in p.student.errors]
    if failed:  # its fallback turns were the endpoint's doing, not the student's choice
        raise EpisodeFailed(
            f"{len(failed)} of the student's LLM calls failed for good; first: {failed[0]}"
        )
    rows = [
        {
            **example(TurnState(s.scenario_id, a, step, prompt), label, s.roles, options),
            "student": played.get(step, (a, ""))[1],
            "own": step not in p.fallbacks,  # the student's reply, not its player's fallback
        }
        for a, p in players.items()
        for step, prompt, label in p.turns
    ]
    record = {"scenario_id": s.scenario_id, "actions": [played[k] for k in sorted(played)]}
    return (first_labels(rows) if unique else rows), record


def first_labels(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose (scenario, seat, reply) no earlier row has."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for r in rows:
        key = (r["scenario_id"], r["agent"], json.dumps(r["completion"]))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


async def collect(chosen: Sequence[Scenario], client: Any, out: Path, *, strategy: str,
                  options: Sequence[str], max_turns: int, concurrency: int,
                  unique: bool = True) -> int:  # fmt: skip
    """Play the scenarios not yet in ``out`` and append their rows; the number of episodes played."""
    assert_disjoint_from_gold(chosen)
    out.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["scenario_id"] for line in _lines(out / "episodes.jsonl")}
    todo = [s for s in chosen if s.scenario_id not in done]

    async def play(s: Scenario) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return await play_shadowed(s, client, strategy, options, max_turns, unique)

    played = 0
    async for s, result in play_many(todo, play, concurrency):
        if isinstance(result, BaseException):
            print(f"{s.scenario_id}: {type(result).__name__}: {result}")  # retried on resume
            continue
        rows, record = result
        with (out / "data.jsonl").open("a") as f:  # rows first: an episode counts once saved
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        with (out / "episodes.jsonl").open("a") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
        played += 1
        print(
            f"{s.scenario_id}: {len(rows)} turns ({len(done) + played}/{len(chosen)})", flush=True
        )
    return played


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


@contextmanager
def player_client(player: str | Path, concurrency: int) -> Any:
    """A client of a local server of a trained player: an adapter merged in, or a full model."""
    from sotopia_tom_env.serving import chat_client

    path = Path(player)
    served = path if not (path / "adapter_config.json").is_file() else None
    if served is None:
        spec = TrainedSpec(str(path))
        served = merged_model(spec, spec.base())
    with chat_client(str(served), max_concurrency=concurrency) as client:
        yield client


class EpisodeFailed(RuntimeError):
    """A student's LLM call failed for good: the episode is not saved (a rerun plays it)."""


@dataclass
class DaggerArguments:
    """One DAgger round (a YAML config of the same fields, or the command line)."""

    player: str  # the trained player that plays (an SFT output folder)
    out: str  # folder of data.jsonl and episodes.jsonl
    scenarios: str = "silver"  # training scenarios (Gold is refused)
    every: int = 5  # play every N-th scenario ...
    offset: int = 2  # ... starting at this one
    max_turns: int = 30
    concurrency: int = 16  # episodes in flight (their turns are batched by the server)
    unique_labels: bool = (
        True  # each seat's teacher reply labelled once an episode (False: every turn)
    )


def run(args: DaggerArguments) -> Path:
    """Play the round's episodes not played yet; the folder of its data.

    Raises:
        EpisodeFailed: some episodes failed because the player's server did; the others are saved,
            and running the round again plays the missing ones (a pipeline stops here rather
            than train on a partial round).
    """
    card = TrainedSpec(args.player)
    chosen = scenarios.load(args.scenarios)[args.offset :: args.every]
    out = Path(args.out)
    done = len(_lines(out / "episodes.jsonl"))
    if done < len(chosen):
        with player_client(args.player, args.concurrency) as client:
            done += asyncio.run(collect(chosen, client, out, strategy=card.strategy, options=card.options,
                                        max_turns=args.max_turns, concurrency=args.concurrency,
                                        unique=args.unique_labels))  # fmt: skip
    if done < len(chosen):
        raise EpisodeFailed(f"{len(chosen) - done} of {len(chosen)} DAgger episodes failed (see above); "
                       f"the others are saved in {out}: rerun to play the missing ones")  # fmt: skip
    return out


def run_config(config: str | Path | Mapping[str, Any]) -> Path:
    """Run the DAgger round a config (a YAML file or its mapping) describes (:class:`DaggerArguments`)."""
    return run(read_play_config(DaggerArguments, config))


def main(argv: Sequence[str] | None = None) -> Path:
    """Command line: ``python -m training.dagger --config FILE`` or the fields as options."""
    return run(play_arguments(DaggerArguments, argv, __doc__.split("\n")[0]))


if __name__ == "__main__":
    main()
