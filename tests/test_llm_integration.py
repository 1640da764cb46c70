"""The prompted players and the scenario pipeline against the real local vLLM server (slow).

Every call has a bounded token budget and every test a time limit, so the slow group stays small
on a busy machine. The LLM judge's real-server test lives in test_llm_judge.py.
"""

from __future__ import annotations

import asyncio

import pytest

import scenarios
from policies import STRATEGIES, PromptedPolicy, play_episode
from sotopia_tom_env.env import SotopiaToMEnv

pytestmark = [pytest.mark.slow, pytest.mark.vllm, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def episodes(vllm_server):
    """A 4-step episode of every strategy on the 3-agent tiny scenario, played concurrently: every
    seat's record init (begun together), agent_0's second turn, and updates on both."""
    s = scenarios.load("tiny")[0]
    client = vllm_server.client(max_concurrency=32, timeout_s=300)
    players: dict[str, list[PromptedPolicy]] = {name: [] for name in STRATEGIES}

    async def one(strategy):
        env = SotopiaToMEnv(reward_fn=None, scenarios=[s], max_turns=4)

        def make(agent, _scenario):
            # bounded replies: at most 300 tokens per action, 256 per coach note or belief state;
            # the refinements that let a 135M model finish its JSON (docs/players.md)
            options = ("recipient_enum", "short_messages", "capped_beliefs")
            p = PromptedPolicy(
                agent, client, strategy, max_tokens=300, aux_max_tokens=256, options=options
            )
            players[strategy].append(p)
            return p

        return strategy, await play_episode(env, make, seed=0, scenario=s)

    async def all_of_them():
        return dict(await asyncio.gather(*(one(name) for name in STRATEGIES)))

    return s, client, asyncio.run(all_of_them()), players


def test_every_strategy_plays_and_structured_outputs_parse_first_time(episodes):
    _, client, results, players = episodes
    turns = first_try = 0
    for strategy, result in results.items():
        assert result.transcript.steps == 4 or len(result.turn_log) < 4, strategy
        stats = sum((p.stats for p in players[strategy]), start=type(players[strategy][0].stats)())
        assert stats["turns"] >= 1, strategy
        turns += stats["turns"]
        first_try += stats["first_try_ok"]
        assert not result.policy_errors, result.policy_errors
    # Every turn ended in a parsed action, none in a fallback. A well-formed message to a seat
    # that has left is refused by the env (not a parse failure): the 135M model sometimes sends one.
    errors = [
        t["error"]
        for r in results.values()
        for t in r.turn_log
        if t["error"] and not t["error"].endswith("has left the conversation; not sent")
    ]
    assert not errors
    # Most parse at the first try; at temperature 0.7 a 135M model's reply is now and then cut
    # or stopped and parses at the retry (21 of 24 first try seen on a loaded machine).
    assert first_try / turns >= 0.8, (first_try, turns)
    assert client.stats.failures == 0


def test_coach_and_belief_players_make_their_extra_calls(episodes):
    _, _, _, players = episodes
    calls = {name: sum(p.stats["calls"] for p in ps) for name, ps in players.items()}
    turns = {name: sum(p.stats["turns"] for p in ps) for name, ps in players.items()}
    assert calls["basic"] >= turns["basic"]
    assert calls["tom_coach"] > turns["tom_coach"]  # a coach note on every turn after the first
    for name in ("tom_belief", "self_focused"):  # each seat's one init, then updates, + actions
        seats = sum(1 for p in players[name] if p.stats["turns"])
        assert calls[name] >= turns[name] + seats, name


def test_scenario_pipeline_runs_against_the_local_server(vllm_server, tmp_path):
    from scenarios.generate.llm import Sampling, ScenarioPipeline

    client = vllm_server.client(timeout_s=300)
    result = asyncio.run(
        ScenarioPipeline(
            client,
            max_attempts=1,
            backoff_s=0,
            # small budgets: whether the 135M model's scenario parses is not the point here,
            # that every attempt ends as one of the counted outcomes against a real server is
            generation=Sampling(0.7, 320),
            judging=Sampling(0, 320),
        ).run("finance", 3, 1)
    )
    counters = result.summary()["finance"]
    assert counters["attempts"] >= 1
    outcomes = sum(
        counters.get(k, 0) for k in ("accepted", "gen_errors", "judge_errors", "dupes", "rejected")
    )
    assert outcomes == counters["attempts"]  # every attempt ended one way or another, none crashed
    assert all(set(entry) == {"scenario", "reason"} for entry in result.audit)
