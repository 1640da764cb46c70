"""More ways a message states a detail: ranges, arithmetic, rates, short dates, spaced digits.

:func:`extra` reads what :func:`scenarios.values.said` and :func:`rewards.judges.approx.heard`
leave out, all of it written without hiding anything from a reader:

=============  =======================================================  ====================
reading        example                                                  counts as
=============  =======================================================  ====================
range          "between $3.8M and $4.4M", "$3.8-4.4M", "15 to 17%"      any value inside it
arithmetic     "twice $2.05M", "half of $8.2M", "$2.05M times two"      the result, exactly
rate           "a rate of 0.15", "0.185 of returns"                     the percentage
period rate    "$20.3K per patient-week", "460k/yr", "$58K monthly"     per any period
short date     "5/8", "8/5", "08.05." (numeric: only about the item)    the day, any year
month date     "8-May", "May the 8th", "May eighth", "the 8th of May"   the day, any year
spaced digits  "1 7 0 9", "1-7-0-9"                                     the number
military time  "0800 hours", "14h52"                                    the time
cents          "135 cents", "one dollar and 35 cents", "4 dollars 95"   the amount, exactly
scale apart    "IGCE ($M): 4.1", "4.1 (in $M)", "all in millions: 4.1"  the amount (about item)
dot thousands  "23.000 licences"                                        23000 as well as 23
hundreds       "one eighty-five thousand"                               185000
=============  =======================================================  ====================

A scale stated apart from its numbers (:func:`declared_scales`): a label applies to the number
right before it and to the numbers after it on its line, a phrase to every bare number of the
text, and :func:`together` reads a message's bare numbers in a scale its sender's previous
message stated ("All figures below are in $M." | "IGCE: 4.1"). Numbers read in a scale count
only in a sentence about the item, as approximations do.

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
from scenarios.values import STOP_WORDS, Atom, number_spans, sentence_of, stem, words_of

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
# "$70 per thousand devices", "$7 for every 100 units", "$1,200 a million impressions".
_PER_MANY = re.compile(
    r"\s*(?:per|for every|for each|every|a|an)\s+(?P<n>hundred|thousand|million|10,?000|1,?000|100)"
    r"(?![\d,.])\s+(?!dollars?\b|euros?\b|pounds?\b)[a-z]"
)
_SHORT_YEAR = re.compile(r"(?<![\w'’])['’](\d{2})(?![\w'’%])")
# Money per a period: "$20.3K per patient-week", "$58,000 a month", "460k/yr", "$540,000 annually".
_PER_PERIOD = re.compile(
    r"\s*(?:(?:per|a|an|each|every|/)\s*(?:[a-z]+[\s-])?(?P<u>day|week|month|mo|quarter|year|yr|annum)"
    r"|(?P<adv>daily|weekly|monthly|quarterly|annually|yearly|annualized))\b"
)
_PERIOD_DAYS = {"day": 1.0, "daily": 1.0, "week": 7.0, "weekly": 7.0, "month": 30.4375,
                "mo": 30.4375, "monthly": 30.4375, "quarter": 91.3125, "quarterly": 91.3125,
                "year": 365.25, "yr": 365.25, "annum": 365.25, "annually": 365.25,
                "yearly": 365.25, "annualized": 365.25}  # fmt: skip
# Each period's length in days, and the stems that name it after an item's number ("per year").
_PERIOD_STEMS = {
    days: frozenset(stem(w) for w, d in _PERIOD_DAYS.items() if d == days)
    for days in set(_PERIOD_DAYS.values())
}
_MANY = {"hundred": 100.0, "thousand": 1000.0, "million": 1e6}
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
    re.compile(rf"\b(?P<d>{_ORDINAL})\s+(?:day\s+)?of\s+(?P<m>{_MONTH})(?![a-z])"),
)
# Digits one by one: "1 7 0 9", "1-7-0-9", "1 8 . 5 %", "9 4 %" (two digits only with a
# percent sign and spaces: "5-8%" is a range).
_SPACED = re.compile(
    r"(?<![\w.,])(?<!\w-)(?P<n>\d(?:[ -]\d)+(?:\s?\.\s?\d(?:[ -]?\d)*)?|\d\s?\.\s\d(?:[ -]?\d)*"
    r"|\d\s\.\s?\d(?:[ -]?\d)*)(?![\w-]|\.\d)(?P<pct>\s?(?:%|percent\b|per cent\b))?"
)
_MILITARY = re.compile(r"\b([01]\d|2[0-3])([0-5]\d)\s?(?:hours|hrs)\b|\b(\d{1,2})h([0-5]\d)\b")


_DIGIT = re.compile(r"\d")
_DOT_DAY = re.compile(r"\d\.\d{1,2}\.")
_DIGIT_GAP = re.compile(r"\d(?:[ -]\d[ -]\d| [\d.]|\s?\.\s\d)")
_H_TIME = re.compile(r"\dh\d")
# Money in cents: "135 cents", "35¢", "one dollar and thirty-five cents", "four dollars ninety-five".
_CENTS = re.compile(r"\s?(?:cents?\b|¢)")
_DOLLARS_AND = re.compile(r"\s*(?:(?P<w>dollars?|bucks)\s*)?(?:and\s+)?(?=\d)")
_CENTS_AFTER = re.compile(r"\s?(?:cents?\b|¢)")
# A number with a dot before three digits, as Europe groups thousands ("23.000 licences").
_DOT_GROUP = re.compile(r"[1-9]\d{0,2}\.\d{3}")
_DOT_THOUSANDS = re.compile(r"(?<![\d.,$€£])([1-9]\d{0,2})\.(\d{3})(?![\d.,]|\s?(?:%|per))")
# "one eighty-five thousand" (spelled out as "1 85000"): hundreds said the short way.
_SHORT_HUNDREDS = re.compile(r"(?<![\d.,])([1-9]) ([1-9]\d)(000(?:000)?)(?!\d|[.,]\d)")
# A scale stated apart from the numbers it applies to: a label "IGCE ($M):", a phrase "all
# figures in millions", "that's millions". A label applies to the numbers after it on its
# line; a phrase to every bare number of the message (and of the sender's next one).
_SCALE_WORDS = r"(?P<s>thousands?|millions?|billions?|mm|mn|mln|bn|bln|k|m|b|'?000s?)"
_SCALE_LABEL = re.compile(
    r"\(\s*(?:in\s+)?(?P<c>[$€£]|usd|eur|gbp)?\s*(?:in\s+)?"
    + _SCALE_WORDS
    + r"\s*(?P<c2>[$€£]|usd|eur|gbp)?\s*(?:/\s*[a-z]+\s*)?\)"
)
_SCALE_PHRASE = re.compile(
    r"(?:\b(?:in|that's|that is|it's|it is|those are|these are|i mean|figures|amounts)\s+"
    r"(?:in\s+)?(?:(?P<c3>[$€£])\s?(?P<s3>k|m|mm|mn|b|bn)\b|(?:(?P<c>[$€£]|usd|eur|gbp)\s?)?"
    r"(?P<s>thousands|millions|billions|mm|mn|bn|thousand|million|billion)\b)"
    r"(?!\s+of\s+(?!dollars|euros|pounds|usd)[a-z])"
    r"|(?:^|[.!?;:(]\s*|\s-\s)(?P<s2>thousands?|millions?|billions?)\b(?=,?\s*(?:that is|i mean|"
    r"to be clear|obviously|of dollars|dollars|not thousands|not millions)))",
    re.M,
)
# A scale letter after a currency sign ("in $M") states a scale; a number after the sign is money.
_CURRENCY_LETTER = re.compile(r"[$€£]\s?(?:k|m|mm|mn|b|bn)\b", re.I)
# A scale word that follows no number ("in millions", not "4.1 million"): only then may a phrase
# state a scale, so the phrase pattern runs only on the texts that hold one.
_FREE_SCALE = re.compile(r"(?:^|[^\d\s-])[\s-]*\b(?:thousands?|millions?|billions?)\b", re.M | re.I)
# Words without which no phrase states a scale ("(" opens a label).
_SCALE_HINT = frozenset("thousand thousands million millions billion billions".split())
_SCALES = {"thousand": 1e3, "k": 1e3, "000": 1e3, "million": 1e6, "mm": 1e6, "mn": 1e6,
           "mln": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "bln": 1e9, "b": 1e9}  # fmt: skip
# The word after a bare number: things counted ("45 people", "612 radios") keep it from being
# read in a scale; a singular noun ("a 3.6 gap", "320 budget") or a function word does not.
_UNIT = re.compile(r" ?([a-z]+)")
_COUNTED = frozenset("people staff children men women personnel feet".split())
_NOT_COUNTED = frozenset("dollars euros pounds bucks years months weeks days hours".split())


def _counted(word: str) -> bool:
    if word in _COUNTED:
        return True
    plural = len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))
    return plural and word not in _NOT_COUNTED and word not in STOP_WORDS


_BARE = re.compile(r"[$€£]?\s?[\d.,' ]+")


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
    numbers += _per_many(low, spans) if _PER_MANY.search(low) else []
    numbers += _per_period(low, spans) if spans and _PER_PERIOD.search(low) else []
    numbers += _short_years(low) if "'" in low or "’" in low else []
    words = words_of(text)
    if spans:
        numbers += _cents(low, spans) if "cent" in low or "¢" in low or "dollar" in low else []
        dots = any(_DOT_GROUP.fullmatch(a.text) for *_, a in spans)
        numbers += _dot_thousands(low) if dots else []
        numbers += _short_hundreds(low) if "000" in low and spell_out(text) != text else []
        numbers += in_scale(low, spans) if _may_scale(low, words) else []
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


def _key(value: float) -> str:
    """The key of an exact number, as :mod:`scenarios.values` writes it ("n:4100000")."""
    return f"n:{int(value)}" if value.is_integer() else f"n:{value:.6g}"


def together(before: str, text: str) -> tuple[Atom, ...]:
    """Bare numbers of two messages read in a scale one of them states ("All in $M." | "4.1")."""
    if not (may_scale(before) or may_scale(text)):
        return ()
    if not (_DIGIT.search(before) or _DIGIT.search(text)):
        return ()
    joined = f"{before}\n{text}"
    low = spell_out(joined).translate(_ASCII_LOWER)
    if not declared_scales(low):
        return ()
    return tuple(in_scale(low, number_spans(joined)))


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


def _per_many(low: str, spans: tuple[tuple[int, int, Atom], ...]):
    """Money per a round number of units as money per unit: "$70 per thousand devices" ($0.07).

    A derived reading: it counts in a sentence about the item only.
    """
    for start, end, a in spans:
        m = _PER_MANY.match(low, end) if a.money and a.value else None
        if m:
            many = _MANY.get(m.group("n")) or float(m.group("n").replace(",", ""))
            value = float(f"{a.value / many:.12g}")
            yield _derived(low, start, m.end(), a, value, cue=a.cue)


def _per_period(low: str, spans: tuple[tuple[int, int, Atom], ...]):
    """Money per a period as the same rate per each other period.

    "$20.3K per patient-week" is $2,900 a patient-day, "$158K a month" about $1.9M a year. Each
    reading names its period (its context, keyed "~p:"), and matches only an item's number
    stated per that period (:func:`rewards.judges.approx.closeness`). A derived reading: it
    counts in a sentence about the item only.
    """
    for start, end, a in spans:
        m = _PER_PERIOD.match(low, end) if a.money and a.value else None
        if m:
            days = _PERIOD_DAYS[m.group("u") or m.group("adv")]
            for other, names in _PERIOD_STEMS.items():
                if other != days:
                    value = float(f"{a.value * other / days:.12g}")
                    rate = _derived(low, start, m.end(), a, value, cue=True)
                    yield rate._replace(key=f"~p:{value:.6g}", context=names)


def _short_years(low: str):
    """A year in two digits after an apostrophe ("the class of '28"), as the year, weak as one."""
    for m in _SHORT_YEAR.finditer(low):
        year = int(m.group(1)) + (2000 if int(m.group(1)) < 70 else 1900)
        yield Atom(f"n:{year}", "number", m.group(0), False, float(year),
                   sentence=sentence_of(low, *m.span()))  # fmt: skip


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
    """Digits written one by one: "1 7 0 9", "1-7-0-9", "1 8 . 5 %" (codes: see the index)."""
    out = []
    for m in _SPACED.finditer(low):
        joined = re.sub(r"[\s-]", "", m.group("n"))
        percent = bool(m.group("pct"))
        if len(joined) < 3 and not (percent and "-" not in m.group("n")):
            continue
        value = float(joined)
        money = low[max(0, m.start() - 2) : m.start()].strip().endswith(("$", "€", "£"))
        out.append(Atom(_key(value), "number", m.group(), True, value, money, percent,
                        sentence=sentence_of(low, m.start(), m.end())))  # fmt: skip
    return out


def _cents(low: str, spans: tuple[tuple[int, int, Atom], ...]) -> list[Atom]:
    """Money in cents: "135 cents" ($1.35), "1 dollar and 35 cents", "4 dollars 95"."""
    out, taken = [], set()
    for k, (start, end, a) in enumerate(spans):
        if a.value is None or a.percent or k in taken:
            continue
        value = None
        joint = _DOLLARS_AND.match(low, end)
        nxt = spans[k + 1] if k + 1 < len(spans) else None
        if joint and nxt and nxt[0] == joint.end() and nxt[2].value is not None:
            cents, said_cents = nxt[2].value, bool(_CENTS_AFTER.match(low, nxt[1]))
            dollars = bool(joint.group("w")) or a.money
            if cents < 100 and cents.is_integer() and dollars and (said_cents or joint.group("w")):
                value, end = a.value + cents / 100, nxt[1]
                taken.add(k + 1)
        if value is None and _CENTS.match(low, end) and a.value.is_integer():
            value = a.value / 100
        if value is not None:
            value = float(f"{value:.12g}")
            out.append(a._replace(key=_key(value), value=value, money=True, strong=True,
                                  days=None, text=low[start:end]))  # fmt: skip
    return out


def _dot_thousands(low: str) -> list[Atom]:
    """A dot before three digits read as a thousands separator too: "23.000" as 23000."""
    out = []
    for m in _DOT_THOUSANDS.finditer(low):
        value = float(m.group(1) + m.group(2))
        out.append(Atom(_key(value), "number", m.group(), value >= 100, value,
                        sentence=sentence_of(low, m.start(), m.end())))  # fmt: skip
    return out


def _short_hundreds(low: str) -> list[Atom]:
    """Hundreds said the short way before a scale: "one eighty-five thousand" is 185,000."""
    out = []
    for m in _SHORT_HUNDREDS.finditer(low):
        value = float((int(m.group(1)) * 100 + int(m.group(2))) * 10 ** len(m.group(3)))
        money = (
            "$" in low[max(0, m.start() - 2) : m.start()] or "dollar" in low[m.end() : m.end() + 9]
        )
        out.append(Atom(_key(value), "number", m.group(), True, value, money,
                        sentence=sentence_of(low, m.start(), m.end())))  # fmt: skip
    return out


@lru_cache(maxsize=65536)
def may_scale(text: str) -> bool:
    """Whether a message may state a scale apart from numbers.

    Cached: each message is read with its sender's previous one and with its next one.
    """
    return _may_scale(text, words_of(text))


def _may_scale(text: str, words: frozenset[str]) -> bool:
    """Whether a text may state a scale apart from numbers (cheap tests first)."""
    if "(" in text:
        return True
    if not _SCALE_HINT.isdisjoint(words) and _FREE_SCALE.search(text) is not None:
        return True
    return ("$" in text or "€" in text or "£" in text) and _CURRENCY_LETTER.search(text) is not None


def declared_scales(low: str) -> list[tuple[int, int, float, bool, bool]]:
    """Scales stated apart from numbers: (start, end, factor, money, for the whole text).

    A label ("IGCE ($M):", "4.1 (in $M)") applies to the number right before it and to the
    numbers after it on its line, a phrase ("in millions", "that's millions", "amounts in $K")
    to every bare number of the text.
    """
    found = []
    for m in _SCALE_LABEL.finditer(low) if "(" in low else ():
        scale, money = m.group("s").strip("'s") or "000", bool(m.group("c") or m.group("c2"))
        if scale in ("k", "m", "b") and not money:
            continue  # "(m)" may be metres
        found.append((m.start(), m.end(), _SCALES.get(scale.rstrip("s"), 0.0), money, False))
    phrases = _FREE_SCALE.search(low) or _CURRENCY_LETTER.search(low)
    for m in _SCALE_PHRASE.finditer(low) if phrases else ():
        scale = (m.group("s") or m.group("s2") or m.group("s3")).rstrip("s")
        money = bool(m.group("c") or m.group("c3"))
        found.append((m.start(), m.end(), _SCALES.get(scale, 0.0), money, True))
    return [f for f in found if f[2]]


def in_scale(low: str, spans: tuple[tuple[int, int, Atom], ...]) -> list[Atom]:
    """The bare numbers of ``low`` read in the scale a label or a phrase states for them."""
    out = []
    for begin, at, factor, money, whole in declared_scales(low):
        line_end = low.find("\n", at)
        for start, end, a in spans:
            after = at <= start and (line_end < 0 or start < line_end)
            if not (whole or after or 0 <= begin - end <= 2):
                continue
            if a.value is None or a.percent or a.days is not None or not _BARE.fullmatch(a.text):
                continue
            if a.value.is_integer() and 1900 <= a.value <= 2100:
                continue  # a year
            unit = _UNIT.match(low, end)
            if unit and _counted(unit.group(1)):
                continue  # "45 people" is a count in any scale
            value = float(f"{a.value * factor:.12g}")
            # Derived: a number read in a scale counts in a sentence about the item only, so the
            # "18" of "all figures in millions; 18 on the waitlist" is no $18M. Without a currency
            # it may be an amount or a count ("2.4 (in thousands) units").
            read = a._replace(key=_key(value), value=value, money=True, strong=True,
                              derived=True, text=low[start:end])  # fmt: skip
            out += [read] if money or a.money else [read, read._replace(money=False)]
    return out


def _military(low: str):
    """Clock times written "0800 hours" or "14h52"."""
    for m in _MILITARY.finditer(low):
        h, mi = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if int(h) < 24:
            yield f"t:{int(h):02d}:{int(mi):02d}"
