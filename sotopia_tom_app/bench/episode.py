"""The one episode runner: play, judge and record one episode, with one record schema.

``bench`` (both executors, through :func:`~sotopia_tom_app.bench.runner.play_job`), ``run`` and
``play`` all make their records here, so a record means the same whoever made it:

- ``llm``: the calls, tokens, retries and fallbacks of the episode's players, summed over them
  (a judge's calls are not in it). Records that ``run`` and ``play`` saved before this held
  their chat client's totals instead (judge calls and latency included); they load as they are,
  since the field is a free dict and the report reads only ``calls``, ``completion_tokens`` and
  ``budget_cuts`` from it, with 0 for a missing key.
- ``model``: the players' model, None when every player of the label is scripted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import Any

from policies import SCRIPTED, Setup, make_policy, play_episode
from policies.budgets import BudgetChoice
from policies.prompted import with_budget
from scenarios import Scenario
from sotopia_tom_app.bench.judging import judge_episode
from sotopia_tom_app.bench.records import EpisodeRecord
from sotopia_tom_env.env import SotopiaToMEnv

PlayerFactory = Callable[[str, Scenario], Any]  # (agent id, scenario) -> a policy


class EpisodeFailed(RuntimeError):
    """A player's LLM call failed for good: the episode is no measurement and is not saved."""


def players_of(
    policy: str,
    *,
    seed: int,
    client: Any = None,
    options: tuple[str, ...] = (),
    max_tokens: BudgetChoice = "auto",
    record_calls: bool = True,
) -> PlayerFactory:
    """A factory of ``policy`` players for every seat, with the run's options and token budget."""

    def player(agent: str, scenario: Scenario) -> Any:
        setup = Setup(agent, scenario, seed=seed, client=client, options=options,
                      record_calls=record_calls)  # fmt: skip
        return with_budget(make_policy(policy, setup), max_tokens)

    return player


def players_model(policy: str, client: Any) -> str | None:
    """The model a record names: the client's, unless the label's players are all scripted."""
    return None if policy in SCRIPTED else getattr(client, "model", None)


async def play_recorded(
    env: SotopiaToMEnv,
    make_player: PlayerFactory,
    *,
    label: str,
    seed: int,
    judge: Any,
    model: str | None = None,
    scenario: Scenario | str | None = None,
    episode_id: str | None = None,
    refuse_failed: bool = True,
    watch: Callable[[SotopiaToMEnv], AbstractAsyncContextManager[Any]] | None = None,
) -> EpisodeRecord:
    """Play one episode of ``env``, judge it and return its record.

    Args:
        env: the environment (its ``max_turns`` goes into the record).
        make_player: a policy per seat (see :func:`players_of`), called once per agent.
        label: the record's policy label, e.g. ``ideal`` or ``human``.
        seed: the episode's seed (reset and players).
        judge: a rule or LLM judge (:func:`~sotopia_tom_app.bench.judging.make_judge`).
        model: the players' model (see :func:`players_model`).
        scenario: the scenario or id to play; None: the env draws one with ``seed``.
        episode_id: the record's id; default ``LABEL/SCENARIO/SEED``.
        refuse_failed: raise :class:`EpisodeFailed` when a player's LLM call failed for good
            (a bench leaves such an episode for the resumed run) instead of recording it.
        watch: a progress display around the playing (not the judging), given the env.

    Raises:
        EpisodeFailed: see ``refuse_failed``.
    """
    players: dict[str, Any] = {}
    async with watch(env) if watch is not None else nullcontext():
        result = await play_episode(
            env, lambda a, s: players.setdefault(a, make_player(a, s)), seed=seed,
            scenario=scenario,
        )  # fmt: skip
    failed = [e for p in players.values() for e in getattr(p, "errors", ())]
    if failed and refuse_failed:  # its silent turns were the endpoint's doing
        raise EpisodeFailed(
            f"{len(failed)} LLM call(s) of the players failed for good; first: {failed[0]}"
        )
    judgment, scores = await judge_episode(judge, result.scenario, result.transcript)
    return EpisodeRecord.of_episode(
        result, (judgment, scores), episode_id=episode_id or f"{label}/{result.scenario.id}/{seed}",
        policy=label, model=model, seed=seed, max_turns=env.config.max_turns,
        llm=player_stats(players),
    )  # fmt: skip


def player_stats(players: dict[str, Any]) -> dict[str, int]:
    """Calls, tokens, retries and fallbacks of the episode's players, summed."""
    total: dict[str, int] = {}
    for p in players.values():
        for k, v in getattr(p, "stats", {}).items():
            total[k] = total.get(k, 0) + v
    return total


@asynccontextmanager
async def episode_progress(client: Any, label: str, env: Any) -> AsyncIterator[None]:
    """A bar of the episode's steps, LLM calls and tokens on stderr, when an LLM plays."""
    if client is None:
        yield
        return
    from tqdm import tqdm

    from sotopia_tom_app.bench.progress import CallProgress

    def steps() -> int:
        transcript = getattr(env, "transcript", None)  # set by the episode's reset
        return transcript.steps if transcript is not None else 0

    with tqdm(total=env.config.max_turns, unit="step", desc=label) as bar:
        async with CallProgress(bar, client.stats, steps=steps):
            yield
