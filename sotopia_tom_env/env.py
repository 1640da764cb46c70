"""Sotopia-ToM: privacy-aware information sharing among 3-5 workplace agents.

## Description
Each episode plays one scenario: a shared decision (the *scenario goal*) and 3-5 agents with
roles, public and private facts, a sharing policy and an objective that hints at what they need
to learn. Agents talk publicly or by direct message. A judge later scores Disclosure Alignment,
Inquiry Alignment, Efficiency and Critical Privacy Violations from the transcript.

## Agents
Stable ids ``agent_0 … agent_{k-1}`` in scenario order; ``possible_agents`` covers the largest
scenario of the set. ``infos[agent]["role"]`` and the observation text give the role name.

## Observation Space
``Dict(text=UnicodeText, action_mask=MultiBinary(3 + len(possible_agents)))``. ``text`` is
prompt-ready: the shared scenario context, the agent's own brief, every message it can see
(public ones, its own, and direct messages addressed to it, each with its global ``[Rr.u]`` id)
and whose turn it is. ``action_mask[:3]`` allows none/speak/leave; ``action_mask[3 + i]``
allows ``agent_i`` as a recipient. ``infos[agent]["new_messages"]`` holds the structured
messages that became visible to it this step. ``env.action_instructions(agent)`` is the text
that tells a chat model how to reply (the JSON fields, public vs direct message, the roles it
may address), the same words the prompted players use.

## Action Space
``Dict(action_type=Discrete(3), argument=Text, to=MultiBinary(n))``. ``step`` also accepts an
:class:`~sotopia_tom_env.actions.AgentAction`, a dict with role names in ``to``, or the raw LLM
reply string. Malformed actions become ``none`` and ``infos[agent]["action_error"]`` says why;
so does a direct message that lists an agent who has left (its mask bit is 0 then). Actions of
agents whose turn it is not are ignored. Programmer errors raise (``actions`` not a dict of this
episode's agent ids, ``step`` with no running episode); see ``docs/environment.md``.

## Rewards
``parallel_env()`` scores each finished episode with the rule judge and gives every agent its
per-agent composite (CM) minus a fixed penalty per privacy-violation event and format
penalties, at the last step; ``infos[agent]["scores"]`` and ``["agent_scores"]`` hold the
breakdown. Other reward functions (an LLM judge, dense shaping, none) plug in through
``reward_fn``; see ``rewards.reward``. If the
reward function raises, the step still completes with 0 reward and ``infos[agent]["judge_failed"]``
/ ``["judge_error"]`` say why.

## Episode End
Terminated when fewer than two agents remain (``leave``) or after more than
``max_stale_turns`` consecutive silent steps (a step where nobody speaks or leaves counts once,
in both turn orders); truncated after ``max_turns`` steps. All agents end together.

## Arguments
| argument | default | meaning |
|---|---|---|
| ``scenarios`` | ``"tiny"`` | shipped set name, file/folder path, or a list of ``Scenario``; validated (errors raise ``scenarios.InvalidScenario``) |
| ``turn_order`` | ``"round-robin"`` | one speaker per step, or ``"simultaneous"`` |
| ``max_turns`` | 60 | steps before truncation |
| ``max_stale_turns`` | 4 | silent steps tolerated in a row |
| ``max_message_chars`` | 2000 | longest accepted message |
| ``review_scenarios`` | ``True`` | refuse scenarios failing the review rules; ``False``: only unplayable ones |
| ``render_mode`` | ``None`` | ``"ansi"`` or ``"human"`` |
| ``reward_fn`` | ``"rule"`` | a :class:`Rewarder`, ``"rule"`` or ``None`` (anything else raises) |

## Version History
* v1: rewards charge a fixed penalty per privacy violation (leaking never pays); message text
  is rendered on one line with brackets and headings escaped (no forged messages); scenarios
  are validated when the env is built; DMs to departed agents are refused; in simultaneous
  mode an all-silent step counts once towards ``max_stale_turns``.
* v0: initial release.
"""

from __future__ import annotations

import logging
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import aec_wrapper_fn
from pydantic import BaseModel, ConfigDict, Field

import scenarios as scenario_sets
from scenarios import Scenario, require_valid
from sotopia_tom_env.actions import PARSED_NONE, ParsedAction, parse_action
from sotopia_tom_env.ansi import render_text
from sotopia_tom_env.arguments import ResetNeeded, check_actions, check_options, check_reward_fn
from sotopia_tom_env.brief import STATUS_HEADING, observation_header
from sotopia_tom_env.instructions import reply_format
from sotopia_tom_env.routing import AgentID, Roster, agent_ids
from sotopia_tom_env.spaces import (
    ACTION_TYPES,
    MAX_OBSERVATION_CHARS,
    ActionSpace,
    observation_space,
)
from sotopia_tom_env.transcript import Message, Transcript

log = logging.getLogger(__name__)


class EnvConfig(BaseModel):
    """Settings of :class:`SotopiaToMEnv` (validated; unknown keys are an error)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    scenarios: str | Path | list[Scenario] = Field(
        default="tiny", description="Shipped set name, a scenario file/folder, or Scenario objects."
    )
    turn_order: Literal["round-robin", "simultaneous"] = "round-robin"
    max_turns: int = Field(default=60, ge=1, description="Steps before truncation.")
    max_stale_turns: int = Field(default=4, ge=0, description="Silent turns tolerated in a row.")
    max_message_chars: int = Field(default=2000, ge=1, le=100_000)
    review_scenarios: bool = Field(
        default=True,
        description="Refuse scenarios that fail the paper's review rules; False refuses only "
        "what cannot be played (agent count, roles, ids), e.g. to play a deliberately bad seed.",
    )
    render_mode: Literal["ansi", "human"] | None = None


class Rewarder(Protocol):
    """What the env calls to turn an episode into rewards (see the ``rewards`` package)."""

    def reset(self, scenario: Scenario, transcript: Transcript) -> None:
        """Start scoring a new episode whose transcript will grow in place."""

    def step(
        self, new_messages: list[Message], action_errors: dict[AgentID, str], done: bool
    ) -> tuple[dict[AgentID, float], dict[AgentID, dict[str, Any]]]:
        """Rewards for this step and extra info per agent (the breakdown when ``done``)."""


class SotopiaToMEnv(ParallelEnv[AgentID, dict[str, Any], Any]):
    """The Sotopia-ToM environment (see the module docstring for the full description)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "sotopia_tom_v1",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": True,
    }

    def __init__(self, reward_fn: Rewarder | Literal["rule"] | None = None, **kwargs: Any) -> None:
        self.config = EnvConfig(**kwargs)
        self.reward_fn: Rewarder | None = check_reward_fn(reward_fn)
        self.scenarios = _as_scenarios(self.config.scenarios, self.config.review_scenarios)
        self.render_mode = self.config.render_mode
        n_max = max(len(s.agents) for s in self.scenarios)
        self.possible_agents = agent_ids(n_max)
        self.agents: list[AgentID] = []
        self._obs_spaces = {a: observation_space(n_max) for a in self.possible_agents}
        self._act_spaces = {
            a: ActionSpace(n_max, self.config.max_message_chars) for a in self.possible_agents
        }
        self.np_random, self.np_random_seed = seeding.np_random()
        self.scenario: Scenario | None = None

    def observation_space(self, agent: AgentID) -> Any:
        """The (cached) observation space of ``agent``."""
        return self._obs_spaces[agent]

    def action_space(self, agent: AgentID) -> Any:
        """The (cached) action space of ``agent``."""
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode on a sampled scenario, or on ``options["scenario"]`` (id or object).

        Raises:
            TypeError, ValueError: for malformed ``options`` or an unknown scenario id.
            scenarios.InvalidScenario: for a ``Scenario`` object that fails validation.
        """
        choice = check_options(options)
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        s = self.scenario = self._pick(choice)
        self.roster = Roster(s.roles)
        self.agents = list(self.roster.ids)
        self.transcript = Transcript(
            scenario_id=s.id, sector=s.sector, scenario_goal=s.scenario_goal, roles=s.roles
        )
        self.turn_log: list[dict[str, Any]] = []
        self._active = list(self.agents)
        self._speaker = 0
        self._stale = 0
        self._rendered = 0
        self._headers = {
            a: observation_header(s, self.roster, i) for i, a in enumerate(self.agents)
        }
        self._views = {a: _Conversation() for a in self.agents}
        self._masks = self._build_masks()
        if self.reward_fn is not None:
            self.reward_fn.reset(s, self.transcript)
        infos = self._infos({}, {})
        for info in infos.values():  # public facts a player needs once: who is who, message limit
            info["participants"] = dict(self.roster.role_of)
            info["max_message_chars"] = self.config.max_message_chars
        return self._observe_all(done=False), infos

    def step(self, actions: dict[AgentID, Any]):
        """Apply the in-turn agents' actions; see the module docstring.

        Raises:
            ResetNeeded: before ``reset`` or after the episode ended.
            TypeError, ValueError: if ``actions`` is not a dict keyed by this episode's agents.
        """
        if not self.agents:
            when = "before reset()" if self.scenario is None else "after the episode ended"
            raise ResetNeeded(f"step() called {when}; call reset() to start an episode")
        check_actions(actions, self.agents)
        acting = self.acting_agents()
        parsed, errors = self._parse(actions, acting)
        new = self.transcript.add_step(
            (a, p.recipients, p.action_type, p.argument)
            for a, p in parsed.items()
            if p.action_type != "none"
        )
        self._record(parsed, errors)
        terminated = len(self._active) < 2 or self._stale > self.config.max_stale_turns
        truncated = not terminated and self.transcript.steps >= self.config.max_turns
        done = terminated or truncated
        rewards = dict.fromkeys(self.agents, 0.0)
        extra: dict[AgentID, dict[str, Any]] = {}
        if self.reward_fn is not None:
            step_rewards, extra = self._score(new, errors, done)
            rewards.update(step_rewards)
        delivered = self._deliver(new)
        obs = self._observe_all(done)
        infos = self._infos(delivered, errors, extra)
        terms = dict.fromkeys(self.agents, terminated)
        truncs = dict.fromkeys(self.agents, truncated)
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos

    def acting_agents(self) -> list[AgentID]:
        """Who acts in the next step: the current speaker, or every active agent."""
        if not self.agents:
            return []
        if self.config.turn_order == "simultaneous":
            return list(self._active)
        return [self.roster.ids[self._speaker]]

    def action_instructions(self, agent: AgentID) -> str:
        """How ``agent`` replies: the JSON fields, public vs direct message, valid recipients.

        The same words the prompted players end their prompts with (``instructions``), naming
        the roles still in the conversation; append it to ``observation["text"]`` to prompt
        any chat model.

        Raises:
            ResetNeeded: no episode is running.
            ValueError: ``agent`` is not an agent of this episode.
        """
        if not self.agents:
            raise ResetNeeded("action_instructions() needs a running episode; call reset() first")
        if agent not in self.roster.ids:
            raise ValueError(f"unknown agent {agent!r}; this episode has {self.roster.ids}")
        others = [self.roster.role_of[a] for a in self._active if a != agent]
        return reply_format(others)

    def render(self) -> str | None:
        """``ansi``: the omniscient transcript as text; ``human``: print what is new."""
        if self.render_mode is None or self.scenario is None:
            return None
        if self.render_mode == "ansi":
            return render_text(self.transcript, self.transcript.messages)
        print(
            render_text(
                self.transcript,
                self.transcript.messages[self._rendered :],
                header=self._rendered == 0,
            ),
            end="",
        )
        self._rendered = len(self.transcript.messages)
        return None

    def close(self) -> None:
        """Nothing to release."""

    # -- internals ---------------------------------------------------------------------------

    def _score(self, new: list[Message], errors: dict[AgentID, str], done: bool):
        try:
            return self.reward_fn.step(new, errors, done)  # type: ignore[union-attr]
        except Exception as e:  # a failing judge must not take the episode down with it
            why = f"{type(e).__name__}: {e}"[:500]
            log.warning("reward function failed at step %d: %s", self.transcript.steps, why)
            return {}, {a: {"judge_failed": True, "judge_error": why} for a in self.agents}

    def _pick(self, choice: Any) -> Scenario:
        if isinstance(choice, Scenario):
            require_valid([choice], review=self.config.review_scenarios)
            scenario = choice
        elif choice is not None:
            matches = [s for s in self.scenarios if s.id == str(choice)]
            if not matches:
                ids = ", ".join(s.id for s in self.scenarios[:8])
                raise ValueError(
                    f"unknown scenario {choice!r}; this env has {len(self.scenarios)} (e.g. {ids})"
                )
            scenario = matches[0]
        else:
            scenario = self.scenarios[int(self.np_random.integers(len(self.scenarios)))]
        if len(scenario.agents) > len(self.possible_agents):
            raise ValueError(
                f"scenario {scenario.id} has {len(scenario.agents)} agents; this env supports "
                f"{len(self.possible_agents)} (construct it with that scenario in `scenarios`)"
            )
        return scenario

    def _parse(self, actions: dict[AgentID, Any], acting: Sequence[AgentID]):
        parsed: dict[AgentID, ParsedAction] = {}
        errors: dict[AgentID, str] = {}
        for a in acting:
            parsed[a], err = parse_action(
                actions.get(a), a, self.roster, self.config.max_message_chars
            )
            gone = [r for r in parsed[a].recipients if r not in self._active]
            if gone:  # the whole message is refused: a partial DM would change its audience
                names = ", ".join(f"{self.roster.role_of[r]} ({r})" for r in gone)
                parsed[a], err = PARSED_NONE, f"{names} has left the conversation; not sent"
            if err:
                errors[a] = err
        return parsed, errors

    def _record(self, parsed: dict[AgentID, ParsedAction], errors: dict[AgentID, str]) -> None:
        step = self.transcript.steps - 1
        for a, p in parsed.items():
            self.turn_log.append(
                {"step": step, "agent": a, "action_type": p.action_type, "error": errors.get(a)}
            )
            if p.action_type == "leave":
                self._active.remove(a)
        # A step counts as stale once when nobody acted, whatever the agent order or turn order.
        silent = all(p.action_type == "none" for p in parsed.values())
        self._stale = self._stale + 1 if silent else 0
        if any(p.action_type == "leave" for p in parsed.values()):
            self._masks = self._build_masks()
        if self.config.turn_order == "round-robin" and self._active:
            self._speaker = self._next_speaker()

    def _next_speaker(self) -> int:
        n = len(self.roster.ids)
        for k in range(1, n + 1):
            i = (self._speaker + k) % n
            if self.roster.ids[i] in self._active:
                return i
        return self._speaker

    def _deliver(self, new: list[Message]) -> dict[AgentID, list[dict[str, Any]]]:
        """Show each new message to its audience; return what each agent newly sees, dumped.

        Each message is rendered and dumped once; its line and its dict are shared by all the
        agents that see it.
        """
        delivered: dict[AgentID, list[dict[str, Any]]] = {a: [] for a in self.agents}
        for m in new:
            line = "\n" + m.line()
            # A field-for-field copy is what ``model_dump`` returns for these flat fields (the
            # tests compare the two), at a tenth of the cost.
            dumped = dict(m.__dict__)
            # Public: everyone; otherwise the sender and the recipients (routing.visible_to).
            audience = dict.fromkeys((m.sender, *m.recipients)) if m.recipients else delivered
            for a in audience:
                self._views[a].append(line)
                delivered[a].append(dumped)
        return delivered

    def _observe_all(self, done: bool) -> dict[AgentID, dict[str, Any]]:
        """Every agent's observation; what all of them share is worked out once per step."""
        acting = [] if done else self.acting_agents()
        step = f"Step {self.transcript.steps + 1} of at most {self.config.max_turns}."
        if done:
            waiting = "The conversation has ended."
        else:
            speaker = ", ".join(self.roster.role_of[a] for a in acting)
            waiting = f"{step} It is {speaker}'s turn; you wait."
        prefix = f"\n\n{STATUS_HEADING}\n"
        statuses = {
            "acting": f"{prefix}{step} It is your turn: speak, stay silent (none) or leave.",
            "left": f"{prefix}{step} You have left the conversation.",
            "waiting": prefix + waiting,
        }
        obs = {}
        for a in self.agents:
            is_acting = a in acting
            if done:
                status = statuses["waiting"]
            elif a not in self._active:
                status = statuses["left"]
            else:
                status = statuses["acting" if is_acting else "waiting"]
            head = self._headers[a]
            # The whole observation is capped; the conversation gets what the rest leaves.
            budget = MAX_OBSERVATION_CHARS - len(head) - len(status) - 40
            mask = self._masks[a] if is_acting else self._masks[None]
            obs[a] = {
                "text": self._views[a].text(head, status, budget),
                "action_mask": mask.copy(),
            }
        return obs

    def _build_masks(self) -> dict[AgentID | None, np.ndarray]:
        k, n_max = len(ACTION_TYPES), len(self.possible_agents)
        waiting = np.zeros(k + n_max, dtype=np.int8)
        waiting[0] = 1
        masks: dict[AgentID | None, np.ndarray] = {None: waiting}
        present = [self.roster.index_of[a] for a in self._active]
        for i, a in enumerate(self.roster.ids):
            m = np.zeros(k + n_max, dtype=np.int8)
            m[:k] = 1
            m[[k + j for j in present]] = 1  # only agents still in the conversation
            m[k + i] = 0
            masks[a] = m
        return masks

    def _infos(
        self,
        delivered: dict[AgentID, list[dict[str, Any]]],
        errors: dict[AgentID, str],
        extra: dict | None = None,
    ) -> dict[AgentID, dict[str, Any]]:
        turn = self.acting_agents() if self.agents else []
        step, rnd = self.transcript.steps, self.transcript.rounds  # once per step, not per agent
        infos = {}
        for a in self.agents:
            info: dict[str, Any] = {
                "role": self.roster.role_of[a],
                "step": step,
                "round": rnd,
                "acting": turn,
                "new_messages": delivered.get(a, []),
            }
            if a in errors:
                info["action_error"] = errors[a]
            if extra and a in extra:
                info.update(extra[a])
            infos[a] = info
        return infos


_OMITTED = "\n(earlier messages omitted)"
"""What stands in for the messages cut from a very long observation."""
_NOTHING_YET = "\n(nothing yet)"
"""The conversation part of an observation before the agent has seen any message."""

# A chunk is closed at this size: big enough that a capped observation joins only a few dozen
# pieces, small enough that cutting into one copies little.
_CHUNK_CHARS = 8192
_CHUNK_LINES = 64


class _Conversation:
    r"""The message lines one agent has seen, kept so that its observation is one copy per step.

    Each line (``"\n"`` + the message line) is appended once, when it becomes visible. Runs of
    lines are pre-joined into chunks, so the text is a join of a bounded number of pieces
    however long the conversation is, and the line offsets find where a capped text starts
    by bisection. The result equals the plain rendering: the brief, every seen line (or, when
    they do not fit ``budget``, :data:`_OMITTED` and the most recent whole lines that do), then
    the status.
    """

    __slots__ = ("_chunk_first", "_chunks", "_pending", "_pending_chars", "_starts", "_total")

    def __init__(self) -> None:
        self._starts: list[int] = []  # offset of each line in the uncut conversation text
        self._total = 0  # length of the uncut conversation text
        self._chunks: list[str] = []  # closed runs of lines, joined
        self._chunk_first: list[int] = []  # index of each chunk's first line
        self._pending: list[str] = []  # lines after the last chunk
        self._pending_chars = 0

    def append(self, line: str) -> None:
        r"""Add one seen message line (it must start with its only ``"\n"``)."""
        self._starts.append(self._total)
        self._total += len(line)
        self._pending.append(line)
        self._pending_chars += len(line)
        if self._pending_chars >= _CHUNK_CHARS or len(self._pending) >= _CHUNK_LINES:
            self._chunk_first.append(len(self._starts) - len(self._pending))
            self._chunks.append("".join(self._pending))
            self._pending, self._pending_chars = [], 0

    def text(self, head: str, status: str, budget: int) -> str:
        """``head`` + the conversation cut to ``budget`` characters + ``status``."""
        if not self._total:
            seen = _NOTHING_YET if len(_NOTHING_YET) <= budget else _OMITTED
            return head + seen + status
        if self._total <= budget:
            return "".join([head, *self._chunks, *self._pending, status])
        # Whole lines only (the tail of a cut line could pose as a message): keep the lines
        # starting at or after the first offset that leaves at most ``budget`` characters.
        i = bisect_left(self._starts, self._total - budget)
        n_chunked = len(self._starts) - len(self._pending)
        if i >= n_chunked:  # the cut falls among the pending lines (or after the last line)
            return "".join([head, _OMITTED, *self._pending[i - n_chunked :], status])
        k = bisect_right(self._chunk_first, i) - 1
        cut = self._starts[i] - self._starts[self._chunk_first[k]]
        first = self._chunks[k][cut:] if cut else self._chunks[k]
        return "".join([head, _OMITTED, first, *self._chunks[k + 1 :], *self._pending, status])


def _as_scenarios(source: str | Path | list[Scenario], review: bool) -> list[Scenario]:
    loaded = list(source) if isinstance(source, list) else scenario_sets.load(source)
    if not loaded:
        raise ValueError(f"scenarios={source!r} holds no scenarios")
    require_valid(loaded, None if isinstance(source, list) else str(source), review=review)
    return loaded


def parallel_env(
    reward_fn: Rewarder | Literal["rule"] | None = "rule", **kwargs: Any
) -> SotopiaToMEnv:
    """Create the parallel environment (the canonical entry point).

    Args:
        reward_fn: ``"rule"`` (default) scores each episode with the rule judge and gives every
            agent its episodic reward at the end (``rewards.JudgeReward``); pass another
            :class:`Rewarder` (e.g. ``JudgeReward(LLMJudge(...))`` or ``dense=True``) or ``None``
            for all-zero rewards.
        **kwargs: :class:`EnvConfig` fields.

    Example:
        >>> import sotopia_tom_env
        >>> env = sotopia_tom_env.parallel_env(scenarios="tiny")
        >>> obs, infos = env.reset(seed=0)
        >>> sorted(obs) == env.agents
        True
    """
    return SotopiaToMEnv(reward_fn=reward_fn, **kwargs)


raw_env = SotopiaToMEnv
env = aec_wrapper_fn(parallel_env)
"""The AEC form of :func:`parallel_env` (PettingZoo's standard conversion)."""
