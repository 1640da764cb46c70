"""Warm-start data: the scripted ideal player's turns on Silver, as a prompted player's prompts.

Each example is one acting turn of one agent in an episode where every seat is played by the
ideal player (``policies.IdealPlayer``). The prompt is exactly what the prompted strategy would
send on that turn (``policies.prompts.action_prompt`` over the agent's own observation), and the
completion is the ideal action as the reply JSON the player's schema asks for. A model trained
on these examples is therefore a drop-in player: same prompt, same reply format.

The mix teaches what a plain imitation probe missed (it repeated itself, posted private facts
publicly and rarely asked): direct messages and asks are repeated ``upweight`` times, silent
waits are thinned to ``keep_none`` and leaves to ``keep_leave``. Each seat leaves once per
episode, so kept whole (and repeated, as a first mix did) leaves were a quarter of the set, and
the model learnt to leave at any turn, its first included; in a 3-agent scenario two leaves
end the episode before anything is exchanged.
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
import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from policies.prompts import action_prompt
from policies.scripted import IdealPlayer
from scenarios import Scenario
from sotopia_tom_env import AgentAction, parallel_env
from training.separation import assert_disjoint_from_gold
from training.state import TurnState

KINDS = ("share_public", "share_dm", "ask_public", "ask_dm", "leave", "none")


@dataclass(frozen=True)
class MixConfig:
    """How turns are weighted in the warm-start set.

    Attributes:
        strategy: whose prompt the examples use (a prompted strategy name).
        upweight: copies of each direct-message and ask turn (the behaviours to stress).
        keep_none: share of silent waiting turns kept (most are uninformative).
        keep_leave: share of leave turns kept (a leave ends a seat's part for good).
        seed: seeds the thinning and the shuffle, so the set is reproducible.
        max_turns: episode length cap while recording.
    """

    strategy: str = "basic"
    upweight: int = 2
    keep_none: float = 0.25
    keep_leave: float = 0.25
    seed: int = 0
    max_turns: int = 40


def turn_examples(scenarios: Iterable[Scenario], strategy: str = "basic", max_turns: int = 40):
    """Every acting turn of ideal self-play on ``scenarios``, one example per turn, in order.

    Args:
        scenarios: training scenarios (checked to be disjoint from Gold first).
        strategy: the prompted strategy whose action prompt is rendered.
        max_turns: episode length cap.

    Returns:
        A list of dicts with ``prompt`` and ``completion`` in TRL's conversational
        prompt-completion form, plus ``scenario_id``, ``agent``, ``step`` and ``kind``.
    """
    chosen = list(scenarios)
    assert_disjoint_from_gold(chosen)
    return [_example(turn, action) for s in chosen for turn, action in ideal_turns(s, strategy, max_turns)]  # fmt: skip


def ideal_turns(s: Scenario, strategy: str = "basic", max_turns: int = 40):
    """Ideal self-play of ``s``: each acting turn as a :class:`TurnState` and the ideal action."""
    env, obs, infos, players = start_ideal(s, max_turns)
    out: list[tuple[TurnState, AgentAction]] = []
    while env.agents:
        actions = {}
        for a in env.acting_agents():
            role = infos[a]["role"]
            prompt = action_prompt(
                strategy, role, obs[a]["text"], [r for r in s.roles if r != role]
            )
            actions[a] = act(players[a], obs[a], infos[a])
            out.append((TurnState(s.scenario_id, a, env.transcript.steps, prompt), actions[a]))
        obs, _, _, _, infos = env.step(actions)
    return out


def start_ideal(s: Scenario, max_turns: int, reward: Any = None):
    """A fresh env on ``s`` (with ``reward``) and an ideal player per seat, all reset."""
    env = parallel_env(scenarios=[s], reward_fn=reward, max_turns=max_turns)
    obs, infos = env.reset(options={"scenario": s})
    players = {a: IdealPlayer(a, s) for a in env.agents}
    for a, p in players.items():
        p.reset(obs[a], infos[a])
    return env, obs, infos, players


def act(player: IdealPlayer, obs: dict[str, Any], info: dict[str, Any]) -> AgentAction:
    """The scripted player's action (its ``act`` is async only to fit the policy protocol)."""
    return asyncio.run(player.act(obs, info))


def reply_text(action: AgentAction) -> str:
    """The action as the reply a served player writes: compact JSON, fields in schema order.

    A player's reply comes from the server's structured outputs, which allow no whitespace
    between JSON tokens; a model trained on spaced JSON is pushed off its learnt tokens from the
    first field on, so the examples use the same compact form.

    Example:
        >>> reply_text(AgentAction.speak("Hi", to=["CFO"]))
        '{"action_type":"speak","argument":"Hi","to":["CFO"]}'
    """
    return json.dumps(action.model_dump(), ensure_ascii=False, separators=(",", ":"))


def _example(turn: TurnState, action: AgentAction) -> dict[str, Any]:
    return {
        "prompt": [{"role": "user", "content": turn.prompt}],
        "completion": [{"role": "assistant", "content": reply_text(action)}],
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
        elif row["kind"] in ("share_dm", "ask_dm", "ask_public"):
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
    scenario_text = [s.model_dump_json() for s in scenarios]
    key = json.dumps([asdict(config), template, scenario_text]).encode()
    path = Path(cache_dir) / f"sft-{hashlib.sha256(key).hexdigest()[:16]}.jsonl"
    if path.exists():
        return path
    rows = mix(turn_examples(scenarios, config.strategy, config.max_turns), config)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    tmp.replace(path)  # a killed build never leaves a half-written cache entry
    return path


def kind_counts(rows: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many examples of each kind, for logs and the data card."""
    counts = Counter(r["kind"] for r in rows)
    return {k: counts[k] for k in KINDS}
