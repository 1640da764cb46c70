"""One episode with a person in one seat (``sotopia-tom play``), saved and judged like any other.

The person plays one agent through :class:`policies.human.HumanPlayer`; every other agent is
played by a registered policy (scripted, or prompted through an LLM client). The episode is
judged by the same judge as a benchmark episode and becomes an :class:`EpisodeRecord` with
policy ``human`` and id ``human:AGENT/SCENARIO/SEED``, so ``sotopia-tom report`` lists it as
the ``human`` row (the human baseline) and the viewer shows it like any episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from policies import SCRIPTED, Setup, make_policy
from policies.human import HumanPlayer
from scenarios import Scenario
from sotopia_tom_app.bench.episode import play_recorded, players_model
from sotopia_tom_app.bench.records import EpisodeRecord
from sotopia_tom_env.env import SotopiaToMEnv

HUMAN = "human"


def seat_of(scenario: Scenario, who: str) -> str:
    """The agent id of a role name (case and spacing forgiven) or agent id of ``scenario``.

    Raises:
        ValueError: ``who`` names no agent of the scenario (the message lists the roles).

    Example:
        >>> import scenarios
        >>> seat_of(scenarios.load("tiny")[0], "agent_1")
        'agent_1'
    """
    ids = [f"agent_{i}" for i in range(len(scenario.agents))]
    if who in ids:
        return who
    key = " ".join(who.split()).casefold()
    for agent_id, role in zip(ids, scenario.roles, strict=True):
        if " ".join(role.split()).casefold() == key:
            return agent_id
    raise ValueError(f"{who!r} is no role of {scenario.id}; roles: {', '.join(scenario.roles)}")


def partner_names(partners: Sequence[str], seats: int) -> list[str]:
    """One policy per other seat: a single name for all, or one name per seat in agent order.

    Raises:
        ValueError: neither one name nor one per other seat.
    """
    if len(partners) == 1:
        return list(partners) * seats
    if len(partners) != seats:
        raise ValueError(f"give one partner policy, or {seats} (one per other agent in order)")
    return list(partners)


async def play_seat(
    scenario: Scenario,
    agent: str,
    partners: Sequence[str],
    judge: Any,
    *,
    seed: int = 0,
    max_turns: int = 60,
    client: Any = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> EpisodeRecord:
    """Play ``scenario`` with a person as ``agent``, judge it and return its record.

    Args:
        scenario: the scenario to play.
        agent: the person's agent id (see :func:`seat_of`).
        partners: the other agents' policy names (see :func:`partner_names`).
        judge: a rule or LLM judge (:func:`~sotopia_tom_app.bench.judging.make_judge`).
        seed: seed of the partners' choices (and part of the episode id).
        max_turns: steps before the episode is cut off.
        client: the LLM client of prompted partners (None for scripted ones).
        stdin: the person's input (default: the terminal).
        stdout: where the person's view goes (default: the terminal).
    """
    env = SotopiaToMEnv(scenarios=[scenario], max_turns=max_turns)
    names = partner_names(partners, len(scenario.agents) - 1)
    others = iter(names)

    def player(a: str, s: Scenario) -> Any:
        if a == agent:
            # Bound per agent: the instructions name whoever is still in the conversation.
            return HumanPlayer(a, lambda: env.action_instructions(a), stdin, stdout)
        return make_policy(next(others), Setup(a, s, seed=seed, client=client))

    # "Scripted" only when every partner is: then the record names no model, as a bench's.
    label = next((n for n in names if n not in SCRIPTED), names[0])
    return await play_recorded(
        env, player, label=HUMAN, seed=seed, judge=judge, scenario=scenario.id,
        episode_id=f"{HUMAN}:{agent}/{scenario.id}/{seed}", refuse_failed=False,
        model=players_model(label, client),
    )  # fmt: skip
