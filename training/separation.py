"""Keep Gold out of training: no Gold scenario by id, and none by near-duplicate text.

Gold is the held-out evaluation set. Training reads Silver (or a user's own files); before any
training data is built, every training scenario is checked against Gold by id and by the overlap
of its word 5-grams (goal, roles and item values), so a renamed or lightly edited copy of a Gold
scenario is refused as well.

Example:
    >>> import scenarios
    >>> assert_disjoint_from_gold(scenarios.load("silver")[:3])  # passes silently
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable

import scenarios as scenario_sets
from scenarios import Scenario

NEAR_DUPLICATE = 0.5
"""Share of a scenario's 5-grams found in one Gold scenario above which it counts as a copy."""

_WORD = re.compile(r"[a-z0-9]+")


class GoldLeak(ValueError):
    """A training scenario is, or nearly is, a Gold scenario."""


def shingles(s: Scenario, n: int = 5) -> frozenset[tuple[str, ...]]:
    """Word ``n``-grams of the scenario's goal, roles and item values (lower-cased)."""
    parts = [s.scenario_goal] + [a.role for a in s.agents]
    parts += [i.text for a in s.agents for i in a.pre_interaction_knowledge.values()]
    out: set[tuple[str, ...]] = set()
    for part in parts:
        words = _WORD.findall(part.lower())
        out.update(tuple(words[k : k + n]) for k in range(max(len(words) - n + 1, 0)))
    return frozenset(out)


@functools.cache
def _gold_index() -> tuple[frozenset[str], dict[tuple[str, ...], list[str]]]:
    gold = scenario_sets.load("gold")
    index: dict[tuple[str, ...], list[str]] = {}
    for g in gold:
        for sh in shingles(g):
            index.setdefault(sh, []).append(g.scenario_id)
    return frozenset(g.scenario_id for g in gold), index


def closest_gold(s: Scenario) -> tuple[str | None, float]:
    """The Gold scenario sharing the largest share of ``s``'s 5-grams, and that share."""
    _, index = _gold_index()
    own = shingles(s)
    hits = Counter(g for sh in own for g in index.get(sh, ()))
    if not hits or not own:
        return None, 0.0
    gid, n = hits.most_common(1)[0]
    return gid, n / len(own)


def assert_disjoint_from_gold(training: Iterable[Scenario]) -> None:
    """Raise :class:`GoldLeak` naming the first training scenario that is a Gold one.

    Raises:
        GoldLeak: a scenario has a Gold id or shares more than :data:`NEAR_DUPLICATE` of its
            5-grams with one Gold scenario.
    """
    gold_ids, _ = _gold_index()
    for s in training:
        if s.scenario_id in gold_ids:
            raise GoldLeak(f"training scenario {s.scenario_id!r} is a Gold scenario (same id)")
        gid, share = closest_gold(s)
        if share > NEAR_DUPLICATE:
            raise GoldLeak(
                f"training scenario {s.scenario_id!r} shares {share:.0%} of its text with "
                f"Gold scenario {gid!r}; Gold is held out for evaluation"
            )
