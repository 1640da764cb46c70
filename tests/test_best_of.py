import asyncio
import contextlib
import json
import math
import re

import pytest

import scenarios
from policies import ObservablePlayer, play_episode
from sotopia_tom_env import AgentAction, parallel_env
from sotopia_tom_env.llm.fake import FakeChatClient
from training import best_of, dagger
from training.rollout import training_reward

SHIPPED = "training/adapters/cpu-small"  # its card: the compact layout


def _section(prompt: str, header: str) -> list[str]:
    """The fact texts listed under ``header`` in a compact prompt."""
    block = re.search(rf"^{header}:\n((?:- .*\n)+)", prompt, re.M)
    return [line.split(": ", 1)[1] for line in block.group(1).splitlines()] if block else []


def _says(header: str):
    """A fake player that posts, in public, every fact of its seat listed under ``header``."""

    def reply(messages, fmt):
        facts = _section(messages[-1]["content"], header)
        return json.dumps(
            {"action_type": "speak", "argument": " ".join(facts) or "Hello.", "to": []}
        )

    return reply


SILENT = lambda messages, fmt: '{"action_type":"none","argument":"","to":[]}'  # noqa: E731
GARBAGE = lambda messages, fmt: "I would rather not answer in JSON."  # noqa: E731


def play_rounds(monkeypatch, out, replies, max_turns=8):
    """The stage on one Silver scenario, round k's player answering with ``replies[k]``."""
    clients = iter(FakeChatClient(r) for r in replies)
    monkeypatch.setattr(dagger, "player_client", lambda *a: contextlib.nullcontext(next(clients)))
    args = best_of.BestOfArguments(player=SHIPPED, out=str(out), rounds=len(replies),
                                   every=10_000, offset=0, max_turns=max_turns)  # fmt: skip
    return best_of.run(args)


def test_a_round_in_which_a_seat_leaked_is_never_imitated(tmp_path, monkeypatch):
    rounds = [_says("Say in public"), _says("Never say"), SILENT]
    out = play_rounds(monkeypatch, tmp_path, rounds)
    rows = [json.loads(line) for line in (out / "data.jsonl").open()]
    summary = json.loads((out / "selection.json").read_text())
    assert rows and summary["examples"] == len(rows)
    s = scenarios.load("silver")[0]
    secrets = [a.pre_interaction_knowledge[name].text
               for a in s.agents for name in a.policy.what_not_to_share]  # fmt: skip
    texts = [r["completion"][0]["content"] for r in rows]
    assert secrets and not any(secret in t for secret in secrets for t in texts)
    # the public posts beat the seat's mean in some seats: the student's own replies, kept whole
    posted = {json.loads(t)["argument"] for t in texts if json.loads(t)["action_type"] == "speak"}
    assert posted and all(_section(r["prompt"][0]["content"], "Say in public") for r in rows)


def test_malformed_replies_are_never_examples(tmp_path, monkeypatch):
    # beside a leaking round, a round of malformed replies beats the mean, but has nothing to teach
    out = play_rounds(monkeypatch, tmp_path, [GARBAGE, _says("Never say")])
    summary = json.loads((out / "selection.json").read_text())
    assert summary["seat_rounds_kept"] > 0 and summary["examples"] == 0


def teacher_record(s, max_turns, reward_fn=None):
    """An episode of ``s`` played by the observable teacher, recorded as DAgger records one,
    and the episode's result."""
    played: list[tuple[str, str]] = []

    class Recording(ObservablePlayer):
        async def act(self, observation, info):
            action = await super().act(observation, info)
            played.append((self.agent, AgentAction.model_validate(action).model_dump_json()))
            return action

    env = parallel_env(scenarios=[s], reward_fn=reward_fn, max_turns=max_turns)
    live = asyncio.run(play_episode(env, lambda a, _: Recording(a), scenario=s))
    return {"scenario_id": s.scenario_id, "actions": played}, live


def test_replayed_returns_are_the_returns_of_the_episode_as_played():
    s = scenarios.load("silver")[3]
    record, live = teacher_record(s, 12, training_reward(12))
    replayed = best_of.seat_returns(record, s, 12)
    assert replayed == pytest.approx({a: live.returns.get(a, 0.0) for a in replayed})
    assert any(r != 0 for r in replayed.values())


def test_a_seat_without_a_baseline_keeps_nothing():
    assert best_of.above_mean([0.2, math.nan, 0.9]) == []
    assert best_of.above_mean([0.2, 0.9, 0.4], margin=0.5) == []
    assert best_of.above_mean([-2.0, 0.0, 0.1]) == [1, 2]
