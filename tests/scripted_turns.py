"""Play a scripted conversation through the env: the transcript a list of turns makes."""

from __future__ import annotations

import sotopia_tom_env
from scenarios import Scenario
from sotopia_tom_env import AgentAction


def play_turns(s: Scenario, turns: list[tuple[str, str, list[int]]]):
    """The transcript of ``(agent id, text, recipient seats)`` turns, in the env's seat order.

    Agents whose turn comes without a scripted message stay silent; an empty recipient list is
    a public message.
    """
    env = sotopia_tom_env.parallel_env(scenarios=[s], reward_fn=None, max_stale_turns=99)
    env.reset(options={"scenario": s})
    queue = list(turns)
    while queue:
        (a,) = env.acting_agents()
        act = AgentAction.none()
        if queue[0][0] == a:
            _, text, to = queue.pop(0)
            act = AgentAction.speak(text, to=[s.roles[i] for i in to])
        env.step({a: act})
    return env.transcript
