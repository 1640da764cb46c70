"""Play one episode with a policy per agent (async, so LLM calls of many agents overlap)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from policies.base import Policy
from scenarios import Scenario
from sotopia_tom_env import AgentID, SotopiaToMEnv, Transcript

T = TypeVar("T")


@dataclass
class EpisodeResult:
    """Everything an episode produced."""

    scenario: Scenario
    transcript: Transcript
    turn_log: list[dict[str, Any]]
    returns: dict[AgentID, float]
    final_infos: dict[AgentID, dict[str, Any]]
    policies: dict[AgentID, str]
    policy_errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0


async def play_episode(
    env: SotopiaToMEnv,
    policies: dict[AgentID, Policy] | Callable[[AgentID, Scenario], Policy],
    *,
    seed: int | None = None,
    scenario: Scenario | str | None = None,
) -> EpisodeResult:
    """Reset ``env`` and play until every agent is done.

    Args:
        env: the environment (its reward function scores the episode at the end).
        policies: one policy per agent, or a factory ``(agent, scenario) -> Policy``.
        seed: passed to ``reset``.
        scenario: a scenario or id to play; otherwise the env samples one.

    A policy that raises does not stop the episode: its turn becomes ``none`` and the error is
    kept in ``policy_errors``.
    """
    start = time.perf_counter()
    obs, infos = env.reset(
        seed=seed, options={"scenario": scenario} if scenario is not None else None
    )
    assert env.scenario is not None
    pols = (
        policies
        if isinstance(policies, dict)
        else {a: policies(a, env.scenario) for a in env.agents}
    )
    for a in env.agents:
        pols[a].reset(obs[a], infos[a])
    await asyncio.gather(*(p.begin() for p in pols.values() if hasattr(p, "begin")))
    returns: Counter[AgentID] = Counter()
    errors: list[str] = []
    final: dict[AgentID, dict[str, Any]] = {}
    while env.agents:
        acting = env.acting_agents()
        replies = await asyncio.gather(
            *(pols[a].act(obs[a], infos[a]) for a in acting), return_exceptions=True
        )
        actions = {}
        for a, r in zip(acting, replies, strict=True):
            if isinstance(r, BaseException):
                errors.append(f"step {env.transcript.steps} {a}: {type(r).__name__}: {r}")
                r = None
            actions[a] = r
        logged = len(env.turn_log)
        obs, rewards, _, _, infos = env.step(actions)
        _attach_calls(env.turn_log[logged:], pols)
        returns.update(rewards)
        final = infos
    return EpisodeResult(
        scenario=env.scenario,
        transcript=env.transcript,
        turn_log=env.turn_log,
        returns=dict(returns),
        final_infos=final,
        policies={a: p.name for a, p in pols.items()},
        policy_errors=errors,
        wall_s=time.perf_counter() - start,
    )


def _attach_calls(turns: list[dict[str, Any]], pols: dict[AgentID, Policy]) -> None:
    """Save each acting agent's LLM calls of this step (prompt and reply) in its turn's entry.

    Only players that record calls (``take_calls``) add anything; the turn log is saved with
    the episode, so the viewer can show why a player acted as it did.
    """
    for turn in turns:
        take = getattr(pols.get(turn["agent"]), "take_calls", None)
        calls = take() if take is not None else []
        if calls:
            turn["calls"] = calls


async def play_many(
    jobs: Iterable[Any],
    play: Callable[[Any], Awaitable[T]],
    concurrency: int = 16,
) -> AsyncIterator[tuple[Any, T | BaseException]]:
    """Play many episodes at once and yield ``(job, result)`` as each finishes.

    With ``concurrency`` episodes in flight, their agents' LLM calls reach the server together,
    so one vLLM server batches them. A job that raises yields its exception instead of a
    result; the others carry on.

    Args:
        jobs: anything describing an episode (e.g. a policy, scenario and seed).
        play: an async function playing one job (typically wrapping :func:`play_episode`).
        concurrency: episodes in flight at once.
    """
    pending = iter(jobs)
    running: dict[asyncio.Task[T], Any] = {}

    def refill() -> None:
        while len(running) < concurrency:
            job = next(pending, _DONE)
            if job is _DONE:
                return
            running[asyncio.ensure_future(play(job))] = job

    refill()
    while running:
        done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            job = running.pop(task)
            yield job, (task.exception() or task.result())
        refill()


_DONE = object()
