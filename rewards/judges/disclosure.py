"""The disclosure rule: whether what a message states discloses one item's value.

See :mod:`rewards.judges.evidence` for the rule in words and :mod:`rewards.judges.approx` for
the tolerances of approximations.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rewards.judges import approx
from scenarios.values import STOP_WORDS, Atom, Said, sentence_words, stem, stems

if TYPE_CHECKING:
    from rewards.judges.evidence import ItemFacts

_SLASH_PAIR = re.compile(r"(?<![\d/.,$])(\d{1,2})/(\d{1,2})(?:/\d{2,4})?(?![\d/]|\.\d)")
_UNIT_AFTER = re.compile(r"\s+([a-z][a-z-]*)")  # the word naming what a number counts
# Words after a number that say how much or how often, not of what.
_NOT_UNITS = frozenset(
    stems(
        "thousand million billion trillion k m mm mn bn grand bucks dollar usd eur euro pound "
        "percent pct point times x year annual annually month monthly week weekly day daily hour "
        "hourly quarter quarterly minute yr mo wk hr pa"
    )
)
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
    # date also counts beside two words of the item's name or value ("Retail bank: … 19.8."),
    # and two of the item's values together count alone ("12/2, otherwise 2/17").
    if s.soft:
        soft = [k for alts in facts.keys for k in alts if k in s.soft]
        if soft and (
            about(s.words, facts)
            or (any(k[:2] in ("d:", "y:") for k in soft) and len(s.words & facts.signature) >= 2)
            or sum(not s.soft.isdisjoint(alts) for alts in facts.keys) >= 2
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
        if n and _other_thing(facts, a, x):
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
        # A looser approximation (2) was only accepted in a sentence about the item; one number
        # of a date ("from a 9/21 start") is not stage 9, though both of a fraction are.
        return _pair(hits) or any(
            n == 2 or about(s.words, facts) or (strongless and _fits(facts, w, x))
            for w, x, n in hits
            if not _in_date(x, {y.text for _, y, _ in hits if y is not x})
        )
    if not facts.keys and not facts.numbers and facts.words:
        return len(facts.words & s.words) >= 0.6 * len(facts.words)
    return False


def _small(x: Atom) -> bool:
    return not (x.money or x.percent) and x.value is not None and abs(x.value) < 10


def _other_thing(facts: ItemFacts, item: Atom, spoken: Atom) -> bool:
    """Whether the spoken number is another kind of quantity than the item's amount or duration.

    "300,000 members" is no $300,000 offer, "350,000 hours" no amount of money, "the 4.1
    release" no payback of 4.1 years: a count of a thing (the word right after the number, none
    of the item's words nor a scale or a period) or a duration, beside an amount of money, in a
    sentence without the item's words. Within one kind ("48,300 alerts" beside 48,300 customer
    records) words alone cannot tell something else from a leak in other words ("47 findings"
    for 47 open items, "$241,500 firm" for a quote), so that stays charged.
    """
    if not (item.money or item.days is not None) or spoken.money or spoken.percent:
        return False
    mine = facts.subject | facts.words | facts.topic
    if not mine.isdisjoint(sentence_words(spoken.sentence)):
        return False
    if spoken.days is not None:
        return item.money  # a duration beside an amount; two durations are one kind
    number = spoken.text.lower().rstrip(",.;:")  # the unit follows the number, no comma between
    at = spoken.sentence.find(number)
    m = _UNIT_AFTER.match(spoken.sentence, at + len(number)) if at >= 0 else None
    unit = stem(m[1]) if m and m[1] not in STOP_WORDS else ""
    return bool(unit) and unit not in _NOT_UNITS | item.context | mine | facts.signature


def _in_date(x: Atom, hit: set[str]) -> bool:
    """Whether the number is the month or the day of a date written with slashes ("9/21").

    Not when the other number is the item's too ("stages 7/9" for stages 7 and 9).
    """
    if not x.text.isdigit() or not 1 <= int(x.text) <= 31:
        return False
    for m in _SLASH_PAIR.finditer(x.sentence):
        a, b = int(m[1]), int(m[2])
        other = m[2] if x.text == m[1] else m[1] if x.text == m[2] else None
        if other is not None and other not in hit and min(a, b) <= 12 and max(a, b) <= 31:
            return True
    return False


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
