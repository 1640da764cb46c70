"""Rule-judge throughput: transcripts judged and scored per second, 3- and 5-agent, 60 steps.

Transcripts are built once before timing from messages a real conversation holds: item values
said publicly or by direct message, requests for desired items, and small talk: once as single
sentences, once wrapped in two or three sentences of workplace filler (30-60 words a message, like
an LLM player's). Each transcript
is then judged (all four verdicts) and scored, as the env's default reward does at episode end.
Text-analysis caches are cleared before every transcript, so each is judged as if all its
messages were new (as in RL, where every episode says new things). The per-scenario index is
built once and kept (the env reuses its judge across episodes); the last column rebuilds it for
every transcript too. Each rate is CPU time of this process (time stolen by other guests on a
shared machine is not counted), the best of three passes over the same transcripts.

    python benchmarks/judge_speed.py [--transcripts 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import scenarios
import sotopia_tom_env
from rewards import RuleJudge, score
from rewards.judges import approx, inquiry
from scenarios import values
from sotopia_tom_env import AgentAction

# Caches keyed by message text (word-level caches such as stems stay warm, as in a long run).
MESSAGE_CACHES = (
    values.atoms,
    values.said,
    values.spell_out,
    values.sentence_words,
    values.words_of,
    approx.approx_atoms,
    approx.heard,
    inquiry.request_sentences,
)
FILLER = [
    "Thanks for pulling this together so quickly, it makes the next step much easier for everyone.",
    "Before we commit, I want to be sure the plan holds up with the people who have to run it.",
    "Let's keep the timeline and the budget in view as we decide, and flag anything that slips.",
    "I can take the action items from this thread to the review on our side this week.",
    "If anything here is sensitive, tell me and we can handle it in a smaller group instead.",
]


def with_filler(text: str, rng: random.Random) -> str:
    return " ".join([rng.choice(FILLER), text, *rng.sample(FILLER, k=rng.choice([1, 2]))])


def transcript_for(s: scenarios.Scenario, rng: random.Random, filler: bool, steps: int = 60):
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
        env.step({a: AgentAction.speak(with_filler(text, rng) if filler else text, to=to)})
    return env.transcript


def rate(s: scenarios.Scenario, transcripts: list, cold: bool, passes: int = 3) -> float:
    judge = RuleJudge()
    judge.index(s)
    best = float("inf")
    for _ in range(passes):
        start = time.process_time()
        for t in transcripts:
            for cache in MESSAGE_CACHES:
                cache.cache_clear()
            if cold:
                judge = RuleJudge()
            score(judge.judge(s, t), s, t.rounds)
        best = min(best, time.process_time() - start)
    return len(transcripts) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(0)
    print(
        f"{'scenario':<16}{'agents':>7}{'messages':>10}{'words/message':>15}"
        f"{'transcripts/s':>15}{'index rebuilt /s':>18}"
    )
    for sid in ("tiny-3-agents", "tiny-5-agents"):
        s = next(x for x in scenarios.load("tiny") if x.id == sid)
        for filler in (False, True):
            ts = [transcript_for(s, rng, filler) for _ in range(args.transcripts)]
            words = statistics.mean(len(m.text.split()) for t in ts for m in t.messages)
            warm, cold = rate(s, ts, cold=False), rate(s, ts, cold=True)
            print(
                f"{sid:<16}{len(s.agents):>7}{len(ts[0].messages):>10}{words:>15.0f}"
                f"{warm:>15,.0f}{cold:>18,.0f}"
            )


if __name__ == "__main__":
    main()
