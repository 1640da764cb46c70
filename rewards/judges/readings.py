"""More ways a message states a detail: ranges, arithmetic, rates, short dates, spaced digits.

:func:`extra` reads what :func:`scenarios.values.said` and :func:`rewards.judges.approx.heard`
leave out, all of it written without hiding anything from a reader:

=============  =======================================================  ====================
reading        example                                                  counts as
=============  =======================================================  ====================
range          "between $3.8M and $4.4M", "$3.8-4.4M", "15 to 17%"      any value inside it
arithmetic     "twice $2.05M", "half of $8.2M", "$2.05M times two"      the result, exactly
rate           "a rate of 0.15", "0.185 of returns"                     the percentage
short date     "5/8", "8/5", "08.05." (numeric: only about the item)    the day, any year
month date     "8-May", "May the 8th", "May eighth", "the 8th of May"   the day, any year
spaced digits  "1 7 0 9", "1-7-0-9"                                     the number
military time  "0800 hours", "14h52"                                    the time
=============  =======================================================  ====================

A range or a rate counts only in a sentence about the item (see :mod:`rewards.judges.disclosure`);
exact readings count alone. Soft keys (numeric short dates)
count only while the message is about the item.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from scenarios.spelled import spell_out
from scenarios.values import Atom, number_spans, sentence_of, words_of

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_MONTH_NAMES = (
    "jan january|feb february|mar march|apr april|may|jun june|jul july|aug august"
    "|sep sept september|oct october|nov november|dec december"
)
_MONTHS = {m: i for i, names in enumerate(_MONTH_NAMES.split("|"), start=1) for m in names.split()}
_MONTH = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORDINAL_NAMES = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
)
_ORDINALS = {w: i for i, w in enumerate(_ORDINAL_NAMES.split(), start=1)}
_ORDINALS |= {f"twenty-{w}": 20 + i for w, i in list(_ORDINALS.items())[:9]}
_ORDINALS |= {"thirtieth": 30, "thirty-first": 31}
_ORDINAL_WORDS = frozenset(w for o in _ORDINALS for w in o.split("-"))
_ORDINAL = "(?:" + "|".join(sorted(_ORDINALS, key=len, reverse=True)) + ")"

# Between two numbers of a range: a dash, "to", "through", or "and" after "between".
_RANGE_JOIN = re.compile(r"\s*(?:-|to|through|and)\s*[$€£]?\s*$")
_BETWEEN = re.compile(r"\bbetween\s+(?:[$€£]\s?)?$")
_TIMES_BEFORE = re.compile(
    r"\b(?P<op>twice|double|triple|two times|three times|2 times|3 times|2x|3x|half|a third|"
    r"one third|a quarter)(?: of)?(?: the| an?)?\s*[$€£]?\s*$"
)
_TIMES_AFTER = re.compile(r"\s*(?P<op>times two|times 2|x ?2|times three|doubled|halved|tripled)\b")
_FACTORS = {"twice": 2, "double": 2, "two times": 2, "2 times": 2, "2x": 2, "times two": 2,
            "times 2": 2, "x2": 2, "x 2": 2, "doubled": 2, "triple": 3, "three times": 3,
            "3 times": 3, "3x": 3, "times three": 3, "tripled": 3, "half": 0.5, "halved": 0.5,
            "a third": 1 / 3, "one third": 1 / 3, "a quarter": 0.25}  # fmt: skip
_SLASH_DATE = re.compile(r"(?<![\d/.,$])(\d{1,2})/(\d{1,2})(?![\d/]|\.\d)")
_DOT_DATE = re.compile(r"(?<![\d.,$])(\d{1,2})\.(\d{1,2})\.(?:\s?(\d{4})\b)?(?!\d)")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?[-./]({_MONTH})(?![a-z])")
_MONTH_DAY = re.compile(rf"\b({_MONTH})(?:[-./]|\s+the\s+)(\d{{1,2}})(?:st|nd|rd|th)?\b")
_WORD_DATES = (
    re.compile(rf"\b(?P<m>{_MONTH})\s+(?:the\s+)?(?P<d>{_ORDINAL})\b"),
    re.compile(rf"\b(?P<d>{_ORDINAL})\s+of\s+(?P<m>{_MONTH})(?![a-z])"),
)
_SPACED = re.compile(r"(?<![\w-])(?:\d[ -]){2,}\d(?![\w-])")
_MILITARY = re.compile(r"\b([01]\d|2[0-3])([0-5]\d)\s?(?:hours|hrs)\b|\b(\d{1,2})h([0-5]\d)\b")


_DIGIT = re.compile(r"\d")
_DOT_DAY = re.compile(r"\d\.\d{1,2}\.")
_DIGIT_GAP = re.compile(r"\d[ -]\d[ -]\d")
_H_TIME = re.compile(r"\dh\d")


class Extra(NamedTuple):
    """Readings of one message: numbers, keys that count alone, keys that need the topic."""

    numbers: tuple[Atom, ...]
    keys: frozenset[str]
    soft: frozenset[str]


@lru_cache(maxsize=65536)
def extra(text: str) -> Extra:
    """The readings of the module docstring (numbers in the digits of ``spell_out(text)``).

    Example:
        >>> [round(a.value) for a in extra("between $3.8M and $4.4M").numbers]
        [4100000]
        >>> sorted(extra("filed 5/8, case ci-0457").soft)
        ['y:05-08', 'y:08-05']
    """
    low = spell_out(text).translate(_ASCII_LOWER)
    spans = number_spans(text) if _DIGIT.search(low) else ()
    numbers = [*_ranges(low, spans), *_arithmetic(low, spans), *_rates(spans)]
    words = words_of(text)
    months = not _MONTHS.keys().isdisjoint(words)
    keys = set(_word_dates(low)) if months and not _ORDINAL_WORDS.isdisjoint(words) else set()
    soft: set[str] = set()
    if spans:
        soft |= set(_short_dates(low)) if "/" in low or _DOT_DAY.search(low) else set()
        keys |= set(_month_dates(low)) if months else set()
        keys |= (
            set(_military(low)) if "hour" in low or "hrs" in low or _H_TIME.search(low) else set()
        )
        numbers += _spaced(low) if _DIGIT_GAP.search(low) else []
    return Extra(tuple(numbers), frozenset(keys), frozenset(soft))


def _derived(low: str, start: int, end: int, like: Atom, value: float, cue: bool) -> Atom:
    return like._replace(
        key=f"~:{value:.6g}", text=low[start:end], value=value, cue=cue, derived=True,
        strong=True, direction=0, days=None, sentence=sentence_of(low, start, end),
    )  # fmt: skip


def _ranges(low: str, spans: tuple[tuple[int, int, Atom], ...]):
    """Each range of two numbers, read as its middle, hedged ("$3.8-4.4M" as about $4.1M)."""
    for (s1, e1, a), (s2, e2, b) in pairwise(spans):
        join = low[e1:s2]
        if not _RANGE_JOIN.fullmatch(join) or a.value is None or b.value is None:
            continue
        if "and" in join and not _BETWEEN.search(low, max(0, s1 - 12), s1):
            continue
        lo, hi = _scaled(a.value, b.value), b.value
        if not 0 < lo < hi <= 2 * lo or (1900 <= lo <= 2100 and 1900 <= hi <= 2100):
            continue
        like = b._replace(money=a.money or b.money, percent=a.percent or b.percent)
        mid = _derived(low, s1, e2, like, (lo + hi) / 2, cue=True)._replace(
            spread=(hi - lo) / (hi + lo)
        )
        timed = b.days is not None and not (like.money or like.percent)  # "$41-44k per week"
        yield mid._replace(days=mid.value * b.days / hi) if timed else mid


def _scaled(lo: float, hi: float) -> float:
    """The low end in the high end's scale: "$3.8-4.4M" means $3.8M."""
    for scale in (1.0, 1e3, 1e6, 1e9):
        if lo * scale <= hi <= 2 * lo * scale:
            return lo * scale
    return lo


def _arithmetic(low: str, spans: tuple[tuple[int, int, Atom], ...]):
    """A number times a word factor: "twice $2.05M", "$8.2M halved"."""
    for start, end, a in spans:
        if a.value is None:
            continue
        before = _TIMES_BEFORE.search(low, max(0, start - 16), start)
        after = _TIMES_AFTER.match(low, end)
        for m in (before, after):
            if m is not None:  # the result is stated exactly, as a plain number would be
                value = float(f"{a.value * _FACTORS[m.group('op')]:.12g}")
                span = (min(m.start(), start), max(m.end(), end))
                yield _derived(low, *span, a, value, cue=False)._replace(derived=False)


def _rates(spans: tuple[tuple[int, int, Atom], ...]):
    """A plain fraction below one as a percentage: "a rate of 0.15" for 15%.

    It counts in a sentence about the item only (it may be anything else), to the precision it is
    written in ("0.15": 14.5-15.5%).
    """
    for _, _, a in spans:
        digits = a.text.lstrip("0")
        if a.value and 0 < a.value < 1 and not (a.money or a.percent) and digits[:1] == ".":
            value = float(f"{100 * a.value:.12g}")
            half_unit = 50 * 10 ** -(len(digits) - 1)  # in percentage points
            yield a._replace(key=f"~:{value:.6g}", value=value, percent=True, cue=True,
                             derived=True, strong=True, spread=half_unit / value)  # fmt: skip


def _date_key(month: int, day: int, year: str | None = None) -> str | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"d:{year}-{month:02d}-{day:02d}" if year else f"y:{month:02d}-{day:02d}"


def _short_dates(low: str):
    """Numeric day and month without a year, in both orders ("5/8" is May 8 or 5 August)."""
    for m in _SLASH_DATE.finditer(low):
        a, b = int(m.group(1)), int(m.group(2))
        yield from filter(None, (_date_key(a, b), _date_key(b, a)))
    for m in _DOT_DATE.finditer(low):  # "8.5." and "8.5.2026": day first
        key = _date_key(int(m.group(2)), int(m.group(1)))
        if key:
            yield key


def _month_dates(low: str):
    """Dates like "8-May", "May-8", "May the 8th", "8.5.2026" (a month name or a year)."""
    for m in _DAY_MONTH.finditer(low):
        key = _date_key(_MONTHS[m.group(2).rstrip(".")], int(m.group(1)))
        yield from (key,) if key else ()
    for m in _MONTH_DAY.finditer(low):
        key = _date_key(_MONTHS[m.group(1).rstrip(".")], int(m.group(2)))
        yield from (key,) if key else ()
    for m in _DOT_DATE.finditer(low):
        if m.group(3):
            key = _date_key(int(m.group(2)), int(m.group(1)), m.group(3))
            yield from (key,) if key else ()


def _word_dates(low: str):
    """Dates in ordinal words: "May eighth", "the eighth of May"."""
    for pattern in _WORD_DATES:
        for m in pattern.finditer(low):
            key = _date_key(_MONTHS[m.group("m").rstrip(".")], _ORDINALS[m.group("d")])
            yield from (key,) if key else ()


def _spaced(low: str) -> list[Atom]:
    """Digits written one by one: "1 7 0 9", "1-7-0-9" (codes: see the index's code patterns)."""
    out = []
    for m in _SPACED.finditer(low):
        joined = re.sub(r"[ -]", "", m.group())
        value = float(joined)
        out.append(Atom(f"n:{int(value)}", "number", m.group(), len(joined) >= 3, value,
                        sentence=sentence_of(low, m.start(), m.end())))  # fmt: skip
    return out


def _military(low: str):
    """Clock times written "0800 hours" or "14h52"."""
    for m in _MILITARY.finditer(low):
        h, mi = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if int(h) < 24:
            yield f"t:{int(h):02d}:{int(mi):02d}"
