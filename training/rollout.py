"""The env behind TRL's GRPO: turn states, a multi-turn ``rollout_func``, and reward columns.

**One sample per turn.** A GRPO prompt is one *turn state*: a Silver scenario played up to the
step where one seat (the trained agent) must act, rendered through the prompted players' own
prompt builder (``policies.prompts.action_prompt``) from that seat's observation. TRL hands the
rollout function each prompt ``num_generations`` times (one GRPO group: same scenario, seed and
turn state). For each copy the rollout

1. replays the episode to that state (the env is deterministic),
2. plays the sampled completion as the seat's action, raw, so a malformed reply is parsed by the
   env into ``none`` and costs the format penalty like any other malformed action,
3. finishes the episode: partners follow their policy, and the seat's later turns follow the
   continuation policy,
4. and returns the seat's own episodic reward from the env's ``JudgeReward``, with its components.

Only the sampled reply's tokens are returned as ``completion_ids``, so no token of another
agent or of the env ever carries gradient (no ``env_mask`` is needed).

With the ``ideal`` continuation, the seat's later turns follow the ideal plan *minus the message
the sample replaced*: the reward measures what the sampled action is worth in place of the ideal
one (a leak is penalised, a skipped disclosure or ask is lost, a better-timed one gains EFF).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rewards import JudgeReward
from scenarios import Scenario
from training.data import act, ideal_turns, start_ideal
from training.separation import assert_disjoint_from_gold
from training.state import TurnState, prompt_key

COMPONENTS = ("da", "ia", "eff", "cpv", "cm", "malformed")
"""Per-seat score columns returned next to ``env_reward`` (logged by TRL as reward functions)."""


class Generator(Protocol):
    """Samples one reply per prompt: returns ``(prompt_ids, completion_ids, logprobs, text)``."""

    def __call__(self, prompts: list[list[dict[str, Any]]], trainer: Any) -> list[Sample]:
        """One sample per prompt, in order."""


@dataclass
class Sample:
    """One generated reply."""

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float] | None
    text: str


def turn_states(scenarios: Sequence[Scenario], *, strategy: str = "basic", max_turns: int = 40,
                every: int = 1) -> list[TurnState]:  # fmt: skip
    """Turn states of ideal self-play on ``scenarios``: every ``every``-th acting turn."""
    assert_disjoint_from_gold(scenarios)
    states = []
    for s in scenarios:
        turns = ideal_turns(s, strategy, max_turns)
        states += [turn for k, (turn, _) in enumerate(turns) if k % every == 0]
    return states


def play_from(state: TurnState, scenario: Scenario, completion: str, max_turns: int = 40,
              reward: Callable[[], Any] = JudgeReward) -> dict[str, float]:  # fmt: skip
    """Replay to ``state``, play ``completion`` for its seat, finish; the seat's reward and parts.

    Returns:
        ``env_reward`` (the seat's whole-episode reward) and the :data:`COMPONENTS`
        (``nan`` where the judge failed, so a failure is never a score).
    """
    env, obs, infos, players = start_ideal(scenario, max_turns, reward())
    total = 0.0
    final: dict[str, Any] = {}
    while env.agents:
        actions = {}
        for a in env.acting_agents():
            planned = act(players[a], obs[a], infos[a])
            is_sample = a == state.seat and env.transcript.steps == state.step
            actions[a] = completion if is_sample else planned  # the sample replaces the plan
        obs, rewards, _, _, infos = env.step(actions)
        total += rewards.get(state.seat, 0.0)
        final = infos.get(state.seat, final)
    return _columns(total, final)


def _columns(total: float, info: dict[str, Any]) -> dict[str, float]:
    nan = float("nan")
    if info.get("judge_failed", True):
        return {"env_reward": nan, **dict.fromkeys(COMPONENTS, nan)}
    parts = info.get("agent_scores", {})
    out = {"env_reward": total, **{c: float(parts.get(c, nan)) for c in COMPONENTS[:-1]}}
    out["malformed"] = float(info.get("malformed_actions", 0))
    return out


class EnvRollout:
    """TRL ``rollout_func``: sample the seat's turn, finish the episode in the env, score it.

    Args:
        states: the turn states behind the training prompts.
        scenarios: the scenarios they come from.
        generate: the sampling backend (in-process, the vLLM server, or a fake in tests).
        max_turns: episode length cap (must match how the states were built).
    """

    def __init__(self, states: Sequence[TurnState], scenarios: Sequence[Scenario],
                 generate: Generator, max_turns: int = 40) -> None:  # fmt: skip
        self.states = {st.key: st for st in states}
        self.scenarios = {s.scenario_id: s for s in scenarios}
        self.generate, self.max_turns = generate, max_turns

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        """Rollout output: ids and logprobs for TRL, plus the reward columns."""
        samples = self.generate(prompts, trainer)
        out: dict[str, list[Any]] = {"prompt_ids": [], "completion_ids": [], "logprobs": []}
        for prompt, sample in zip(prompts, samples, strict=True):
            state = self.states[prompt_key(prompt)]
            cols = play_from(state, self.scenarios[state.scenario_id], sample.text, self.max_turns)
            out["prompt_ids"].append(sample.prompt_ids)
            out["completion_ids"].append(sample.completion_ids)
            out["logprobs"].append(sample.logprobs)
            for k, v in {**cols, "seat": state.seat, "state": state.key}.items():
                out.setdefault(k, []).append(v)
        if all(lp is None for lp in out["logprobs"]):
            out["logprobs"] = None  # type: ignore[assignment]  # TRL skips the IS correction
        return out


def column_reward(column: str) -> Callable[..., list[float | None]]:
    """A TRL reward function that reads a rollout column (``None`` where the judge failed).

    Example:
        >>> column_reward("da")(["x", "y"], da=[0.5, float("nan")])
        [0.5, None]
    """

    def reward(completions: list[Any], **kwargs: Any) -> list[float | None]:
        return [None if v != v else float(v) for v in kwargs[column]]  # NaN -> None (unscored)

    reward.__name__ = f"{column}_reward"
    return reward


def reward_functions() -> tuple[list[Callable[..., Any]], list[float]]:
    """The env reward (weight 1) and each component (weight 0: logged per step, not optimised)."""
    funcs = [column_reward("env_reward"), *(column_reward(c) for c in COMPONENTS)]
    return funcs, [1.0] + [0.0] * len(COMPONENTS)
