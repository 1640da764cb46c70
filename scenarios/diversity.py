"""How varied a scenario set is: lexical counts, n-gram overlap and sentence embeddings.

A procedural generator can pass every review rule and still repeat itself: the same role
titles, item names and value templates with fresh numbers. The lexical measures make that
visible without any model:

- distinct role titles per agent slot, and distinct item names per item;
- value skeletons: values with every token that holds a digit (amounts, dates, codes such as
  ``W15P7T-24-D-0118``) replaced by ``#``, so "$4.85M per year" and "$3.2M per year" share one;
- the mean (and max) word-4-gram Jaccard similarity between scenarios of the same sector, over
  goal, roles, item names, values and objectives; tokens with digits are dropped from the word
  sequence, so two values that differ only in their numbers give the same n-grams (pairs across
  sectors share little by construction, so they would flatter the mean);
- distinct decisions: the goal's "whether to …" clause, before its "based on …" tail.

The embedding check (:func:`embedding_similarity`) needs the ``[embed]`` extra.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from scenarios.schema import Scenario

_DIGIT_TOKEN = re.compile(r"\S*\d\S*")
_WORD = re.compile(r"\w+")
_DECISION_END = re.compile(r",?\s+(?:based on|weighing|considering|given)\b|[,;.]")


def mask(text: str) -> str:
    """``text`` with every whitespace-separated token that holds a digit replaced by ``#``.

    Example:
        >>> mask("IGCE of $4.1M per year, contract W15P7T-24-D-0118")
        'IGCE of # per year, contract #'
    """
    return _DIGIT_TOKEN.sub("#", text)


def decision(goal: str) -> str:
    """The decision a goal asks for: the clause after "whether to", before its criteria.

    Example:
        >>> decision("Produce a final recommendation on whether to renew the contract, based on price.")
        'renew the contract'
    """
    text = " ".join(goal.casefold().split())
    _, found, rest = text.partition("whether to ")
    return _DECISION_END.split(rest if found else text, maxsplit=1)[0].strip()


def scenario_text(s: Scenario) -> str:
    """Everything written for a scenario that its agents read: goal, roles, facts, objectives."""
    parts = [s.scenario_goal]
    for a in s.agents:
        parts += [a.role, a.goals.primary_objective]
        for name, item in a.pre_interaction_knowledge.items():
            parts += [name, item.text]
    return "\n".join(parts)


def ngrams(text: str, n: int = 4) -> set[int]:
    """Hashes of the word n-grams of ``text`` (lowercased; numbers and codes left out)."""
    words = _WORD.findall(mask(text).casefold())
    return {hash(tuple(words[i : i + n])) for i in range(len(words) - n + 1)}


def jaccard(a: set[int], b: set[int]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def same_sector_overlap(scenarios: Sequence[Scenario], n: int = 4) -> dict[str, float]:
    """Mean and max word-n-gram Jaccard over pairs of scenarios of the same sector."""
    grams = [ngrams(scenario_text(s), n) for s in scenarios]
    by_sector: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(scenarios):
        by_sector[s.sector or "unknown"].append(i)
    pairs = [
        jaccard(grams[i], grams[j])
        for members in by_sector.values()
        for i, j in itertools.combinations(members, 2)
    ]
    if not pairs:
        return {"mean": 0.0, "max": 0.0, "pairs": 0}
    return {"mean": sum(pairs) / len(pairs), "max": max(pairs), "pairs": len(pairs)}


def _distinct(values: Iterable[str]) -> dict[str, int]:
    values = list(values)
    return {"distinct": len(set(values)), "total": len(values)}


def lexical(scenarios: Sequence[Scenario]) -> dict[str, Any]:
    """The lexical diversity measures of a set (see the module docstring)."""
    agents = [a for s in scenarios for a in s.agents]
    items = [(k, v) for a in agents for k, v in a.pre_interaction_knowledge.items()]
    return {
        "role_titles": _distinct(" ".join(a.role.casefold().split()) for a in agents),
        "item_names": _distinct(" ".join(k.casefold().split()) for k, _ in items),
        "value_skeletons": _distinct(mask(v.text) for _, v in items),
        "same_sector_4gram_jaccard": same_sector_overlap(scenarios),
        "decisions": _distinct(decision(s.scenario_goal) for s in scenarios),
    }


def _ratio(d: dict[str, int], percent: bool = True) -> str:
    share = f" ({d['distinct'] / d['total']:.0%})" if percent and d["total"] else ""
    return f"{d['distinct']:,} / {d['total']:,}{share}"


ROWS = [
    ("distinct role titles / agent slots", lambda m: _ratio(m["role_titles"])),
    ("distinct item names / items", lambda m: _ratio(m["item_names"])),
    ("value skeletons / values (digits, codes masked)", lambda m: _ratio(m["value_skeletons"])),
    (
        "mean word-4-gram Jaccard, same sector (max)",
        lambda m: "{mean:.3f} ({max:.3f})".format(**m["same_sector_4gram_jaccard"]),
    ),
    ("distinct decisions in goals / scenarios", lambda m: _ratio(m["decisions"])),
]


def lexical_table(measures: dict[str, dict[str, Any]]) -> str:
    """A Markdown table with one column per named set."""
    names = list(measures)
    lines = [
        "| measure | " + " | ".join(names) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    lines += [
        f"| {label} | " + " | ".join(cell(measures[n]) for n in names) + " |"
        for label, cell in ROWS
    ]
    return "\n".join(lines)
