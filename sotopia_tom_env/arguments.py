"""Checks of what callers pass to the env: programmer errors raise, naming the argument.

Malformed *actions* of a valid agent are data (they become ``none`` with an ``action_error``);
everything checked here is a bug in the calling code, so it raises ``TypeError`` or
``ValueError`` with the argument's name and a shortened repr of the offending value.
"""

from __future__ import annotations

import functools
import reprlib
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral
from typing import Any

from scenarios import Scenario

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlist = _REPR.maxdict = 6
REWARD_CHOICES = "None, 'rule' or a Rewarder (an object with reset() and step() methods)"
# The reward layer (package ``rewards``) builds on this core, so the core never imports it: it
# registers its rewarders under this entry-point group (pyproject.toml), looked up by name when
# an env is made with ``reward_fn="rule"``. tests/test_layers.py keeps the direction.
REWARDERS = "sotopia_tom_env.rewarders"


class ResetNeeded(RuntimeError, ValueError):
    """``step`` was called with no running episode (before ``reset`` or after the end)."""


def short(value: Any) -> str:
    """A repr of ``value`` short enough for an error message."""
    return _REPR.repr(value)


def check_actions(actions: Any, agents: Sequence[str]) -> Mapping[str, Any]:
    """The ``actions`` argument of ``step``: a mapping from this episode's agent ids.

    Raises:
        TypeError: if ``actions`` is not a mapping or a key is not a string.
        ValueError: if a key is not an agent of this episode.
    """
    if not isinstance(actions, Mapping):
        raise TypeError(
            f"step(actions): expected a dict of agent id -> action, got "
            f"{type(actions).__name__} {short(actions)}"
        )
    bad = [k for k in actions if not isinstance(k, str)]
    if bad:
        raise TypeError(
            f"step(actions): agent ids must be strings like 'agent_0', got {short(bad)}"
        )
    unknown = sorted(set(actions) - set(agents))
    if unknown:
        raise ValueError(
            f"step(actions): {short(unknown)} are not agents of this episode; agents: {agents}"
        )
    return actions


def check_options(options: Any) -> Any:
    """The ``options`` argument of ``reset``; returns the requested scenario (or ``None``).

    Other keys are ignored, as Gymnasium envs do (PettingZoo's API tests pass such options).

    Raises:
        TypeError: if ``options`` is not a dict or ``options["scenario"]`` is neither an id
            (str or int) nor a ``Scenario``.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise TypeError(
            f"reset(options): expected a dict such as {{'scenario': id}}, got "
            f"{type(options).__name__} {short(options)}"
        )
    choice = options.get("scenario")
    if choice is None or isinstance(choice, Scenario | str):
        return choice
    if isinstance(choice, Integral) and not isinstance(choice, bool):
        return str(choice)
    raise TypeError(
        f"reset(options['scenario']): expected a scenario id (str or int) or a Scenario, got "
        f"{type(choice).__name__} {short(choice)}"
    )


def check_reward_fn(reward_fn: Any) -> Any:
    """The ``reward_fn`` argument: ``None``, ``"rule"`` or a Rewarder; ``"rule"`` is built here.

    Raises:
        ValueError: for any other string.
        TypeError: for an object without callable ``reset`` and ``step``.
    """
    if reward_fn is None:
        return None
    if isinstance(reward_fn, str):
        if reward_fn != "rule":
            raise ValueError(f"reward_fn={short(reward_fn)} is not accepted; use {REWARD_CHOICES}")
        return registered_rewarder(reward_fn)()
    if not (
        callable(getattr(reward_fn, "reset", None)) and callable(getattr(reward_fn, "step", None))
    ):
        raise TypeError(
            f"reward_fn={short(reward_fn)} ({type(reward_fn).__name__}) is not accepted; use "
            f"{REWARD_CHOICES}, e.g. rewards.JudgeReward(...)"
        )
    return reward_fn


@functools.cache
def registered_rewarder(name: str) -> Callable[[], Any]:
    """The rewarder factory registered as ``name`` in the :data:`REWARDERS` entry points.

    Raises:
        ValueError: no installed package registers ``name``.

    Example:
        >>> registered_rewarder("rule").__name__
        'JudgeReward'
    """
    from importlib.metadata import entry_points

    found = entry_points(group=REWARDERS, name=name)
    if not found:
        raise ValueError(
            f"reward_fn={name!r}: no installed rewarder of that name (entry-point group "
            f"{REWARDERS!r}); install the project with `pip install -e .`"
        )
    return next(iter(found)).load()
