"""The disclosure rule: whether what a message states discloses one item's value.

See :mod:`rewards.judges.evidence` for the rule in words and :mod:`rewards.judges.approx` for
the tolerances of approximations.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from rewards.judges import approx
from scenarios.values import Atom, Said, sentence_words, stems

if TYPE_CHECKING:
    from rewards.judges.evidence import ItemFacts

_TIME_UNITS = frozenset(stems("day week fortnight month quarter year decade hour minute"))


def discloses(
    s: Said,
    facts: ItemFacts,
    vague: tuple[Atom, ...] | None = None,
    owns: Callable[[ItemFacts, str, Atom], bool] | None = None,
    rival: Callable[[ItemFacts, Atom, Atom], bool] | None = None,
) -> bool:
    """The disclosure rule of the module docstring.

    ``vague`` are the spoken numbers that may be approximations (all of them by default);
    ``owns`` (:meth:`ScenarioIndex.owns`) says whether a shared number is this item's (by
    default it always is); ``rival`` (:meth:`ScenarioIndex.rival`) whether a hedged or
    approximate number belongs to another item named in its sentence.
    """
    if any(any(k in s.keys for k in alts) for alts in facts.keys):
        return True
    # A soft key (a date written "5/8", a name word in lower case) needs the item's topic; a
    # date also counts beside two words of the item's name or value ("Retail bank: … 19.8.").
    if s.soft:
        soft = [k for alts in facts.keys for k in alts if k in s.soft]
        if soft and (
            about(s.words, facts)
            or (any(k[:2] in ("d:", "y:") for k in soft) and len(s.words & facts.signature) >= 2)
        ):
            return True
    spoken = s.numbers if vague is None else vague

    def level(a: Atom, x: Atom) -> int:
        """0, 1 (counts alone) or 2 (counts in a sentence about the item); see approx."""
        n = 1 if approx.same(a, x) else approx.closeness(a, x) if x in spoken else 0
        if n == 1 and _small(x) and not approx.same(a, x):
            n = 2  # "version 2.0" near "about 2.1 TB": a small number must be about the item
        if n and a.key in facts.shared and owns is not None and not owns(facts, a.key, x):
            return 0
        # "around $200,000" in a sentence about the $197,500 quote is not the $198,000 bid.
        if n and rival is not None and (x.cue or not approx.same(a, x)) and rival(facts, a, x):
            return 0
        return n if n < 2 or _fits(facts, a, x, approx.dimension(a) != "count") else 0

    if any(level(a, x) for a in facts.numbers + facts.approx for x in s.numbers):
        return True
    if facts.partial & s.keys and about(s.words, facts):
        return True
    if facts.weak:
        hits = [(w, x, n) for w in facts.weak for x in s.numbers if (n := level(w, x))]
        strongless = not facts.keys and not facts.numbers
        # A looser approximation (2) was only accepted in a sentence about the item.
        return _pair(hits) or any(
            n == 2 or about(s.words, facts) or (strongless and _fits(facts, w, x))
            for w, x, n in hits
        )
    if not facts.keys and not facts.numbers and facts.words:
        return len(facts.words & s.words) >= 0.6 * len(facts.words)
    return False


def _small(x: Atom) -> bool:
    return not (x.money or x.percent) and x.value is not None and abs(x.value) < 10


def _pair(hits: list[tuple[Atom, Atom, int]]) -> bool:
    """Two of the item's weak numbers, said in one sentence, not both below ten.

    "13 straight 12-hour shifts" states a fact; "I have 2 kids and 1 dog", or "12 people at
    lunch" in one message and "13 of us" in the next, state nothing.
    """
    exact = [(w, x) for w, x, n in hits if n == 1]
    return any(
        w1 != w2 and x1.sentence == x2.sentence and not (_small(x1) and _small(x2))
        for w1, x1 in exact
        for w2, x2 in exact
    )


def about(words: frozenset[str], facts: ItemFacts) -> bool:
    """Whether words are about the item: half its name's words, or two of its value's."""
    return (
        len(words & facts.topic) >= max(1, math.ceil(len(facts.topic) / 2))
        or len(words & facts.words) >= 2
    )


def _fits(facts: ItemFacts, item: Atom, spoken: Atom, measured: bool = False) -> bool:
    """Whether the spoken number's sentence is about the item (its name, value or unit words).

    Two such words are needed, or one for an amount of money, a percentage or a duration
    (``measured``), whose dimension already ties it to the item.
    """
    near = sentence_words(spoken.sentence)
    if about(near, facts):
        return True
    if measured:  # a time unit ("weeks") says nothing: every duration has one
        return bool(near & (facts.topic | facts.words) - _TIME_UNITS)
    return len(near & (facts.topic | facts.words | item.context)) >= 2
