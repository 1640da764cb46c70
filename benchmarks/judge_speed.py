"""Rule-judge throughput: transcripts judged and scored per second, 3- and 5-agent, 60 steps.

Transcripts are built once before timing from messages a real conversation holds: item values
said publicly or by direct message, requests for desired items, and small talk. Each transcript
is then judged (all four verdicts) and scored, as the env's default reward does at episode end.
Text-analysis caches are cleared before every transcript, so each is judged as if all its
messages were new (as in RL, where every episode says new things). The per-scenario index is
built once and kept (the env reuses its judge across episodes); the last column rebuilds it for
every transcript too.

    python benchmarks/judge_speed.py [--transcripts 300]
"""

from __future__ import annotations

import argparse
import random
import time

import scenarios
import sotopia_tom_env
from rewards import RuleJudge, score
from rewards.judges import evidence
from scenarios import values
from sotopia_tom_env import AgentAction


def transcript_for(s: scenarios.Scenario, rng: random.Random, steps: int = 60):
    env = sotopia_tom_env.parallel_env(
        reward_fn=None, scenarios=[s], max_turns=steps, max_stale_turns=steps
    )
    env.reset(options={"scenario": s})
    for _ in range(steps):
        (a,) = env.acting_agents()
        i = int(a.split("_")[1])
        me = s.agents[i]
        others = [r for r in s.roles if r != me.role]
        kind = rng.random()
        if kind < 0.45:
            name, item = rng.choice(list(me.pre_interaction_knowledge.items()))
            text = f"On {name.lower()}: {item.text}. Happy to discuss."
        elif kind < 0.75 and me.post_interaction_knowledge.desired_knowledge:
            text = f"Could you tell me about the {rng.choice(me.post_interaction_knowledge.desired_knowledge)}?"
        else:
            text = (
                "Thanks, that helps. Let's keep the timeline and the budget in view as we decide."
            )
        to = rng.sample(others, k=rng.choice([0, 0, 1, 2]))
        env.step({a: AgentAction.speak(text, to=to)})
    return env.transcript


def rate(s: scenarios.Scenario, transcripts: list, cold: bool) -> float:
    judge = RuleJudge()
    judge.index(s)
    start = time.perf_counter()
    for t in transcripts:
        for cache in (values.atoms, values.said, evidence.request_sentences):
            cache.cache_clear()
        if cold:
            judge = RuleJudge()
        score(judge.judge(s, t), s, t.rounds)
    return len(transcripts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(0)
    print(
        f"{'scenario':<16}{'agents':>7}{'messages':>10}{'transcripts/s':>15}{'index rebuilt /s':>18}"
    )
    for sid in ("tiny-3-agents", "tiny-5-agents"):
        s = next(x for x in scenarios.load("tiny") if x.id == sid)
        ts = [transcript_for(s, rng) for _ in range(args.transcripts)]
        warm, cold = rate(s, ts, cold=False), rate(s, ts, cold=True)
        print(f"{sid:<16}{len(s.agents):>7}{len(ts[0].messages):>10}{warm:>15,.0f}{cold:>18,.0f}")


if __name__ == "__main__":
    main()
