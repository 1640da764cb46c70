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

    python benchmarks/judge_speed.py [--transcripts 300] [--passes 3] [--against /path/to/other/tree]

Each tree is timed in a worker process. ``--against`` times another checkout's judge too (e.g.
``git worktree add /tmp/base HEAD``) on the same transcripts, pass for pass in turn with this one
(so both see the same machine load), and prints how much slower this one is.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import scenarios
import sotopia_tom_env
from rewards import RuleJudge, score
from sotopia_tom_env import AgentAction

# Caches keyed by message text (word-level caches such as stems stay warm, as in a long run),
# by module and name, so that an older checkout without some of them is timed the same way.
_CACHED = {
    "scenarios.values": (
        "atoms",
        "said",
        "spell_out",
        "sentence_words",
        "words_of",
        "number_spans",
    ),
    "scenarios.spelled": ("spell_out",),
    "scenarios.text": ("reading",),
    "rewards.judges.approx": ("approx_atoms", "heard"),
    "rewards.judges.readings": ("extra", "may_scale"),
    "rewards.judges.inquiry": ("request_sentences",),
    "rewards.judges.structural": ("computed",),
}
MESSAGE_CACHES = tuple(
    getattr(module, name)
    for module in (importlib.util.find_spec(m) and importlib.import_module(m) for m in _CACHED)
    if module is not None
    for name in _CACHED[module.__name__]
    if hasattr(module, name)
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


def one_pass(s: scenarios.Scenario, transcripts: list, cold: bool, judge: RuleJudge) -> float:
    """CPU seconds to judge and score every transcript once, caches cleared before each."""
    start = time.process_time()
    for t in transcripts:
        for cache in MESSAGE_CACHES:
            cache.cache_clear()
        clear = getattr(judge.index(s), "clear_cache", None)  # the index's own texts read
        if clear is not None:
            clear()
        if cold:
            judge = RuleJudge()
        score(judge.judge(s, t), s, t.rounds)
    return time.process_time() - start


def workload(transcripts: int) -> list[tuple[scenarios.Scenario, list, float]]:
    """Per row (scenario, message style): the scenario, its transcripts, words per message."""
    rng = random.Random(0)
    out = []
    for sid in ("tiny-3-agents", "tiny-5-agents"):
        s = next(x for x in scenarios.load("tiny") if x.id == sid)
        for filler in (False, True):
            ts = [transcript_for(s, rng, filler) for _ in range(transcripts)]
            out.append(
                (s, ts, statistics.mean(len(m.text.split()) for t in ts for m in t.messages))
            )
    return out


def worker(transcripts: int) -> None:
    """Time one pass per request read from stdin ("row cold"), for --against."""
    rows = workload(transcripts)
    judges = [RuleJudge() for _ in rows]
    for j, (s, _, _) in zip(judges, rows, strict=True):
        j.index(s)
    print(json.dumps([w for _, _, w in rows]), flush=True)  # ready: words per message by row
    for line in sys.stdin:
        i, cold = map(int, line.split())
        s, ts, _ = rows[i]
        print(one_pass(s, ts, bool(cold), judges[i]), flush=True)


class Worker:
    """A subprocess timing the judge of the checkout at ``tree``."""

    def __init__(self, tree: Path, transcripts: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        cmd = [sys.executable, __file__, "--worker", "--transcripts", str(transcripts)]
        self.proc = subprocess.Popen(cmd, env=env, cwd=tree, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert self.proc.stdout is not None
        self.words: list[float] = json.loads(self.proc.stdout.readline())

    def time(self, row: int, cold: bool) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{row} {int(cold)}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def compare(
    trees: list[Path], transcripts: int, passes: int
) -> tuple[list[float], list[list[tuple[float, float]]]]:
    """Words per message by row, and per tree and row the best (warm, cold) pass time.

    The trees' passes alternate, so a change in the machine's load hits both alike.
    """
    workers = [Worker(t, transcripts) for t in trees]
    best = [[[float("inf")] * 2 for _ in range(4)] for _ in trees]
    for row in range(4):
        for _ in range(passes):
            for k, w in enumerate(workers):
                for cold in (0, 1):
                    best[k][row][cold] = min(best[k][row][cold], w.time(row, bool(cold)))
    for w in workers:
        w.close()
    return workers[0].words, [[(warm, cold) for warm, cold in rows] for rows in best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=int, default=300)
    parser.add_argument("--passes", type=int, default=3, help="timed passes per row (best kept)")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.transcripts)
    here = Path(__file__).resolve().parents[1]
    trees = [here, args.against] if args.against else [here]
    words, times = compare(trees, args.transcripts, args.passes)
    head = f"{'scenario':<16}{'agents':>7}{'words/message':>15}{'transcripts/s':>15}"
    head += f"{'index rebuilt /s':>18}"
    print(head + (f"{'other tree /s':>15}{'slower':>8}" if args.against else ""))
    for i, sid in enumerate(["tiny-3-agents"] * 2 + ["tiny-5-agents"] * 2):
        (warm, cold), n, agents = times[0][i], args.transcripts, 3 if i < 2 else 5
        line = f"{sid:<16}{agents:>7}{words[i]:>15.0f}{n / warm:>15,.0f}{n / cold:>18,.0f}"
        if args.against:
            other = times[1][i][0]
            line += f"{n / other:>15,.0f}{warm / other:>7.2f}x"
        print(line)


if __name__ == "__main__":
    main()
