"""Env steps per second on full 60-step episodes, and whether step cost grows with the talk.

Random scripted actions (public messages and direct messages of realistic length, sometimes
silence, never leaving) are generated before timing, so only ``env.step`` is measured. The
3- and 5-agent tiny scenarios run in the same process, one after the other, with no reward
function and with the default one (the rule judge scores the episode at its last step). The
last10/first10 ratio compares the mean cost of steps 50-59 and 0-9, leaving out the final step
(it holds the one-off judging), so it shows whether a step gets slower as the talk grows.

    python benchmarks/env_step.py [--episodes 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import sotopia_tom_env

WORDS = [
    "budget",
    "vendor",
    "rollout",
    "risk",
    "pilot",
    "cost",
    "data",
    "patients",
    "quarter",
    "review",
    "timeline",
    "staff",
]


def scripted_actions(roles: list[str], steps: int, rng: random.Random) -> list[dict]:
    plan = []
    for step in range(steps):
        speaker = step % len(roles)
        if step % 7 == 6:
            plan.append({"action_type": "none", "argument": "", "to": []})
            continue
        others = [r for i, r in enumerate(roles) if i != speaker]
        to = rng.sample(others, k=rng.choice([0, 0, 1, 2]))
        text = " ".join(rng.choices(WORDS, k=rng.randint(12, 40)))
        plan.append({"action_type": "speak", "argument": text, "to": to})
    return plan


def run(
    scenario_id: str, episodes: int, reward: str | None, max_turns: int = 60
) -> tuple[float, float, int]:
    env = sotopia_tom_env.parallel_env(reward_fn=reward, scenarios="tiny", max_turns=max_turns)
    rng = random.Random(0)
    per_step = [[] for _ in range(max_turns)]
    total_steps, total_time = 0, 0.0
    for _ in range(episodes):
        env.reset(options={"scenario": scenario_id})
        plan = scripted_actions(env.scenario.roles, max_turns, rng)
        for t, action in enumerate(plan):
            actions = {a: action for a in env.acting_agents()}
            t0 = time.perf_counter()
            env.step(actions)
            dt = time.perf_counter() - t0
            per_step[t].append(dt)
            total_time += dt
            total_steps += 1
        assert not env.agents, "episode should end exactly at max_turns"
    first = statistics.mean(x for t in range(10) for x in per_step[t])
    last = statistics.mean(x for t in range(max_turns - 11, max_turns - 1) for x in per_step[t])
    return total_steps / total_time, last / first, len(env.scenario.agents)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    args = parser.parse_args()
    print(
        f"{'scenario':<16}{'agents':>7}{'steps/s no reward':>19}{'steps/s rule reward':>21}{'reward cost':>13}{'last10/first10':>16}"
    )
    for sid in ("tiny-3-agents", "tiny-5-agents"):
        bare, ratio, n = run(sid, args.episodes, reward=None)
        judged, _, _ = run(sid, args.episodes, reward="rule")
        print(f"{sid:<16}{n:>7}{bare:>19,.0f}{judged:>21,.0f}{bare / judged:>12.2f}x{ratio:>16.2f}")


if __name__ == "__main__":
    main()
