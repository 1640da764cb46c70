"""Fill the value templates of the banks with freshly drawn, mutually distinguishable details.

A template such as ``"{org} bid {usd:8M-29M} on {date}"`` becomes
``"Cobalt Group bid $12.4M on March 3, 2027"``. Placeholders:

* money ``{usd:LO-HI}``, ``{eur:LO-HI}``, ``{gbp:LO-HI}`` (three significant figures, formats
  varied: $4.35M, $4.35 million, $4,350,000, $348K, $18.40);
* ``{pct:LO-HI}`` and ``{dec:LO-HI}`` with as many decimals as the low bound is written with;
* ``{num:LO-HI}`` a count a judge finds distinctive (100 or more, two significant digits, not
  a year), ``{int:LO-HI}`` a small count;
* ``{date}``, ``{date:2026-2027}``, ``{month:2027-2028}``, ``{time}``, ``{code:PFX}``;
* names: ``{person}``, ``{org}`` (the sector's endings), ``{firm}``, ``{city}``, ``{project}``,
  ``{title}``;
* ``{a|b|c}``: one of the alternatives.

One :class:`ValueDraw` serves one scenario and never repeats a detail in it: numbers stay more
than 6% apart (a judge reads "about $4.3M" as $4.35M), and dates (by month and day), months
(a date also takes its year and month), times, codes and name words are used once. That is what makes each fact separately checkable.

Example:
    >>> import random
    >>> draw = ValueDraw(random.Random(0))
    >>> text = draw.value("{usd:1M-2M} due on {date}")
    >>> text.startswith("$") and " due on " in text
    True
"""

from __future__ import annotations

import calendar
import math
import random
import re
from collections.abc import Callable, Collection
from typing import Any

from scenarios.generate.banks import common as names

PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_DRAW_TRIES = 30  # redraws of one detail that is already taken in the scenario
_VALUE_TRIES = 4  # redraws of a whole value before the fact is given up for this scenario
_NUMBER_GAP = 0.06  # numbers closer than this (relative) could be read as the same figure
_MULT = {"": 1, "k": 1e3, "M": 1e6, "B": 1e9}


class _Taken(Exception):
    """Every draw of a detail repeated one the scenario already holds."""


class ValueDraw:
    """Fills value templates for one scenario so that no two values share a checkable detail.

    Numbers stay more than 6% apart (a judge reads "about 4.3M" as 4.35M), and dates, months,
    times, codes and name words are never reused, so each value can be told apart from every
    other by what it states.
    """

    def __init__(
        self,
        rng: random.Random,
        org_tails: Collection[str] = ("Group", "Partners"),
        avoid: Collection[str] = (),
    ) -> None:
        self.rng = rng
        self.org_tails = list(org_tails)
        self.avoid = avoid  # whole values that must not come out (another set's values)
        self.numbers: list[float] = []
        self.taken: set[tuple[Any, ...]] = set()
        self.words: set[str] = set()

    def value(self, template: str) -> str | None:
        """The filled template, or ``None`` if its details cannot all be fresh in this scenario.

        A value is drawn whole: when one of its details is taken (or the text is one to avoid),
        nothing it drew is kept and it is drawn again, a few times at most.
        """
        for _ in range(_VALUE_TRIES):
            saved = (list(self.numbers), set(self.taken), set(self.words))
            try:
                text = PLACEHOLDER.sub(self._fill, template)
            except _Taken:
                text = None
            if text is not None and text not in self.avoid:
                return text
            self.numbers, self.taken, self.words = saved
        return None

    def _fill(self, m: re.Match[str]) -> str:
        kind, _, arg = m.group(1).partition(":")
        fill = _FILLS.get(kind)
        return fill(self, arg) if fill else self.rng.choice(m.group(1).split("|"))

    def _fresh(self, make: Callable[[], tuple[Any, str]]) -> str:
        """Call ``make() -> (key, text)`` until its key is unused in this scenario.

        A frozenset key is several keys, all of which must be free and all of which are taken.
        """
        for _ in range(_DRAW_TRIES):
            key, text = make()
            if self._free(key):
                break
        else:
            raise _Taken(text)
        if isinstance(key, float):
            self.numbers.append(key)
        elif isinstance(key, frozenset):
            self.taken |= key
        else:
            self.taken.add(key)
        return text

    def _free(self, key: Any) -> bool:
        if isinstance(key, float):
            return all(abs(key - x) > _NUMBER_GAP * max(abs(key), abs(x)) for x in self.numbers)
        if isinstance(key, frozenset):
            return not key & self.taken
        return key not in self.taken

    def _word(self, bank: list[str]) -> str:
        """A word of ``bank`` not used yet in this scenario (any word once all are used)."""
        word = self.rng.choice([w for w in bank if w not in self.words] or bank)
        self.words.add(word)
        return word

    def _person(self, _: str) -> str:
        return f"{self._word(names.FIRST_NAMES)} {self._word(names.LAST_NAMES)}"

    def _org(self, _: str) -> str:
        return f"{self._word(names.ORG_HEADS)} {self._word(self.org_tails)}"

    def _firm(self, _: str) -> str:
        return f"{self._word(names.LAST_NAMES)} {self._word(names.LAST_NAMES)} LLP"

    def _city(self, _: str) -> str:
        return self._word(names.CITIES)

    def _project(self, _: str) -> str:
        return f"Project {self._word(names.CODENAMES)}"

    def _title(self, _: str) -> str:
        adjectives, nouns = names.TITLE_WORDS
        return f"'The {self._word(adjectives)} {self._word(nouns)}'"

    def _code(self, prefix: str) -> str:
        def make() -> tuple[Any, str]:
            n = self.rng.randint(1000, 9999)
            return ("code", n), f"{prefix}-{n}"

        return self._fresh(make)

    def _date(self, arg: str) -> str:
        lo, hi = (int(y) for y in (arg or "2026-2027").split("-"))

        def make() -> tuple[Any, str]:
            y, mo, d = self.rng.randint(lo, hi), self.rng.randint(1, 12), self.rng.randint(1, 28)
            month = calendar.month_name[mo]
            forms = (f"{month} {d}, {y}", f"{month[:3]} {d}, {y}", f"{d} {month} {y}")
            # A date also takes its month: a judge reads "March 2027" in another value as a
            # hint of "March 8, 2027", so no two values may share a year and month.
            keys = frozenset({("day", mo, d), ("month", y, mo)})
            return keys, self.rng.choice((*forms, f"{y}-{mo:02d}-{d:02d}"))

        return self._fresh(make)

    def _month(self, arg: str) -> str:
        lo, hi = (int(y) for y in (arg or "2026-2028").split("-"))

        def make() -> tuple[Any, str]:
            y, mo = self.rng.randint(lo, hi), self.rng.randint(1, 12)
            return ("month", y, mo), f"{calendar.month_name[mo]} {y}"

        return self._fresh(make)

    def _time(self, _: str) -> str:
        def make() -> tuple[Any, str]:
            h, mi = self.rng.randint(6, 21), self.rng.choice((0, 10, 15, 20, 30, 40, 45, 50))
            twelve = f"{(h - 1) % 12 + 1}:{mi:02d} {'am' if h < 12 else 'pm'}"
            return ("time", h, mi), self.rng.choice((f"{h:02d}:{mi:02d}", twelve))

        return self._fresh(make)

    def _money(self, arg: str, symbol: str = "$") -> str:
        lo, hi, _ = _range(arg)

        def make() -> tuple[Any, str]:
            v = _sig3(self.rng.uniform(lo, hi))
            return v, symbol + _money_text(v, self.rng)

        return self._fresh(make)

    def _eur(self, arg: str) -> str:
        return self._money(arg, self.rng.choice(("EUR ", "€")))

    def _gbp(self, arg: str) -> str:
        return self._money(arg, "£")

    def _pct(self, arg: str) -> str:
        lo, hi, places = _range(arg)
        sign = self.rng.choice(("%", "%", "%", " percent"))
        return self._fresh(lambda: self._decimal(lo, hi, places, sign))

    def _dec(self, arg: str) -> str:
        lo, hi, places = _range(arg)
        return self._fresh(lambda: self._decimal(lo, hi, max(places, 1), ""))

    def _decimal(self, lo: float, hi: float, places: int, suffix: str) -> tuple[Any, str]:
        """A number with ``places`` decimals; "4.0" reads as made up, so a zero is redrawn."""
        for _ in range(_DRAW_TRIES):
            text = f"{self.rng.uniform(lo, hi):.{places}f}"
            if not places or not text.endswith("0"):
                break
        return float(text), text + suffix

    def _num(self, arg: str) -> str:
        """A count a judge treats as distinctive: 100 or more, two significant digits, no year."""
        lo, hi, _ = _range(arg)

        def make() -> tuple[Any, str]:
            for _ in range(_DRAW_TRIES):
                v = self.rng.randint(int(lo), int(hi))
                if not 1900 <= v <= 2100 and len(str(v).rstrip("0")) >= 2:
                    break
            return float(v), f"{v:,}"

        return self._fresh(make)

    def _integer(self, arg: str) -> str:
        lo, hi, _ = _range(arg)

        def make() -> tuple[Any, str]:
            v = self.rng.randint(int(lo), int(hi))
            return float(v), str(v)

        return self._fresh(make)


_FILLS: dict[str, Callable[[ValueDraw, str], str]] = {
    "usd": ValueDraw._money,
    "eur": ValueDraw._eur,
    "gbp": ValueDraw._gbp,
    "pct": ValueDraw._pct,
    "dec": ValueDraw._dec,
    "num": ValueDraw._num,
    "int": ValueDraw._integer,
    "date": ValueDraw._date,
    "month": ValueDraw._month,
    "time": ValueDraw._time,
    "code": ValueDraw._code,
    "person": ValueDraw._person,
    "org": ValueDraw._org,
    "firm": ValueDraw._firm,
    "city": ValueDraw._city,
    "project": ValueDraw._project,
    "title": ValueDraw._title,
}
"""Placeholder kinds: ``{usd:2M-9M}``, ``{pct:4.0-9.9}`` (decimals as written), ``{code:INC}``..."""


def _range(arg: str) -> tuple[float, float, int]:
    """``"2.5M-9M"`` -> (2500000.0, 9000000.0, 1): bounds and the decimals of the low bound."""
    lo, hi = arg.split("-")
    places = len(lo.rstrip("kMB").partition(".")[2])
    return _amount(lo), _amount(hi), places


def _amount(text: str) -> float:
    suffix = text[-1] if text[-1] in "kMB" else ""
    return float(text.removesuffix(suffix)) * _MULT[suffix]


def _sig3(v: float) -> float:
    """Round to three significant figures (cents below 100), as money is usually quoted."""
    if v < 100:
        return round(v, 2)
    step = 10 ** (math.floor(math.log10(v)) - 2)
    return float(round(v / step) * step)


def _money_text(v: float, rng: random.Random) -> str:
    """Vary the format: 4.35M, 4.35 million, 4,350,000, 348K, 182, 18.40."""
    if v >= 1e9:
        return rng.choice((f"{v / 1e9:.3g}B", f"{v / 1e9:.3g} billion"))
    if v >= 1e6:
        return rng.choice((f"{v / 1e6:.3g}M", f"{v / 1e6:.3g} million", f"{v:,.0f}"))
    if v >= 1e4:
        return rng.choice((f"{v:,.0f}", f"{v / 1e3:.3g}K"))
    return f"{v:,.0f}" if v >= 100 else f"{v:.2f}"
