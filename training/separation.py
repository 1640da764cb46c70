"""Keep the held-out sets out of training: none of their scenarios by id or by near-duplicate text.

Gold (both versions) is for final reports and Silver's dev split for recipe decisions
(:data:`HELD_OUT`); training reads Silver (or a user's own files). Before any training data is
built, every training scenario is checked against the held-out sets by id and by the overlap of
its word 5-grams (goal, roles and item values), so a renamed or lightly edited copy is refused as
well. Other files a run must never train on (the paper authors' scenarios, say) are added with
``$SOTOPIA_TOM_HELD_OUT`` (paths separated by ``os.pathsep``).

Example:
    >>> import scenarios
    >>> assert_disjoint_from_gold(scenarios.load("silver")[:3])  # passes silently
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from collections.abc import Iterable

import scenarios as scenario_sets
from scenarios import Scenario

NEAR_DUPLICATE = 0.5
"""Share of a scenario's 5-grams found in one held-out scenario above which it counts as a copy."""
HELD_OUT = ("gold", "gold-v1", "silver-dev")
"""The shipped sets training never reads."""

_WORD = re.compile(r"[a-z0-9]+")


class GoldLeak(ValueError):
    """A training scenario is, or nearly is, a held-out scenario (Gold, Silver dev, ...)."""


def shingles(s: Scenario, n: int = 5) -> frozenset[tuple[str, ...]]:
    """Word ``n``-grams of the scenario's goal, roles and item values (lower-cased)."""
    parts = [s.scenario_goal] + [a.role for a in s.agents]
    parts += [i.text for a in s.agents for i in a.pre_interaction_knowledge.values()]
    out: set[tuple[str, ...]] = set()
    for part in parts:
        words = _WORD.findall(part.lower())
        out.update(tuple(words[k : k + n]) for k in range(max(len(words) - n + 1, 0)))
    return frozenset(out)


def held_out_sources() -> tuple[str, ...]:
    """The shipped held-out sets and the files named in ``$SOTOPIA_TOM_HELD_OUT``."""
    extra = os.environ.get("SOTOPIA_TOM_HELD_OUT", "")
    return HELD_OUT + tuple(p for p in extra.split(os.pathsep) if p)


@functools.cache
def _index(sources: tuple[str, ...]) -> tuple[dict[str, str], dict[tuple[str, ...], list[str]]]:
    ids: dict[str, str] = {}
    index: dict[tuple[str, ...], list[str]] = {}
    for source in sources:
        for g in scenario_sets.load(source):
            ids.setdefault(str(g.scenario_id), source)
            for sh in shingles(g):
                index.setdefault(sh, []).append(str(g.scenario_id))
    return ids, index


def _gold_index() -> tuple[dict[str, str], dict[tuple[str, ...], list[str]]]:
    return _index(held_out_sources())


def closest_gold(s: Scenario) -> tuple[str | None, float]:
    """The held-out scenario sharing the largest share of ``s``'s 5-grams, and that share."""
    _, index = _gold_index()
    own = shingles(s)
    hits = Counter(g for sh in own for g in index.get(sh, ()))
    if not hits or not own:
        return None, 0.0
    gid, n = hits.most_common(1)[0]
    return gid, n / len(own)


def assert_disjoint_from_gold(training: Iterable[Scenario]) -> None:
    """Raise :class:`GoldLeak` naming the first training scenario that is a held-out one.

    Raises:
        GoldLeak: a scenario has a held-out id or shares more than :data:`NEAR_DUPLICATE` of
            its 5-grams with one held-out scenario.
    """
    ids, _ = _gold_index()
    for s in training:
        if str(s.scenario_id) in ids:
            raise GoldLeak(
                f"training scenario {s.scenario_id!r} is a scenario of the held-out set "
                f"{ids[str(s.scenario_id)]!r} (same id); it is never trained on"
            )
        gid, share = closest_gold(s)
        if share > NEAR_DUPLICATE:
            raise GoldLeak(
                f"training scenario {s.scenario_id!r} shares {share:.0%} of its text with "
                f"held-out scenario {gid!r}; held-out sets are never trained on"
            )
