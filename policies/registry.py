"""Policies by name, for ``sotopia-tom run --policy`` and ``bench --policies``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from policies.base import Policy
from policies.observable import ObservablePlayer
from policies.prompted import STRATEGIES, PromptedPolicy
from policies.scripted import IdealPlayer, LeakyPlayer, RandomPlayer, SilentPlayer
from policies.trained import parse_trained
from scenarios import Scenario
from sotopia_tom_env import AgentID


@dataclass(frozen=True)
class Setup:
    """What a policy factory may use. Only privileged scripted players read ``scenario``.

    ``options`` are the player options of LLM players (``policies.prompts.PLAYER_OPTIONS``)
    and ``record_calls`` whether they keep each call's prompt and reply for the episode record;
    scripted players ignore both.
    """

    agent: AgentID
    scenario: Scenario
    seed: int = 0
    client: Any = None
    options: tuple[str, ...] = ()
    record_calls: bool = True


POLICIES: dict[str, Callable[[Setup], Policy]] = {
    "random": lambda s: RandomPlayer(s.agent, seed=s.seed),
    "silent": lambda s: SilentPlayer(s.agent),
    "ideal": lambda s: IdealPlayer(s.agent, s.scenario),
    "leaky": lambda s: LeakyPlayer(s.agent, s.scenario),
    "observable": lambda s: ObservablePlayer(s.agent),  # reads its observation only
    **{name: (lambda s, name=name: _prompted(s, s.client, name)) for name in STRATEGIES},
}
"""Factories by name: scripted players and the prompted strategies (which need ``client``)."""

SCRIPTED = frozenset({"random", "silent", "ideal", "leaky", "observable"})


def make_policy(name: str, setup: Setup) -> Policy:
    """Build the policy registered as ``name`` for one agent.

    Raises:
        ValueError: for an unknown name (listing the known ones), an LLM policy without a
            client, or an unknown player option.
    """
    trained = parse_trained(name)
    if name not in POLICIES and trained is None:
        raise ValueError(
            f"unknown policy {name!r}; known: {', '.join(sorted(POLICIES))}, trained:PATH"
        )
    if name not in SCRIPTED and setup.client is None:
        raise ValueError(f"policy {name!r} needs an LLM client")
    if trained is not None:  # the same player, asking the server for the adapter by name
        client = setup.client.with_model(trained.served_name)
        return _prompted(setup, client, trained.strategy, trained.options)
    return POLICIES[name](setup)


def _prompted(
    setup: Setup, client: Any, strategy: str, trained_with: tuple[str, ...] = ()
) -> PromptedPolicy:
    """A prompted player with the run's options and those its weights were trained with."""
    options = (*setup.options, *trained_with)
    return PromptedPolicy(setup.agent, client, strategy, options=options,
                          record_calls=setup.record_calls)  # fmt: skip
