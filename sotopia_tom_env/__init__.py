"""sotopia-tom-env: the Sotopia-ToM benchmark as a PettingZoo environment.

Example:
    >>> import sotopia_tom_env
    >>> env = sotopia_tom_env.parallel_env()
    >>> obs, infos = env.reset(seed=0)
    >>> speaker = env.acting_agents()[0]
    >>> obs, rewards, terms, truncs, infos = env.step({speaker: '{"action_type": "speak", "argument": "Hello all", "to": []}'})
    >>> env.transcript.messages[0].id
    'R0.1'
"""

from sotopia_tom_env.actions import AgentAction, ParsedAction, parse_action
from sotopia_tom_env.env import EnvConfig, Rewarder, SotopiaToMEnv, env, parallel_env, raw_env
from sotopia_tom_env.routing import AgentID, Roster
from sotopia_tom_env.transcript import Message, Transcript

__all__ = [
    # environment
    "EnvConfig",
    "Rewarder",
    "SotopiaToMEnv",
    "env",
    "parallel_env",
    "raw_env",
    # actions
    "AgentAction",
    "ParsedAction",
    "parse_action",
    # transcript and participants
    "AgentID",
    "Message",
    "Roster",
    "Transcript",
]
