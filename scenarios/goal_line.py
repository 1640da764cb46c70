"""How much a scenario's shared goal line gives away: the needed items it names.

Every agent reads ``scenario_goal``. If it lists the desired items by name ("weighing the
suburban clinics operating margin level and ..."), a model can learn to copy names from the
goal instead of finding out who holds what; Gold's goals state the decision and abstract
criteria ("based on verdict risk, trial cost and insurance coverage") and leave the items
to be discovered. :func:`needs_named_in_goal` measures the difference.

An item is *named* in a goal when its name, read as a phrase, occurs in the goal: the content
words of the name, stemmed (:func:`scenarios.values.stems`: function words dropped, endings
such as plural ``s`` or ``ing`` ignored), appear as a contiguous run of the goal's stemmed
content words. So "the suburban clinics' operating margin levels" names "Suburban clinics
operating margin level", while a goal that merely uses "margin" or "clinics" somewhere does
not. A looser test that counts any half of the name's stems, wherever they stand, flags
Gold's abstract criteria as names (its short names share words with them: "Trial cost" and
"based on ... trial cost" is a true hit, but "Pilot cost" against "launch a pilot ... cost"
is not) and rates Gold at 38%; the phrase test rates Gold at 4.7% and the earlier Silver at
47.6%, in line with an independent review that counted 3.5% and 47.6%.

Example:
    >>> named_in_goal("Suburban clinics operating margin level",
    ...               "Decide whether to buy it, weighing the suburban clinics' operating margin levels.")
    True
    >>> named_in_goal("Suburban clinics operating margin level",
    ...               "Decide whether to buy it, based on margin impact and clinic access.")
    False
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scenarios.schema import Scenario
from scenarios.values import stems

_WORD = re.compile(r"[a-z0-9]+")


def content_stems(text: str) -> list[str]:
    """The stems of ``text``'s content words, in order (function words left out).

    Example:
        >>> content_stems("The operating margins of the north campus")
        ['opera', 'margi', 'north', 'campu']
    """
    return [s for w in _WORD.findall(text.lower()) for s in stems(w)]


def named_in_goal(name: str, goal: str) -> bool:
    """Whether the item ``name`` occurs as a phrase in ``goal`` (see the module docstring)."""
    phrase, text = content_stems(name), content_stems(goal)
    width = len(phrase)
    return bool(phrase) and any(text[i : i + width] == phrase for i in range(len(text) - width + 1))


def named_needs(scenarios: Iterable[Scenario]) -> tuple[int, int]:
    """(named, total) desired-knowledge entries over all agents; see :func:`needs_named_in_goal`."""
    pairs = [
        (name, s.scenario_goal)
        for s in scenarios
        for a in s.agents
        for name in a.post_interaction_knowledge.desired_knowledge
    ]
    return sum(named_in_goal(n, g) for n, g in pairs), len(pairs)


def needs_named_in_goal(scenarios: Iterable[Scenario]) -> float:
    """Share of desired-knowledge entries (over all agents) whose item is named in the goal.

    Every entry counts, so an item two agents need counts twice, as it weighs twice in
    training. Returns 0.0 for a set without needs.

    Example:
        >>> import scenarios
        >>> round(needs_named_in_goal(scenarios.load("gold")), 3)
        0.047
    """
    named, total = named_needs(scenarios)
    return named / total if total else 0.0
