"""The incrementally built observations equal a plain rendering from the transcript.

The env appends each visible message line once per viewer and joins pre-built chunks (see
``env._Conversation``). These tests replay random episodes (both turn orders, direct
messages, leaves, silence, hostile text) and compare every observation and the shared parts
of ``infos`` with a straightforward rendering computed from scratch at each step, with the
observation cap at its real size and at sizes small enough to cut the conversation.
"""

from __future__ import annotations

import importlib
import random

import pytest

import sotopia_tom_env
from sotopia_tom_env.brief import observation_header

# The module, not the AEC ``sotopia_tom_env.env`` function that shadows it on the package.
env_module = importlib.import_module("sotopia_tom_env.env")

WORDS = ["budget", "vendor", "risk", "pilot", "cost", "data", "staff", "review", "42", "q3"]
ODD = ["\n", "[R0.1] Boss (speak, public): hi", "## Now", "--- Round 2 ---", "é", "\u2028", "—"]


def _text(rng: random.Random) -> str:
    """A message of 1-30 words, now and then with line breaks, fake ids or headings."""
    words = rng.choices(
        WORDS + ODD, weights=[6] * len(WORDS) + [1] * len(ODD), k=rng.randint(1, 30)
    )
    return " ".join(words)


def _action(rng: random.Random, roles: list[str], me: str) -> dict:
    """Mostly speech (public or DM, sometimes to nobody valid), some silence, rare leaving."""
    kind = rng.choices(["speak", "none", "leave"], weights=[14, 3, 1])[0]
    if kind != "speak":
        return {"action_type": kind, "argument": "", "to": []}
    others = [r for r in roles if r != me]
    to = rng.sample(others, k=rng.choice([0, 0, 1, min(2, len(others))]))
    if rng.random() < 0.05:
        to = ["Nobody In Particular"]  # refused: an action_error, no message
    return {"action_type": "speak", "argument": _text(rng), "to": to}


def reference_text(env, agent: str, done: bool, cap: int) -> str:
    """The observation text rendered from scratch: brief, visible lines, status."""
    index = env.roster.index_of[agent]
    head = observation_header(env.scenario, env.roster, index)
    seen = "".join("\n" + m.line() for m in env.transcript.messages if m.visible_to(agent))
    seen = seen or "\n(nothing yet)"
    acting = [] if done else env.acting_agents()
    step = f"Step {env.transcript.steps + 1} of at most {env.config.max_turns}."
    if done:
        now = "The conversation has ended."
    elif agent not in env._active:
        now = f"{step} You have left the conversation."
    elif agent in acting:
        now = f"{step} It is your turn: speak, stay silent (none) or leave."
    else:
        names = ", ".join(env.roster.role_of[a] for a in acting)
        now = f"{step} It is {names}'s turn; you wait."
    status = f"\n\n## Now\n{now}"
    budget = cap - len(head) - len(status) - 40
    if len(seen) > budget:
        cut = seen.find("\n", len(seen) - budget)
        seen = "\n(earlier messages omitted)" + (seen[cut:] if cut >= 0 else "")
    return head + seen + status


def reference_round(env) -> int:
    """Rounds recounted from the messages (steps with an utterance, n_agents a round)."""
    blocks = len({m.step for m in env.transcript.messages})
    return -(-blocks // env.transcript.n_agents)


def check(env, obs: dict, infos: dict, new_ids: list[str], done: bool, cap: int) -> None:
    """Every observation and the per-step parts of every info equal the plain rendering."""
    assert sorted(obs) == sorted(infos)
    for agent, o in obs.items():
        assert o["text"] == reference_text(env, agent, done, cap), agent
        assert len(o["text"]) <= cap or cap < 4000  # below ~4k even the brief overflows
        info = infos[agent]
        assert info["step"] == env.transcript.steps
        assert info["round"] == reference_round(env)
        new = [m for m in env.transcript.messages if m.id in new_ids]
        assert info["new_messages"] == [m.model_dump() for m in new if m.visible_to(agent)]


def play(seed: int, cap: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """One random episode checked at every step; returns how many steps it took."""
    monkeypatch.setattr(env_module, "MAX_OBSERVATION_CHARS", cap)
    rng = random.Random(seed)
    env = sotopia_tom_env.parallel_env(
        reward_fn=None,
        scenarios="tiny",
        turn_order=rng.choice(["round-robin", "simultaneous"]),
        max_turns=rng.randint(1, 120),
        max_stale_turns=rng.randint(0, 6),
    )
    obs, infos = env.reset(seed=seed)
    check(env, obs, infos, [], False, cap)
    steps = 0
    while env.agents:
        roles = env.scenario.roles
        actions = {a: _action(rng, roles, env.roster.role_of[a]) for a in env.acting_agents()}
        before = len(env.transcript.messages)
        obs, _, terms, truncs, infos = env.step(actions)
        new_ids = [m.id for m in env.transcript.messages[before:]]
        done = all(terms.values()) or all(truncs.values())
        check(env, obs, infos, new_ids, done, cap)
        steps += 1
    return steps


@pytest.mark.parametrize("seed", range(12))
def test_observations_match_a_plain_rendering(seed, monkeypatch):
    assert play(seed, env_module.MAX_OBSERVATION_CHARS, monkeypatch) >= 1


@pytest.mark.parametrize("seed", range(24))
def test_cut_observations_match_a_plain_rendering(seed, monkeypatch):
    # Briefs are ~1.6-2.5k characters; these caps cut the conversation early and often,
    # including caps that leave no room for even one message line.
    cap = random.Random(seed).choice([0, 2000, 2600, 3000, 3500, 4500, 9000, 20000])
    assert play(1000 + seed, cap, monkeypatch) >= 1


def test_cut_lands_on_message_boundaries_in_a_long_episode(monkeypatch):
    """Hundreds of lines: chunks close and the cut moves through them."""
    monkeypatch.setattr(env_module, "MAX_OBSERVATION_CHARS", 30_000)
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios="tiny", max_turns=400)
    env.reset(options={"scenario": "tiny-4-agents"})
    rng = random.Random(7)
    while env.agents:
        speaker = env.acting_agents()[0]
        others = [r for a, r in env.roster.role_of.items() if a != speaker]
        act = {"action_type": "speak", "argument": _text(rng), "to": rng.sample(others, k=1)}
        if rng.random() < 0.5:
            act["to"] = []
        obs, *_ = env.step({speaker: act})
        for agent, o in obs.items():
            assert o["text"] == reference_text(env, agent, not env.agents, 30_000)
    text = obs["agent_0"]["text"]
    assert "\n(earlier messages omitted)\n[R" in text


def test_observation_texts_are_fresh_each_step():
    """A caller may keep an old observation: later steps must not change it."""
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios="tiny")
    obs0, _ = env.reset(options={"scenario": "tiny-3-agents"})
    kept = obs0["agent_1"]["text"]
    env.step({"agent_0": {"action_type": "speak", "argument": "hello", "to": []}})
    assert obs0["agent_1"]["text"] == kept
    assert "(nothing yet)" in kept
