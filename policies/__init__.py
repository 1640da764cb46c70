"""Players: the policy protocol, scripted players, the prompted strategies and an episode runner."""

from policies.base import Policy
from policies.observable import ObservablePlayer
from policies.play import EpisodeResult, play_episode, play_many
from policies.prompted import STRATEGIES, PromptedPolicy
from policies.registry import POLICIES, SCRIPTED, Setup, make_policy
from policies.scripted import IdealPlayer, LeakyPlayer, RandomPlayer, SilentPlayer

__all__ = [
    # protocol and registry
    "POLICIES",
    "SCRIPTED",
    "Policy",
    "Setup",
    "make_policy",
    # scripted players
    "IdealPlayer",
    "LeakyPlayer",
    "ObservablePlayer",
    "RandomPlayer",
    "SilentPlayer",
    # prompted strategies
    "STRATEGIES",
    "PromptedPolicy",
    # playing
    "EpisodeResult",
    "play_episode",
    "play_many",
]
