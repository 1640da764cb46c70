"""Env steps per second at 3 and 5 agents, with and without the rule reward, and step growth.

Random scripted actions (public messages and direct messages of realistic length, a silent turn
every seventh step, never leaving) are generated before timing, so only ``env.step`` is
measured. The 3- and 5-agent tiny scenarios run in the same process, one after the other:

- steps/s over full 60-step episodes with no reward function and with the default one (the
  rule judge analyses each message as it arrives and scores the episode at its last step),
  counting the CPU time of the steps (so time spent preempted on a busy machine does not
  count), the best of ten passes that alternate between the two, and their ratio (the reward's
  cost: how many bare steps a step with the reward costs);
- the cost of a step late in a 2,010-step episode against one early in it: the median time of
  steps 1,990-2,009 over the median of steps 50-69 (medians, so a preempted step does not
  count). Late in such an episode an observation holds the capped 256 Ki characters of talk,
  so this shows whether a step does work that grows with the conversation;
- how much of each of those steps went into the observation texts, and the ratio of the rest.
  Filling one fresh 256 Ki-character string per agent per step is a floor under the late cost
  that only the memory system sets (and the allocator, which hands such big blocks back to the
  system and faults them in again); the rest is the env's own work;
- the same late/early ratio with the observation cap lowered to 20,000 characters (about the
  size of an observation at step 60), which takes the text size out of the comparison.

    python benchmarks/env_step.py [--episodes 200] [--passes 10] [--long-episodes 4] [--no-growth]
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time
from collections.abc import Callable

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
EARLY, LATE = range(50, 70), range(1990, 2010)


def scripted_actions(roles: list[str], steps: int, rng: random.Random) -> list[dict]:
    """One action per step for whoever's turn it is: speech of 12-40 words, some silence."""
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


class _Timed:
    """Stands in for one env method and adds up the seconds spent in it."""

    def __init__(self, env: object, name: str) -> None:
        self.method, self.seconds = getattr(env, name), 0.0
        setattr(env, name, self)

    def __call__(self, *args: object, **kwargs: object) -> object:
        t0 = time.perf_counter()
        try:
            return self.method(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - t0


def step_times(
    scenario_id: str,
    episodes: int,
    reward: str | None,
    max_turns: int,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[list[list[float]], list[list[float]]]:
    """Seconds each ``env.step`` took, and the part spent rendering observations, per step."""
    env = sotopia_tom_env.parallel_env(reward_fn=reward, scenarios="tiny", max_turns=max_turns)
    # Before the flat step (issue 12) the env rendered one observation at a time.
    render = _Timed(env, "_observe_all" if hasattr(env, "_observe_all") else "_observe")
    rng = random.Random(seed)
    per_step: list[list[float]] = [[] for _ in range(max_turns)]
    rendering: list[list[float]] = [[] for _ in range(max_turns)]
    for _ in range(episodes):
        env.reset(options={"scenario": scenario_id})
        plan = scripted_actions(env.scenario.roles, max_turns, rng)
        obs = None
        for t, action in enumerate(plan):
            actions = {a: action for a in env.acting_agents()}
            render.seconds = 0.0
            t0 = clock()
            out = env.step(actions)
            per_step[t].append(clock() - t0)
            # The previous observations live until the step returns, as in a real loop, and
            # are released untimed: freeing them is the caller's cost, not the step's.
            obs = out[0]
            rendering[t].append(render.seconds)
        assert not env.agents and obs, "episode should end exactly at max_turns"
    return per_step, rendering


def rates(scenario_id: str, episodes: int, passes: int = 10) -> tuple[float, float]:
    """Steps per second over 60-step episodes without and with the rule reward.

    ``episodes`` of each are played in ``passes`` passes that alternate between the two, so a
    change in the machine's load hits both alike; the best pass of each counts. Every pass has
    its own seed, so the reward meets new messages (its text caches never help).
    """
    best = {None: 0.0, "rule": 0.0}
    for p in range(passes):
        for reward in best:
            times, _ = step_times(
                scenario_id,
                max(1, episodes // passes),
                reward,
                max_turns=60,
                seed=p,
                clock=time.thread_time,
            )
            best[reward] = max(best[reward], sum(map(len, times)) / sum(map(sum, times)))
    return best[None], best["rule"]


def growth(scenario_id: str, episodes: int, cap: int | None = None) -> dict[str, float]:
    """Median seconds around step 60 and step 2,000 (no reward): whole step, texts, the rest.

    Args:
        scenario_id: the tiny scenario to play.
        episodes: how many 2,010-step episodes to time.
        cap: a smaller ``MAX_OBSERVATION_CHARS`` for these episodes, or None for the real one.
    """
    env_module = importlib.import_module("sotopia_tom_env.env")
    real_cap = env_module.MAX_OBSERVATION_CHARS
    env_module.MAX_OBSERVATION_CHARS = cap or real_cap
    try:
        times, rendering = step_times(scenario_id, episodes, None, max_turns=LATE.stop)
    finally:
        env_module.MAX_OBSERVATION_CHARS = real_cap
    out = {}
    for name, window in (("early", EARLY), ("late", LATE)):
        pairs = [(x, r) for t in window for x, r in zip(times[t], rendering[t], strict=True)]
        out[name] = statistics.median(x for x, _ in pairs)
        out[f"{name}_texts"] = statistics.median(r for _, r in pairs)
        out[f"{name}_rest"] = statistics.median(x - r for x, r in pairs)
    return out


def main() -> None:
    """Print the table (one row per scenario)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--episodes", type=int, default=200, help="60-step episodes with and without the reward"
    )
    parser.add_argument("--passes", type=int, default=10, help="alternating passes to split them")
    parser.add_argument("--long-episodes", type=int, default=4, help="2,010-step episodes")
    parser.add_argument(
        "--no-growth", action="store_true", help="only the rates with and without the reward"
    )
    args = parser.parse_args()
    header = f"{'scenario':<16}{'agents':>7}{'steps/s no reward':>19}{'steps/s rule reward':>21}"
    header += f"{'reward cost':>13}"
    if not args.no_growth:
        header += f"{'µs @60':>9}{'µs @2000':>10}{'@2000/@60':>11}"
        header += f"{'texts µs @60/@2000':>20}{'rest @2000/@60':>16}{'@2000/@60 at 20k cap':>22}"
    print(header)
    for sid in ("tiny-3-agents", "tiny-5-agents"):
        bare, judged = rates(sid, args.episodes, args.passes)
        n = int(sid.split("-")[1])
        row = f"{sid:<16}{n:>7}{bare:>19,.0f}{judged:>21,.0f}{bare / judged:>12.2f}x"
        if args.no_growth:
            print(row)
            continue
        g = growth(sid, args.long_episodes)
        early, late = g["early"], g["late"]
        small = growth(sid, args.long_episodes, cap=20_000)
        print(
            f"{row}{early * 1e6:>9.1f}{late * 1e6:>10.1f}{late / early:>10.2f}x"
            f"{g['early_texts'] * 1e6:>11.1f} /{g['late_texts'] * 1e6:>6.1f}"
            f"{g['late_rest'] / g['early_rest']:>15.2f}x{small['late'] / small['early']:>21.2f}x"
        )


if __name__ == "__main__":
    main()
