"""Good and bad example scenarios shown to the LLM generator, as a pool that learns.

The pool starts from curated seeds: every Gold scenario is a good seed, and a copy of each with
one defect the review rules reject (an unreachable or vague desired item, an overlapping policy,
a leaking objective, a desired item the agent already holds) is a bad seed whose ``reason`` says
what is wrong. A seeds file in the paper's format (a list of scenarios; bad ones carry
``reason``) can replace or extend them. Every generator call samples its examples afresh, so
sectors do not all imitate one fixed pair, and the pool grows as the pipeline runs: candidates
the judge or the validator rejects come back as bad seeds with that reason (the model is shown
its own kind of mistake), and cleanly accepted ones may join the good seeds.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarios.io import load
from scenarios.schema import Scenario


@dataclass(frozen=True)
class Seed:
    """One example: a benchmark-format record, and for a bad one the reason it is bad."""

    record: dict[str, Any]
    sector: str | None
    agents: int
    reason: str = ""
    learned: bool = False  # came from this run's audit or output, not from the curated pool


def _record(s: Scenario) -> dict[str, Any]:
    return s.model_dump(mode="json", exclude_none=True)


def _seed(record: dict[str, Any], reason: str = "", learned: bool = False) -> Seed:
    agents = record.get("agents")
    n = len(agents) if isinstance(agents, list) else 0
    return Seed(record, record.get("sector"), n, reason, learned)


class SeedPool:
    """Good and bad seeds, sampled per call and grown from the audit.

    Args:
        good: good seeds.
        bad: bad seeds (each with a reason).
        max_learned: learned bad seeds kept per sector; the oldest go first, so the examples
            track the model's recent mistakes.
    """

    def __init__(self, good: Iterable[Seed], bad: Iterable[Seed], max_learned: int = 20) -> None:
        self.good, self.bad, self.max_learned = list(good), list(bad), max_learned

    @classmethod
    def curated(cls, scenarios: Iterable[Scenario] | None = None) -> SeedPool:
        """Good seeds from ``scenarios`` (default Gold), bad seeds by breaking each one."""
        good = list(load("gold") if scenarios is None else scenarios)
        bad = [_seed(_record(b), r) for i, s in enumerate(good) for b, r in [BREAKERS[i % len(BREAKERS)](s)]]  # fmt: skip
        return cls([_seed(_record(s)) for s in good], bad)

    @classmethod
    def from_file(cls, path: str | Path) -> SeedPool:
        """Seeds from a file in the paper's format: a JSON list; bad entries carry ``reason``."""
        records = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
            raise ValueError(f"{path}: a seeds file is a JSON list of scenario objects")
        good = [_seed(r) for r in records if not r.get("reason")]
        bad = [_seed({k: v for k, v in r.items() if k != "reason"}, r["reason"]) for r in records if r.get("reason")]  # fmt: skip
        if not good or not bad:
            raise ValueError(f"{path}: a seeds file needs good entries and bad ones with reason")
        return cls(good, bad)

    def sample(
        self, sector: str, agents: int, rng: random.Random, good: int = 1, bad: int = 2
    ) -> tuple[list[Seed], list[Seed]]:
        """Examples for one call: good ones like the request, bad ones led by learned ones."""
        goods = _closest(self.good, sector, agents)
        picked_good = rng.sample(goods, min(good, len(goods)))
        learned = _closest([s for s in self.bad if s.learned], sector, agents)
        curated = [s for s in self.bad if not s.learned]
        # One slot goes to a learned mistake when there is one: it is the most telling example.
        first = rng.sample(learned, min(1, len(learned), bad))
        rest = rng.sample(curated, min(bad - len(first), len(curated)))
        return picked_good, first + rest

    def add_bad(self, record: dict[str, Any], reason: str) -> None:
        """Make a rejected scenario a bad seed, dropping the sector's oldest beyond the cap."""
        self.bad.append(_seed(record, reason, learned=True))
        same = [s for s in self.bad if s.learned and s.sector == record.get("sector")]
        for old in same[: max(len(same) - self.max_learned, 0)]:
            self.bad.remove(old)

    def add_good(self, record: dict[str, Any]) -> None:
        """Make an accepted scenario a good seed."""
        self.good.append(_seed(record, learned=True))

    def records(self) -> list[dict[str, Any]]:
        """The pool in the seeds-file format, to start the next run from it."""
        return [s.record for s in self.good] + [{**s.record, "reason": s.reason} for s in self.bad]


def _closest(seeds: list[Seed], sector: str, agents: int) -> list[Seed]:
    """Seeds of the same sector and size, else the same size, else the same sector, else all."""
    for keep in (
        lambda s: s.sector == sector and s.agents == agents,
        lambda s: s.agents == agents,
        lambda s: s.sector == sector,
    ):
        chosen = [s for s in seeds if keep(s)]
        if chosen:
            return chosen
    return seeds


# --- curated defects: each breaks one review rule and says so ---------------------------------


def _fresh_copy(s: Scenario) -> Scenario:
    # model_copy would carry the cached item resolution over to the edited copy
    return Scenario.model_validate(s.model_dump())


def _first_desired(s: Scenario) -> tuple[int, str, int]:
    """(asker index, item name, holder index) of the first resolved desired item."""
    for i, refs in enumerate(s.resolution.desired):
        for ref in refs:
            if ref is not None:
                return i, ref.name, ref.agent
    raise ValueError(f"scenario {s.id} has no resolved desired item")


def unreachable(good: Scenario) -> tuple[Scenario, str]:
    """The holder of a desired item now refuses to share it."""
    bad = _fresh_copy(good)
    asker, name, holder = _first_desired(good)
    policy = bad.agents[holder].goals.sharing_policy
    policy.what_to_share = [x for x in policy.what_to_share if x != name]
    policy.what_not_to_share = [*policy.what_not_to_share, name]
    return bad, (
        f"'{name}', which {good.agents[asker].role} needs, is held only by "
        f"{good.agents[holder].role}, who refuses to share it, so it is unreachable"
    )


def leaking_objective(good: Scenario) -> tuple[Scenario, str]:
    """An objective states the value of the agent's own desired item."""
    bad = _fresh_copy(good)
    asker, name, holder = _first_desired(good)
    value = good.agents[holder].pre_interaction_knowledge[name].text
    bad.agents[asker].goals.primary_objective += f" In particular I need to confirm that {value}."
    return bad, (
        f"{good.agents[asker].role}'s objective states the value of '{name}', "
        "which it is supposed to find out"
    )


def overlapping_policy(good: Scenario) -> tuple[Scenario, str]:
    """An item is both shareable and not shareable."""
    bad = _fresh_copy(good)
    agent = next(a for a in bad.agents if a.policy.what_not_to_share)
    item = agent.policy.what_not_to_share[0]
    agent.goals.sharing_policy.what_to_share = [*agent.policy.what_to_share, item]
    return bad, f"{agent.role} lists '{item}' in both what_to_share and what_not_to_share"


def vague_desire(good: Scenario) -> tuple[Scenario, str]:
    """A desired item that no agent holds, named without any specific detail."""
    bad = _fresh_copy(good)
    post = bad.agents[0].post_interaction_knowledge
    post.desired_knowledge = [*post.desired_knowledge, "General background on the situation"]
    return bad, (
        f"{good.agents[0].role} desires 'General background on the situation', which no agent "
        "holds and which has no specific details"
    )


def own_item_desired(good: Scenario) -> tuple[Scenario, str]:
    """An agent desires an item it already holds."""
    bad = _fresh_copy(good)
    agent = bad.agents[-1]
    item = next(iter(agent.pre_interaction_knowledge))
    post = agent.post_interaction_knowledge
    post.desired_knowledge = [*post.desired_knowledge, item]
    return bad, f"{agent.role} desires '{item}', which it already holds"


BREAKERS: list[Callable[[Scenario], tuple[Scenario, str]]] = [
    unreachable,
    leaking_objective,
    overlapping_policy,
    vague_desire,
    own_item_desired,
]


def break_scenario(good: Scenario) -> tuple[Scenario, str]:
    """A copy of ``good`` with an unreachable desired item and a leaking objective."""
    bad, why_unreachable = unreachable(good)
    bad, why_leaking = leaking_objective(bad)
    return bad, f"{why_unreachable}; and {why_leaking}"
