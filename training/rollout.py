"""The env behind TRL's GRPO: turn states, a multi-turn ``rollout_func``, and reward columns.

**One sample per turn.** A GRPO prompt is one *turn state*: a Silver scenario played up to the
step where one seat (the trained agent) must act, rendered through the prompted players' own
prompt builder from that seat's observation. The states come from episodes the student itself
played (``training.dagger`` records their actions), so RL trains where the student's own play
leads; :func:`teacher_states` gives states of the teacher's episodes for a run without any.
TRL hands the rollout function each prompt ``num_generations`` times (one GRPO group). For each
copy the rollout

1. replays the recorded episode to that state (the env is deterministic),
2. plays the sampled completion as the seat's action, raw, so a malformed reply is parsed by the
   env into ``none`` and costs the format penalty like any other malformed action,
3. finishes the episode with the observable teacher in every other seat, and in the sampled
   seat the teacher (``continuation="teacher"``) or the student itself (``"student"``). The
   teacher reacts to the sample but also says, one turn later, what the sample left out, so
   with it an omission costs almost nothing and a reply that only asks is paid as well as one
   that shares: GRPO on that reward learnt to ask and share nothing (docs/training.md). The
   student keeps playing the seat as it would, so what it leaves out stays out. Its turns are
   sampled for all of a batch's episodes together: one call per turn of the seat, with
   *common random numbers*: at the same turn, every sample of a group draws its continuation
   with the same seed, so two samples that say the same thing are played on identically and
   a difference in reward is the samples' doing, not the continuation's luck,
4. and returns the seat's own reward from the env's training reward (``training_reward``),
   with its components.

**Guided groups** (``guide``). A student that never samples a move never learns that it
pays: the trained player never leaves, so no group can show that leaving once its plan is
said beats restating it to the turn limit. With a guide the first sample of each group is
replaced by another reply at that state (off-policy guidance, as in LUFFY, Yan et al. 2025):
the observable teacher's (``"teacher"``) or a leave (``"leave"``), played on and paid like the
others: where it earns more than the student's samples its advantage is positive and the
student moves toward it, where it earns less, away.
The student's own samples keep their policy-gradient role. Sampler logprobs are dropped for
such a batch (the guide's reply has none), so TRL applies no importance correction.

Only the sampled reply's tokens are returned as ``completion_ids``, so no token of another
agent or of the env ever carries gradient. A group whose samples all earned the same reward
teaches nothing (its advantages are 0); its tokens are masked out of the loss (``env_mask``)
so that it does not dilute the groups that do.
"""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from policies import ObservablePlayer
from policies.play import play_episode
from rewards import JudgeReward, column_reward
from scenarios import Scenario
from sotopia_tom_env import AgentAction, parallel_env
from training.data import layout_reply, reply_text, seat_prompt, teacher_turns
from training.separation import assert_disjoint_from_gold
from training.state import TurnState, prompt_key

COMPONENTS = ("da", "ia", "eff", "cpv", "cm", "malformed")
"""Per-seat score columns returned next to ``env_reward`` (logged by TRL as reward functions)."""
GROUP_COLUMNS = ("tied", "distinct")
"""Per-sample group diagnostics, logged the same way: 1.0 when its group tied (masked out of the
loss), and the share of distinct replies among its group's samples (a peaked policy samples the
same reply again, so its group ties: the RL stage's signal is the share of untied groups)."""


def training_reward(max_turns: int) -> JudgeReward:
    """The reward RL optimises: the seat's episodic reward, paid as it is earned.

    Dense per-turn terms, efficiency over the episode's fixed horizon of ``max_turns`` (filler
    cannot raise it) and relayed secrets charged (``docs/metrics.md``).
    """
    return JudgeReward(dense=True, eff_horizon=max_turns)


class Generator(Protocol):
    """Samples one reply per prompt: returns ``(prompt_ids, completion_ids, logprobs, text)``."""

    def __call__(self, prompts: list[list[dict[str, Any]]], trainer: Any,
                 seeds: list[int] | None = None) -> list[Sample]:  # fmt: skip
        """One sample per prompt, in order; ``seeds`` fixes each prompt's sampling."""


@dataclass
class Sample:
    """One generated reply."""

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float] | None
    text: str


def teacher_states(scenarios: Sequence[Scenario], *, strategy: str = "basic",
                   options: Sequence[str] = (), max_turns: int = 40,
                   every: int = 1) -> list[TurnState]:  # fmt: skip
    """Turn states of observable-teacher self-play: every ``every``-th acting turn."""
    assert_disjoint_from_gold(scenarios)
    states = []
    for s in scenarios:
        turns = teacher_turns(s, strategy, max_turns, options)
        history = tuple((t.seat, a.model_dump_json()) for t, a in turns)
        states += [
            TurnState(t.scenario_id, t.seat, t.step, t.prompt, history[: t.step])
            for k, (t, _) in enumerate(turns)
            if k % every == 0
        ]
    return states


def recorded_states(episodes: Path, scenarios: Sequence[Scenario], *, strategy: str = "basic",
                    options: Sequence[str] = (), max_turns: int = 30,
                    every: int = 1) -> list[TurnState]:  # fmt: skip
    """Turn states of the episodes a player recorded (``training.dagger``'s episodes.jsonl)."""
    assert_disjoint_from_gold(scenarios)
    by_id = {s.scenario_id: s for s in scenarios}
    states = []
    for line in Path(episodes).read_text().splitlines():
        record = json.loads(line)
        s = by_id.get(record["scenario_id"])
        if s is not None:
            seen, _ = replay(record, s, max_turns, strategy, options)
            states += [x.state for x in seen[::every]]
    return states


@dataclass
class Seen:
    """A turn state of a recorded episode, with what its seat saw there."""

    state: TurnState
    observation: dict[str, Any]
    info: dict[str, Any]


def replay(record: dict[str, Any], s: Scenario, max_turns: int, strategy: str = "basic",
           options: Sequence[str] = ()) -> tuple[list[Seen], dict[str, tuple[Any, Any]]]:  # fmt: skip
    """Every acting turn of a recorded episode, and each seat's reset observation and info."""
    actions = [tuple(a) for a in record["actions"]]
    env = parallel_env(scenarios=[s], reward_fn=None, max_turns=max_turns)
    obs, infos = env.reset(options={"scenario": s})
    start = {a: (obs[a], infos[a]) for a in obs}
    seen = []
    for step, (agent, text) in enumerate(actions):
        if not env.agents or env.acting_agents() != [agent]:
            break  # the record does not fit this env (another scenario text or settings)
        prompt = seat_prompt(strategy, obs[agent]["text"], infos[agent]["role"], s.roles, options)
        state = TurnState(s.scenario_id, agent, step, prompt, tuple(actions[:step]))
        seen.append(Seen(state, obs[agent], infos[agent]))
        obs, _, _, _, infos = env.step({agent: text})
    return seen, start


def teacher_reply(state: TurnState, scenario: Scenario, max_turns: int,
                  options: Sequence[str] = ()) -> str:  # fmt: skip
    """The observable teacher's reply at ``state``, written as a served player writes it.

    It labels every earlier turn of the seat too, so its counters (turns since it spoke, turns
    with nothing new) are what they would be had it watched the episode.
    """
    env = parallel_env(scenarios=[scenario], reward_fn=None, max_turns=max_turns)
    obs, infos = env.reset(options={"scenario": scenario})
    teacher = ObservablePlayer(state.seat)
    teacher.reset(obs[state.seat], infos[state.seat])
    for agent, text in state.history:
        if agent == state.seat:
            teacher.label(obs[agent])
        obs, *_ = env.step({agent: text})
    return layout_reply(teacher.label(obs[state.seat]), scenario.roles, options)


def play_from(state: TurnState, scenario: Scenario, completion: str, max_turns: int = 40,
              reward: Callable[[int], Any] = training_reward) -> dict[str, float]:  # fmt: skip
    """Replay to ``state``, play ``completion`` for its seat, let the teacher finish; its reward.

    Returns:
        ``env_reward`` (the seat's whole-episode reward) and the :data:`COMPONENTS`
        (``nan`` where the judge failed, so a failure is never a score).
    """
    _, total, final = finish(state, scenario, completion, max_turns, reward(max_turns))
    return _columns(total, final)


def finish(state: TurnState, scenario: Scenario, completion: str, max_turns: int,
           reward: Any) -> tuple[Any, float, dict[str, Any]]:  # fmt: skip
    """The finished env, the seat's summed reward and its last info, after ``completion``."""
    return asyncio.run(finish_async(state, scenario, completion, max_turns, reward))


async def finish_async(state: TurnState, scenario: Scenario, completion: str, max_turns: int,
                       reward: Any, student: Student | None = None,
                       ) -> tuple[Any, float, dict[str, Any]]:  # fmt: skip
    """:func:`finish`, the seat played on by ``student`` after the sample when one is given."""
    env = parallel_env(scenarios=[scenario], reward_fn=reward, max_turns=max_turns)
    seat = lambda a, _: Continuation(a, state, completion, student)  # noqa: E731
    result = await play_episode(env, seat, scenario=scenario)
    return env, result.returns.get(state.seat, 0.0), result.final_infos.get(state.seat, {})


Student = Callable[[dict[str, Any], dict[str, Any]], Awaitable[str]]
"""The student's reply to the seat's observation and info."""


class Continuation(ObservablePlayer):
    """A seat of a turn state's episode, played on from the state.

    Before the state it plays the recorded actions, at it (the state's seat) the sampled
    completion, after it the observable teacher, or in the state's seat ``student`` when given.
    The teacher labels every turn of its seat from the start, so its counters (turns since it
    spoke, turns with nothing new) are what they would be had it watched the episode; its
    actions count only after the sampled turn.
    """

    def __init__(self, agent: str, state: TurnState, completion: str,
                 student: Student | None = None) -> None:  # fmt: skip
        super().__init__(agent)
        self.state, self.completion, self.student = state, completion, student

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The recorded action, the completion, the student's or the teacher's, by the step."""
        label, step = self.label(observation), info["step"]
        if step < self.state.step:
            return self.state.history[step][1]
        if self.agent == self.state.seat and step == self.state.step:
            return self.completion
        if self.agent == self.state.seat and self.student is not None:
            return await self.student(observation, info)
        return label


def _columns(total: float, info: dict[str, Any]) -> dict[str, float]:
    nan = float("nan")
    if info.get("judge_failed", True):
        return {"env_reward": nan, **dict.fromkeys(COMPONENTS, nan)}
    parts = info.get("reward_scores", {})  # what is optimised: EFF over the fixed horizon
    out = {"env_reward": total, **{c: float(parts.get(c, nan)) for c in COMPONENTS[:-1]}}
    out["malformed"] = float(info.get("malformed_actions", 0))
    return out


CONTINUATIONS = ("teacher", "student", "none")
"""Who plays the sampled seat after its sampled turn (the other seats: the teacher); ``"none"``
ends the episode at the sampled turn and pays its one-step score (:func:`turn_score`)."""

GUIDES = ("teacher", "leave")
"""What may stand in for the first sample of each group (``EnvRollout(guide=...)``)."""


class EnvRollout:
    """TRL ``rollout_func``: sample the seat's turn, finish the episode, score it.

    Args:
        states: the turn states behind the training prompts.
        scenarios: the scenarios they come from.
        generate: the sampling backend (in-process, the vLLM server, or a fake in tests).
        max_turns: episode length cap (must match how the states were built).
        continuation: who plays the seat after the sample (:data:`CONTINUATIONS`); the
            student's later turns are sampled by ``generate`` in the prompt of
            ``strategy`` and ``options``, as the states' prompts were built.
        guide: the first sample of each group is the observable teacher's reply
            (``"teacher"``) or a leave (``"leave"``), or the student's own (``""``; see the
            module docstring).
    """

    def __init__(self, states: Sequence[TurnState], scenarios: Sequence[Scenario],
                 generate: Generator, max_turns: int = 40, continuation: str = "teacher",
                 strategy: str = "basic", options: Sequence[str] = (),
                 guide: str = "") -> None:  # fmt: skip
        if continuation not in CONTINUATIONS:
            raise ValueError(f"continuation must be one of {CONTINUATIONS}, got {continuation!r}")
        if guide not in ("", *GUIDES):
            raise ValueError(f"guide must be one of {GUIDES} or empty, got {guide!r}")
        self.states = {st.key: st for st in states}
        self.scenarios = {s.scenario_id: s for s in scenarios}
        self.generate, self.max_turns = generate, max_turns
        self.continuation, self.strategy, self.options = continuation, strategy, tuple(options)
        self.guide = guide
        self.replies: dict[str, str] = {}  # the guide's reply per turn state, once computed

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        """Rollout output: ids and logprobs for TRL, plus the reward columns."""
        samples = self.generate(prompts, trainer)
        states = [self.states[prompt_key(p)] for p in prompts]
        firsts = {st.key: k for k, st in reversed(list(enumerate(states)))}
        guided = sorted(firsts.values()) if self.guide else []
        for k in guided:
            samples[k] = self._guide_sample(states[k], samples[k], trainer)
        finished = asyncio.run(self._finish_all(states, [s.text for s in samples], trainer))
        out: dict[str, list[Any]] = {"prompt_ids": [], "completion_ids": [], "logprobs": []}
        for state, sample, (_, total, final) in zip(states, samples, finished, strict=True):
            cols = _columns(total, final)
            out["prompt_ids"].append(sample.prompt_ids)
            out["completion_ids"].append(sample.completion_ids)
            out["logprobs"].append(sample.logprobs)
            for k, v in {**cols, "seat": state.seat, "state": state.key}.items():
                out.setdefault(k, []).append(v)
        out["env_mask"] = _mask_tied_groups(out["state"], out["env_reward"], out["completion_ids"])
        out["tied"] = [float(not any(m)) for m in out["env_mask"]]
        texts: dict[str, list[str]] = {}
        for key, sample in zip(out["state"], samples, strict=True):
            texts.setdefault(key, []).append(sample.text)
        out["distinct"] = [len(set(texts[k])) / len(texts[k]) for k in out["state"]]
        if self.guide:
            out["guide_edge"] = _guide_edge(out["state"], out["env_reward"], set(guided))
        if self.guide or all(lp is None for lp in out["logprobs"]):
            out["logprobs"] = None  # type: ignore[assignment]  # TRL skips the IS correction
        return out

    def _guide_sample(self, state: TurnState, sample: Sample, trainer: Any) -> Sample:
        """The guide's reply at ``state`` as a sample of the same prompt (ending in EOS)."""
        if state.key not in self.replies:
            scenario = self.scenarios[state.scenario_id]
            self.replies[state.key] = (
                teacher_reply(state, scenario, self.max_turns, self.options)
                if self.guide == "teacher"
                else reply_text(AgentAction.leave())
            )
        text, tok = self.replies[state.key], trainer.processing_class
        ids = tok(text, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        return Sample(sample.prompt_ids, ids, None, text)

    async def _finish_all(self, states: list[TurnState], completions: list[str],
                          trainer: Any) -> list[tuple[Any, float, dict[str, Any]]]:  # fmt: skip
        """Every sample's episode, played side by side; the student's turns batched per call.

        Each episode waits at its student turns; once every unfinished one waits, their
        prompts go to ``generate`` as one batch (the server batches them on its own), each
        with its :func:`continuation_seed`.
        """
        waiting: list[tuple[str, int, asyncio.Future[str]]] = []
        train_step = getattr(getattr(trainer, "state", None), "global_step", 0)

        def student(state: TurnState, roles: Sequence[str]) -> Student:
            async def reply(observation: dict[str, Any], info: dict[str, Any]) -> str:
                prompt = seat_prompt(self.strategy, observation["text"], info["role"], roles,
                                     self.options)  # fmt: skip
                seed = continuation_seed(state.key, train_step, info["step"])
                future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
                waiting.append((prompt, seed, future))
                return await future

            return reply

        plays = []
        if self.continuation == "none":  # one step: no partner plays on, nothing to sample
            return [await turn_score(st, self.scenarios[st.scenario_id], text, self.max_turns)
                    for st, text in zip(states, completions, strict=True)]  # fmt: skip
        for st, text in zip(states, completions, strict=True):
            s = self.scenarios[st.scenario_id]
            seat = student(st, s.roles) if self.continuation == "student" else None
            reward = training_reward(self.max_turns)
            plays.append(asyncio.ensure_future(
                finish_async(st, s, text, self.max_turns, reward, seat)))  # fmt: skip
        while True:
            while len(waiting) < sum(not p.done() for p in plays):
                await asyncio.sleep(0)  # let every episode run on to its next student turn
            if not waiting:
                break
            batch, waiting[:] = list(waiting), []
            prompts = [[{"role": "user", "content": prompt}] for prompt, _, _ in batch]
            seeds = [seed for _, seed, _ in batch]
            # the generator runs its own event loop (the server's client): off this one
            replies = await asyncio.to_thread(self.generate, prompts, trainer, seeds)
            for (_, _, reply), sample in zip(batch, replies, strict=True):
                reply.set_result(sample.text)
        return [p.result() for p in plays]

    def probe(self, prompts: list[Any], trainer: Any, samples: int) -> list[bool]:
        """Whether ``samples`` replies to each prompt from the current policy differ in reward.

        A group that ties teaches GRPO nothing, and a peaked policy ties on most turn states;
        probing the starting policy finds the states it can learn from.
        """
        out = self([p for p in prompts for _ in range(samples)], trainer)
        return [not out["tied"][k * samples] for k in range(len(prompts))]


async def turn_score(state: TurnState, s: Scenario, reply: str,
                     eff_turns: int) -> tuple[None, float, dict[str, Any]]:  # fmt: skip
    """What the seat controls when the episode ends right after ``reply`` (``nan``: no verdict).

    Its disclosure and inquiry alignment under the training reward (an ask for what it already
    received earns nothing), less the reward's leak penalty per violation and reward-only leak
    event and its format penalty for a malformed reply. Not the composite: with the seat's needs
    not yet answered its efficiency, and so its InfoMgmt, is 0 whatever it says, so every early
    reply would tie. Returned as :meth:`EnvRollout._finish_all` returns an episode (no result,
    the score, the seat's final info).
    """
    actions = [*state.history, (state.seat, reply)]
    reward = training_reward(eff_turns)
    env = parallel_env(scenarios=[s], reward_fn=reward, max_turns=len(actions))
    result = await play_episode(env, lambda a, _: Replay(a, actions), scenario=s)
    info = result.final_infos.get(state.seat, {})
    if info.get("judge_failed", True):
        return None, float("nan"), info
    parts, leaks = info["reward_scores"], info["violation_events"] + info["relay_events"]
    value = parts["da"] + parts["ia"] - reward.leak_penalty * leaks
    value -= reward.format_penalty * info["malformed_actions"]
    return None, round(value, 6), info


class Replay:
    """Plays one seat's recorded actions back, step by step.

    ``actions`` holds ``(agent, text)`` per env step, as records and turn states keep them.
    """

    name = "replay"

    def __init__(self, agent: str, actions: Sequence[Sequence[str]]) -> None:
        self.agent, self.actions = agent, actions

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Nothing to reset: the record decides."""

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The recorded action of this step."""
        return self.actions[info["step"]][1]


def continuation_seed(state_key: str, train_step: int, turn: int) -> int:
    """The sampling seed of the student's ``turn`` after a sample of the turn state.

    The same for every sample of a group (common random numbers), new at each training step.
    """
    return zlib.crc32(f"{state_key}|{train_step}|{turn}".encode())


def _mask_tied_groups(states: list[str], rewards: list[float],
                      completions: list[list[int]]) -> list[list[int]]:  # fmt: skip
    """Token masks: 0 for every sample of a group whose rewards are all equal, else 1."""
    groups: dict[str, set[float | str]] = {}
    for key, r in zip(states, rewards, strict=True):
        groups.setdefault(key, set()).add(round(r, 9) if r == r else "unscored")
    return [[0 if len(groups[key]) == 1 else 1] * len(ids)
            for key, ids in zip(states, completions, strict=True)]  # fmt: skip


def _guide_edge(states: list[str], rewards: list[float], guide: set[int]) -> list[float]:
    """Per row: its group's guide reward minus the mean of the group's student samples."""
    groups: dict[str, tuple[list[float], list[float]]] = {}
    for k, (key, r) in enumerate(zip(states, rewards, strict=True)):
        groups.setdefault(key, ([], []))[k not in guide].append(r)
    edge = {key: t[0] - sum(s) / len(s) if t and s else float("nan")
            for key, (t, s) in groups.items()}  # fmt: skip
    return [edge[key] for key in states]


def reward_functions(guided: bool = False) -> tuple[list[Callable[..., Any]], list[float]]:
    """The env reward (weight 1) and each component (weight 0: logged per step, not optimised).

    With ``guided``, also how much the guide's sample beat the student's (``guide_edge``).
    """
    logged = (*COMPONENTS, *GROUP_COLUMNS, *(("guide_edge",) if guided else ()))
    return [column_reward("env_reward"), *map(column_reward, logged)], [1.0] + [0.0] * len(logged)
