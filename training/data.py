"""Warm-start data: the observable teacher's turns on Silver, as a prompted player's prompts.

Each example is one acting turn of one agent in an episode where every seat is played by the
observable teacher (``policies.ObservablePlayer``), which decides only from what its seat sees,
so every word of its reply is in the prompt or follows from it by a rule. (The ``ideal`` player
acts on ground truth the seat never sees, and a student that imitated it learnt to invent the
names of the items it asked for.) The prompt is exactly what the prompted strategy would send
on that turn (``policies.prompts.action_prompt`` over the agent's own observation, in the
layout the player options choose), and the completion is the teacher's action as the reply JSON
the player's schema asks for. A model trained on these examples is therefore a drop-in player:
same prompt, same reply format.

The mix repeats direct messages and asks ``upweight`` times and thins silent waits to
``keep_none`` and leaves to ``keep_leave``: each seat leaves once per episode, and kept whole
and repeated, leaves once taught a student to leave at any turn, its first included (in a
3-agent scenario two leaves end the episode before anything is exchanged).
Examples are reproducible from ``seed`` and cached as JSONL keyed by the settings.

Example:
    >>> import scenarios
    >>> rows = turn_examples(scenarios.load("silver")[:1])
    >>> sorted(rows[0]) == ["agent", "completion", "kind", "prompt", "scenario_id", "step"]
    True
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from policies.observable import ObservablePlayer
from policies.play import play_episode
from policies.prompts import action_prompt
from scenarios import Scenario
from sotopia_tom_env import AgentAction, parallel_env
from training.separation import assert_disjoint_from_gold
from training.state import TurnState

KINDS = ("share_public", "share_dm", "ask_public", "ask_dm", "leave", "none")
UPWEIGHTED = ("share_dm", "ask_public")
"""Kinds repeated ``upweight`` times: the turn that sends private facts and the objective's
questions by direct message is one per seat, while the follow-up asks (``ask_dm``) are already
the most common kind of the teacher's turns."""


@dataclass(frozen=True)
class MixConfig:
    """How turns are weighted in the warm-start set.

    Attributes:
        strategy: whose prompt the examples use (a prompted strategy name).
        options: player options that shape the prompt (``compact`` for the compact layout).
        upweight: copies of each turn of the :data:`UPWEIGHTED` kinds.
        keep_none: share of silent waiting turns kept (most are uninformative).
        keep_leave: share of leave turns kept (a leave ends a seat's part for good).
        seed: seeds the thinning and the shuffle, so the set is reproducible.
        max_turns: episode length cap while recording.
    """

    strategy: str = "basic"
    options: tuple[str, ...] = ()
    upweight: int = 2
    keep_none: float = 0.25
    keep_leave: float = 0.25
    seed: int = 0
    max_turns: int = 40


def turn_examples(scenarios: Iterable[Scenario], strategy: str = "basic", max_turns: int = 40,
                  options: Sequence[str] = ()) -> list[dict[str, Any]]:  # fmt: skip
    """Every acting turn of teacher self-play on ``scenarios``, one example per turn, in order.

    Args:
        scenarios: training scenarios (checked to be disjoint from Gold first).
        strategy: the prompted strategy whose action prompt is rendered.
        max_turns: episode length cap.
        options: player options of the prompt (``policies.prompts.PLAYER_OPTIONS``).

    Returns:
        A list of dicts with ``prompt`` and ``completion`` in TRL's conversational
        prompt-completion form, plus ``scenario_id``, ``agent``, ``step`` and ``kind``.
    """
    chosen = list(scenarios)
    assert_disjoint_from_gold(chosen)
    out = []
    for s in chosen:
        for turn, action in teacher_turns(s, strategy, max_turns, options):
            out.append(example(turn, action, s.roles, options))
    return out


def teacher_turns(s: Scenario, strategy: str = "basic", max_turns: int = 40,
                  options: Sequence[str] = ()) -> list[tuple[TurnState, AgentAction]]:  # fmt: skip
    """Observable-teacher self-play of ``s``: each acting turn as a :class:`TurnState` and action."""
    env = parallel_env(scenarios=[s], reward_fn=None, max_turns=max_turns)
    out: list[tuple[TurnState, AgentAction]] = []
    teacher = lambda a, _: RecordingTeacher(a, s, strategy, options, out)  # noqa: E731
    asyncio.run(play_episode(env, teacher, scenario=s))
    return out


class RecordingTeacher(ObservablePlayer):
    """The observable teacher, keeping each of its turns as a training state and its action."""

    def __init__(self, agent: str, s: Scenario, strategy: str, options: Sequence[str],
                 out: list[tuple[TurnState, AgentAction]]) -> None:  # fmt: skip
        super().__init__(agent)
        self.scenario, self.strategy, self.options, self.out = s, strategy, options, out

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """The teacher's action, after recording the turn's prompt beside it."""
        action = self.label(observation)
        prompt = seat_prompt(self.strategy, observation["text"], info["role"],
                             self.scenario.roles, self.options)  # fmt: skip
        self.out.append(
            (TurnState(self.scenario.scenario_id, self.agent, info["step"], prompt), action)
        )
        return action


def seat_prompt(strategy: str, text: str, role: str, roles: Sequence[str],
                options: Sequence[str] = ()) -> str:  # fmt: skip
    """The action prompt a prompted player of ``role`` sends on a turn with observation ``text``."""
    others = [r for r in roles if r != role]
    return action_prompt(strategy, role, text, others, options=options)


def reply_text(action: AgentAction, ids: dict[str, str] | None = None) -> str:
    """The action as the reply a served player writes: compact JSON, fields in schema order.

    A player's reply comes from the server's structured outputs, which allow no whitespace
    between JSON tokens; a model trained on spaced JSON is pushed off its learnt tokens from the
    first field on, so the examples use the same compact form. ``ids`` (role -> agent id)
    names the recipients by id, as the compact layout does.

    Example:
        >>> reply_text(AgentAction.speak("Hi", to=["CFO"]))
        '{"action_type":"speak","argument":"Hi","to":["CFO"]}'
        >>> reply_text(AgentAction.speak("Hi", to=["CFO"]), {"CFO": "agent_2"})
        '{"action_type":"speak","argument":"Hi","to":["agent_2"]}'
    """
    data = action.model_dump()
    if ids:
        data["to"] = [ids.get(r, r) for r in data["to"]]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def layout_reply(action: AgentAction, roles: Sequence[str], options: Sequence[str] = ()) -> str:
    """:func:`reply_text` in the prompt's layout: recipients by agent id in the compact one."""
    ids = {r: f"agent_{i}" for i, r in enumerate(roles)} if "compact" in options else None
    return reply_text(action, ids)


def example(turn: TurnState, action: AgentAction, roles: Sequence[str],
            options: Sequence[str] = ()) -> dict[str, Any]:  # fmt: skip
    """One training row: the turn's prompt and the action as the reply, in the prompt's layout."""
    return {
        "prompt": [{"role": "user", "content": turn.prompt}],
        "completion": [{"role": "assistant", "content": layout_reply(action, roles, options)}],
        "scenario_id": turn.scenario_id,
        "agent": turn.seat,
        "step": turn.step,
        "kind": kind_of(action),
    }


def kind_of(action: AgentAction) -> str:
    """Classify a turn: ``share_*``/``ask_*`` (public or DM), ``leave`` or ``none``.

    Example:
        >>> kind_of(AgentAction.speak("Could you share your budget?", to=["CFO"]))
        'ask_dm'
    """
    if action.action_type != "speak":
        return action.action_type
    what = "share" if action.argument.startswith("Sharing") else "ask"
    return f"{what}_{'dm' if action.to else 'public'}"


def mix(rows: Sequence[dict[str, Any]], config: MixConfig) -> list[dict[str, Any]]:
    """Apply the mix: thin silent and leave turns, repeat the stressed kinds, shuffle (seeded)."""
    rng = random.Random(config.seed)
    keep = {"none": config.keep_none, "leave": config.keep_leave}
    out = []
    for row in rows:
        if row["kind"] in keep:
            out += [row] if rng.random() < keep[row["kind"]] else []
        elif row["kind"] in UPWEIGHTED:
            out += [row] * config.upweight
        else:
            out.append(row)
    rng.shuffle(out)
    return out


def build_sft_dataset(scenarios: Sequence[Scenario], config: MixConfig, cache_dir: Path) -> Path:
    """Write (or reuse) the mixed warm-start set as JSONL and return its path.

    The file name hashes the settings, the scenarios' full content and the prompt template, so
    a changed setting, a regenerated scenario set (same ids, new text) or reworded prompts never
    reuse a stale file, and the same inputs always give the same bytes.
    """
    template = action_prompt(config.strategy, "{role}", "{observation}", ["{other}"])
    template += inspect.getsource(ObservablePlayer) + str(config.options)
    scenario_text = [s.model_dump_json() for s in scenarios]
    key = json.dumps([asdict(config), template, scenario_text]).encode()
    path = Path(cache_dir) / f"sft-{hashlib.sha256(key).hexdigest()[:16]}.jsonl"
    if path.exists():
        return path
    rows = mix(turn_examples(scenarios, config.strategy, config.max_turns, config.options), config)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    tmp.replace(path)  # a killed build never leaves a half-written cache entry
    return path


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The examples of a JSONL file (a cached warm-start set or a DAgger round's data)."""
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def kind_counts(rows: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many examples of each kind, for logs and the data card."""
    counts = Counter(r["kind"] for r in rows)
    return {k: counts[k] for k in KINDS}
