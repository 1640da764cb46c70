"""Per-agent rewards of scripted players on the shipped sets, and the leak counterfactual.

Every scenario of each set is played once per policy (all agents play it) with the default
reward, ``JudgeReward()``. Columns, averaged over every agent of every episode:

* ``CM``: the agent's composite; ``reward``: its episodic reward; ``old``: what the previous
  reward ``CM_a - CPV_a - 0.05 * errors`` would have paid; ``=0``: share of rewards exactly 0;
  ``leaks``: violation events per agent;
* ``min margin``: one leak (the exact value text of a must-not-share item, said publicly by its
  owner) is inserted into each episode at its end and at its start, for every agent with such an
  item; the least the leak cost its sender (``--quick``: one agent per episode, at the end).

A second table plays the random players with ``JudgeReward(dense=True)`` and describes their
rewards per agent and step (the terminal step left out: it holds the episodic correction) and
per agent and episode (the return).

    python benchmarks/reward_table.py [--sets gold silver] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

import scenarios
import sotopia_tom_env
from policies import IdealPlayer, LeakyPlayer, RandomPlayer, SilentPlayer, play_episode
from policies.scripted import RandomFactsPlayer, ShareAndLeakPlayer
from rewards import JudgeReward, RuleJudge
from rewards.counterfactual import leak_check, own_secrets

Factory = Callable[[str, scenarios.Scenario, int], Any]
POLICIES: dict[str, Factory] = {
    "ideal": lambda a, s, k: IdealPlayer(a, s),
    "share-and-leak": lambda a, s, k: ShareAndLeakPlayer(a, s),
    "leaky": lambda a, s, k: LeakyPlayer(a, s),
    "silent": lambda a, s, k: SilentPlayer(a),
    "random": lambda a, s, k: RandomPlayer(a, seed=k),
    "random-facts": lambda a, s, k: RandomFactsPlayer(a, s, seed=k),
}


JUDGE = RuleJudge(cache_size=1000)  # keeps every scenario's index: each is built once


def play(env: Any, s: scenarios.Scenario, policy: str, k: int):
    return asyncio.run(play_episode(env, lambda a, sc: POLICIES[policy](a, sc, k), scenario=s))


def margins(s: scenarios.Scenario, result: Any, k: int, quick: bool):
    t = result.transcript
    leakers = [i for i in range(len(s.agents)) if own_secrets(s, i)]
    if quick:
        leakers = leakers[k % len(leakers) :][:1]
    positions = (t.steps,) if quick else (t.steps, 0)
    for i in leakers:
        secrets = own_secrets(s, i)
        ref = secrets[k % len(secrets)]
        a = f"agent_{i}"
        known = result.returns[a], result.final_infos[a]["violation_events"]
        for pos in positions:
            c = leak_check(s, t, ref, pos, judge=JUDGE, baseline=known)
            yield c.margin if c.events_added else float("-inf")  # a missed leak shows as -inf


def row(set_name: str, policy: str, items: list[scenarios.Scenario], quick: bool) -> list[str]:
    env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(JUDGE), scenarios=items)
    cms, rewards, old, leaks, worst = [], [], [], [], float("inf")
    for k, s in enumerate(items):
        result = play(env, s, policy, k)
        for a, info in result.final_infos.items():
            parts = info["agent_scores"]
            cms.append(parts["cm"])
            rewards.append(result.returns[a])
            old.append(parts["cm"] - parts["cpv"] - 0.05 * info["malformed_actions"])
            leaks.append(info["violation_events"])
        worst = min(worst, *margins(s, result, k, quick))
    zero = sum(r == 0 for r in rewards) / len(rewards)
    return [set_name, policy, f"{statistics.mean(cms):.3f}", f"{statistics.mean(rewards):+.3f}",
            f"{statistics.mean(old):+.3f}", f"{zero:.0%}", f"{statistics.mean(leaks):.2f}",
            f"{worst:.3f}"]  # fmt: skip


def dense_row(set_name: str, policy: str, items: list[scenarios.Scenario]) -> list[str]:
    steps, returns = [], []
    for k, s in enumerate(items):
        env = sotopia_tom_env.parallel_env(reward_fn=JudgeReward(JUDGE, dense=True), scenarios=[s])
        obs, infos = env.reset(options={"scenario": s})
        pols = {a: POLICIES[policy](a, s, k) for a in env.agents}
        for a in env.agents:
            pols[a].reset(obs[a], infos[a])
        total = dict.fromkeys(env.agents, 0.0)
        while env.agents:
            acts = {a: asyncio.run(pols[a].act(obs[a], infos[a])) for a in env.acting_agents()}
            obs, rew, *_, infos = env.step(acts)
            for a, r in rew.items():
                total[a] += r
                if env.agents:  # not the terminal step
                    steps.append(r)
        returns += total.values()
    q = statistics.quantiles(returns, n=10)
    pos, neg = (sum(f(r) for r in steps) / len(steps) for f in (lambda r: r > 0, lambda r: r < 0))
    return [set_name, policy, f"{len(steps)}", f"{pos:.1%}", f"{neg:.1%}", f"{min(steps):+.2f}",
            f"{max(steps):+.2f}", f"{statistics.mean(returns):+.3f}",
            f"{statistics.pstdev(returns):.3f}", f"{q[0]:+.2f} / {statistics.median(returns):+.2f} / {q[-1]:+.2f}",
            f"{sum(r == 0 for r in returns) / len(returns):.0%}"]  # fmt: skip


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sets", nargs="+", default=["gold", "silver"])
    p.add_argument("--quick", action="store_true", help="one leak check per episode")
    args = p.parse_args()
    start = time.perf_counter()
    sets = {name: scenarios.load(name) for name in args.sets}
    rows = [row(n, pol, items, args.quick) for n, items in sets.items() for pol in POLICIES]
    head = ["set", "policy", "CM", "reward", "old", "=0", "leaks", "min margin"]
    print(table(head, rows) + "\n")
    dense = [dense_row(n, pol, items) for n, items in sets.items() for pol in ("random", "random-facts")]  # fmt: skip
    head = ["set", "policy (dense)", "agent-steps", "> 0", "< 0", "step min", "step max",
            "return mean", "return std", "p10 / median / p90", "return = 0"]  # fmt: skip
    print(table(head, dense))
    print(
        f"\n({time.perf_counter() - start:.0f} s; leak_margin guaranteed {JudgeReward().leak_margin})"
    )


if __name__ == "__main__":
    main()
