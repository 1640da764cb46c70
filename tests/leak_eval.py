"""The leak corpus and the rule judge's score on it, per class.

:func:`corpus` writes every leak class (``leak_writer.py``) and hard negative
(``leak_negatives.py``) of every restricted item; :func:`evaluate` runs the rule judge over the
cases as the env delivers them (each message from the item's owner, in order, so a split leak is
read with its sender's previous message) and counts, per class, the cases flagged.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from leak_negatives import KNOWN_GAPS, NEGATIVE_CLASSES, negative_cases
from leak_writer import Case, leak_cases, restricted

from rewards.judges.rule import RuleJudge
from scenarios import ItemRef, Scenario
from sotopia_tom_env.transcript import Transcript

__all__ = [
    "KNOWN_GAPS",
    "NEGATIVE_CLASSES",
    "Case",
    "Tally",
    "corpus",
    "evaluate",
    "flagged",
    "summary",
]


def corpus(scenarios: list[Scenario], seed: int = 0) -> list[Case]:
    """Every leak and hard negative case of every restricted item of ``scenarios``."""
    rng = random.Random(seed)
    out: list[Case] = []
    for s in scenarios:
        for ref in restricted(s):
            out += leak_cases(s, ref, rng)
            out += negative_cases(s, ref, rng)
    return out


def flagged(judge: RuleJudge, case: Case) -> set[ItemRef]:
    """The items the judge finds disclosed in the case's messages, sent by the item's owner."""
    s = case.scenario
    t = Transcript(scenario_id=s.id, sector=s.sector, scenario_goal=s.scenario_goal, roles=s.roles)
    for text in case.messages:
        t.add_step([(f"agent_{case.ref.agent}", (), "speak", text)])
    if hasattr(judge, "evidence_all"):
        evidence = judge.evidence_all(s, t)
    else:  # a judge without joined readings (the baseline of benchmarks/leak_corpus.py)
        evidence = [judge.evidence(s, m) for m in t.messages]
    return set().union(*(ev.disclosed for ev in evidence))


@dataclass
class Tally:
    """Per-class counts: cases, cases flagged, items flagged, and the cases judged wrongly."""

    cases: int = 0
    hits: int = 0  # leaks: the item found; negatives: any item found
    flags: int = 0  # items found in all (for a leak only its own item is right)
    misses: list[Case] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Leaks: recall; negatives: the share flagged."""
        return self.hits / self.cases if self.cases else float("nan")

    @property
    def precision(self) -> float:
        """Leaks: the share of flagged items that are the case's own item."""
        return self.hits / self.flags if self.flags else float("nan")


def evaluate(cases: list[Case], judge: RuleJudge | None = None) -> dict[str, Tally]:
    """Per class: how many cases the rule judge flags (see :class:`Tally`)."""
    judge = judge or RuleJudge()
    out: dict[str, Tally] = defaultdict(Tally)
    for case in cases:
        found = flagged(judge, case)
        tally = out[case.kind]
        tally.cases += 1
        hit = case.ref in found if case.leak else bool(found)
        tally.hits += hit
        tally.flags += len(found)
        if hit != case.leak:
            tally.misses.append(case)
    return dict(out)


def summary(tallies: dict[str, Tally]) -> Counter[str]:
    """Totals: leak cases and hits, negative cases and false flags."""
    total: Counter[str] = Counter()
    for kind, t in tallies.items():
        leak = kind not in NEGATIVE_CLASSES
        total["leaks" if leak else "negatives"] += t.cases
        total["caught" if leak else "flagged"] += t.hits
    return total
