"""Approximate statements of a value, and how close a spoken number must come to count.

The reference judge counts a disclosure when a message reveals the *substance* of a fact:
"partial or approximate values count, as do paraphrases". A rule can see the approximate
readings a message offers and compare them with tolerances that depend on the kind of value:

=========  =====================================================================================
money      hedged ("about", "roughly", "a little over"): within 10%, or the value rounded to one
           significant digit ("roughly $2M" for $2.4M) when that is within 25%
percent    hedged: within 10% of the value, or within 3 points when that is within 25% ("nearly
           half" for 47%, "about 40%" for 42%); fractions ("two-thirds", "a fifth", "one in
           five") and ratios in a value ("31 of 212" reads as 14.6%) count as hedged percentages
count      hedged: within 10%, or rounded to one significant digit within 25% ("around twenty"
           for 18)
duration   compared in days, across units ("about three months" for 14 weeks, "a year and a
           half" for 18 months): equal within 1%, or hedged within 15%
date       the same day without the year ("September 14"); the month ("in mid-September 2026",
           "early November") only while talking about the item
=========  =====================================================================================

A value that is itself hedged ("about 10 weeks") takes approximations as if they were hedged.
A one-sided cue allows half as much again on its side and nothing on the other: "just under
half" fits 46% but not 52%. An unhedged number must be the value or the value rounded to fewer
significant digits within 5% ("$180" for $182): an exact-looking different number ("$241" for
$214, "68%" for 78%) is not a disclosure. Within 5% an approximation counts on its own, as it
always has; further out the sentence must also be about the item (see
:mod:`rewards.judges.evidence`).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from rewards.judges import readings
from scenarios.values import (
    Atom,
    Said,
    atoms,
    hedge,
    said,
    sentence_of,
    significant_digits,
    spell_out,
    stems,
    words_of,
)

RELATIVE = {"money": 0.10, "percent": 0.10, "count": 0.10, "duration": 0.15}
PERCENT_POINTS = 3.0  # hedged percentages may also be this many points off (within ROUND_CAP)
ROUND_CAP = 0.25  # the furthest a one-digit rounding or a point tolerance may be, relatively
ONE_SIDED = 1.5  # a one-sided cue widens the tolerance on its side by this factor
CLOSE = 0.05  # closer than this an approximation counts without looking at the sentence
EQUAL_DAYS = 0.01  # durations in different units are the same within this
REACH = 0.3  # no approximation is further off than this (relatively): a bound for lookups

_NUMERATORS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_NUMERATORS |= {"six": 6, "seven": 7, "eight": 8, "nine": 9}
_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4}
_DENOMINATORS |= {"fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "tenth": 10, "tenths": 10}
_NUM = r"(?:an?|one|two|three|four|five|six|seven|eight|nine|\d+)"
_FRACTION = re.compile(
    rf"(?<!and )(?<!\d )\b(?P<n>{_NUM})[\s-]+(?P<d>halves|half|thirds?|quarters?|fifths?|sixths?|tenths?)\b"
    r"|(?<![\w-])(?P<half>half)\b(?! (?:an? |the )?(?:hour|day|week|month|year|decade)s?\b)"
)
_FRACTION_BEFORE = re.compile(
    r"\b(?:first|second|third|fourth|last|other|latter|back|front|in)\s*$"
)
_FRACTION_AFTER = re.compile(r"\s+(?:of|the|our|their|its|your|all|less|more|fewer)\b")
_OF_A_UNIT = re.compile(r"\s+of an? (?!percent|per cent)")
_POINT_TENTHS = re.compile(r"\b(\d+) tenths? of (?:a|one) (?:percent|per cent|percentage point)")
_RATIO = re.compile(
    r"(?<![\d.,])(?P<n>\d[\d,]*(?:\.\d+)?)\s+(?:out\s+)?(?P<of>of|in|per)\s+"
    r"(?:the\s+|our\s+|all\s+|every\s+|each\s+)?(?P<m>\d[\d,]*|hundred|thousand)(?![\d.,]*%)\b"
)
# A share of money in cents: "38 cents of every visit dollar", "18.5¢ on the dollar" (38%, 18.5%).
_CENTS_SHARE = re.compile(
    r"(?<![\d.,])(?P<n>\d+(?:\.\d+)?)\s*(?:cents?\b|¢)\s*(?:out\s+)?(?:of|on|in|from)\s+"
    r"(?:every|each|the|a|one|our|their)\s+(?:[a-z-]+\s+){0,2}?dollar\b"
)
_PER_WORD = {"hundred": 100.0, "thousand": 1000.0}
_UNITS = r"(?:day|week|month|year|decade)"
_DURATION = re.compile(  # "a year and a half", "half a year", "a year" (this one only hedged)
    rf"\b(?:(?:an?|one) (?P<a>{_UNITS})s? and a half|half (?:an? )?(?P<b>{_UNITS})s?"
    rf"|(?:an?|one) (?P<c>{_UNITS})s?)\b"
)
# A length added to another: "another month", "one more week", "four more weeks", "an extra
# year", "a month-long extension" (a length, never a rate, unlike "a month" alone).
_ADDED = "another|one more|an extra|an additional|a further"
_ADDED_TIME = re.compile(
    rf"\b(?:(?P<one>{_ADDED})\s+|(?P<n>\d+(?:\.\d+)?)\s+(?:more|extra|additional|further)\s+)"
    rf"(?P<u>{_UNITS})s?\b|\b(?:an?|one)\s+(?P<long>{_UNITS})-long\b"
)
# Percentage points: "twelve and a half points of margin", "a 12.5-pt margin".
_POINTS = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)[\s-](?:percentage[\s-])?(?:points?|pts?)\b")
_POINT_WORDS = frozenset(["point", "points", "pt", "pts"])
_ADDED_WORDS = frozenset(["another", "more", "extra", "additional", "further", "long"])
_UNIT_DAYS = {"day": 1.0, "week": 7.0, "month": 30.44, "year": 365.25, "decade": 3652.5}
_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH_ONLY = re.compile(
    r"\b(?P<q>early|mid|late|end of|start of|beginning of|in|by|until|from|before|after|since|"
    r"during)[\s-]+(?P<m>" + "|".join(_MONTHS) + r")\b(?![\s,]+\d)"
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_UNIT_WORDS = frozenset(f"{u}{s}" for u in _UNIT_DAYS for s in ("", "s"))
_WORD = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")
_FRACTION_WORDS = frozenset(["half", *_NUMERATORS])  # _FRACTION needs one, or a number
_DURATION_WORDS = frozenset(["a", "an", "one", "half"])  # _DURATION needs one
# Without a digit, a fraction or time-unit word gives a reading only next to one of these.
COMPANIONS: dict[str, frozenset[str]] = {w: _FRACTION_WORDS for w in _DENOMINATORS} | {
    w: _DURATION_WORDS for w in _UNIT_WORDS
}


def dimension(a: Atom) -> str:
    """The kind of quantity a numeric atom is: money, percent, duration or count."""
    if a.money:
        return "money"
    if a.percent:
        return "percent"
    return "duration" if a.days is not None else "count"


def same(item: Atom, spoken: Atom) -> bool:
    """Whether a spoken number is exactly the item's number (in any unit for durations).

    A percentage and a plain number are never the same ("18% off" is not "18 contracts").
    """
    if spoken.derived or item.derived or item.percent != spoken.percent:
        return False
    if item.days is not None and spoken.days is not None:
        return abs(item.days - spoken.days) <= EQUAL_DAYS * item.days
    return item.value == spoken.value


def closeness(item: Atom, spoken: Atom) -> int:
    """0: not this value; 1: this value or a close approximation; 2: a looser approximation.

    A 2 counts only when the sentence is about the item (the caller checks).
    """
    if same(item, spoken):
        return 1
    if spoken.key.startswith("~p:") and spoken.context.isdisjoint(item.context):
        return 0  # a rate in another period ("$5,500 a day") is compared with a rate per day only
    kind = _comparable(item, spoken)
    if kind is None or not item.value or spoken.value is None or _year(item) or _year(spoken):
        return 0  # a year ("1999 Gaming Act") is a name for a time, never an approximation
    i, s = (item.days, spoken.days) if kind == "duration" else (item.value, spoken.value)
    assert i is not None and s is not None
    err = abs(s - i) / abs(i)
    if spoken.spread:  # a range ("$3.8-4.4M") holds the value or not; said about the item
        return 2 if abs(s - i) <= spoken.spread * abs(s) * (1 + 1e-9) else 0
    if err == 0 and not (spoken.cue or item.cue):
        return 1  # the same ratio in other words ("84 out of 100" for "84 of 100")
    if not (spoken.cue or spoken.derived or item.derived or item.cue):  # either side may hedge
        rounded = significant_digits(s) < significant_digits(i) and abs(s) >= 10 and err <= CLOSE
        return int(rounded and (kind != "count" or bool(item.context & spoken.context)))
    if (spoken.direction < 0 and i > s) or (spoken.direction > 0 and i < s):
        return 0
    widen = ONE_SIDED if abs(spoken.direction) == 2 else 1.0
    fits = err <= RELATIVE[kind] * widen
    if kind == "percent":
        fits = fits or (abs(s - i) <= PERCENT_POINTS * widen and err <= ROUND_CAP)
    elif kind in ("money", "count"):
        fits = fits or (math.isclose(s, _round_sig(i)) and err <= ROUND_CAP)
    if not fits:
        return 0
    return 1 if err <= CLOSE and not (spoken.derived or item.derived) else 2


def _year(a: Atom) -> bool:
    value = float(a.value or 0)
    return dimension(a) == "count" and value.is_integer() and 1900 <= value <= 2100


def _comparable(item: Atom, spoken: Atom) -> str | None:
    """The dimension both numbers are in, or None; "6.5 million" may be money."""
    kind, other = dimension(item), dimension(spoken)
    if kind == other:
        return kind
    big = min(abs(item.value or 0), abs(spoken.value or 0)) >= 100_000
    return kind if big and {kind, other} == {"money", "count"} else None


@lru_cache(maxsize=65536)
def approx_atoms(text: str) -> tuple[Atom, ...]:
    """Approximate readings of ``text`` that :func:`scenarios.values.atoms` leaves out.

    Fractions and "N in M" as hedged percentages, "N of M" as a ratio, tenths of a percent,
    duration idioms ("a year and a half") and month mentions without a day.

    Example:
        >>> [(a.value, a.percent) for a in approx_atoms("nearly half of the staff")]
        [(50.0, True)]
    """
    spelled = spell_out(text)
    low = spelled.translate(_ASCII_LOWER)
    digits = bool(_DIGIT.search(low))
    # Without digits, ASCII text's letter words are its words, split once for all scans.
    plain = spelled is text and text.isascii() and not digits
    words = words_of(text) if plain else set(_WORD.findall(low))
    out: list[Atom] = []
    # Each reading needs some words (a fraction a numerator or "half"; an idiom of duration "a",
    # "an", "one" or "half"); checking them first skips the scans of most messages.
    if not words.isdisjoint(_DENOMINATORS) and (digits or not words.isdisjoint(_FRACTION_WORDS)):
        out += _fractions(low, digits)
    if not words.isdisjoint(("of", "in", "per", "on", "from")) and digits:
        out += _ratios(low)
    if not words.isdisjoint(_UNIT_WORDS) and not words.isdisjoint(_DURATION_WORDS):
        out += _durations(low)
    if digits and not words.isdisjoint(_POINT_WORDS):
        # "points" also score games: only in a sentence about the item, as a hedge would be
        out += [_number(low, m.span(), float(m.group(1)), percent=True, cue=True)
                for m in _POINTS.finditer(low)]  # fmt: skip
    if not words.isdisjoint(_UNIT_WORDS) and not words.isdisjoint(_ADDED_WORDS):
        out += _added_durations(low)
    if not words.isdisjoint(_MONTHS):
        out += _months(low)
    return tuple(dict.fromkeys(out))


def trigger_words(texts: list[str]) -> frozenset[str]:
    """Words without which a message has no approximate reading of these values."""
    found = [a for t in texts for a in atoms(t)] + [a for t in texts for a in item_approx(t)]
    words: set[str] = set()
    if any(a.percent for a in found):
        words |= _DENOMINATORS.keys()
    if any(a.days is not None for a in found):
        words |= _UNIT_WORDS
    if any(a.kind in ("date", "month") for a in found):
        words |= set(_MONTHS)
    return frozenset(words)


@lru_cache(maxsize=65536)
def heard(text: str) -> Said:
    """What a message states, with its approximate readings and the :mod:`readings` added."""
    base = said(text)
    extra = approx_atoms(text)
    more = readings.extra(text)
    # A date said without its year matches an item's date on any year ("y:09-14").
    yearless = {"y:" + a.key[7:] for a in atoms(text, loose=True) if a.key.startswith("d:????-")}
    if not extra and not yearless and not any(more):
        return base
    keys = base.keys | yearless | {a.key for a in extra if a.kind == "month"} | more.keys
    numbers = base.numbers + tuple(a for a in extra if a.kind == "number") + more.numbers
    return Said(frozenset(keys), numbers, base.words, base.soft | more.soft)


def item_approx(text: str) -> tuple[Atom, ...]:
    """The approximate readings of a knowledge value: its ratios as percentages."""
    low = text.translate(_ASCII_LOWER)
    return tuple(_ratios(low)) if _DIGIT.search(low) else ()


def partial_keys(text: str) -> frozenset[str]:
    """Month keys of a value's dates ("m:2026-09" and "m:????-09" for 2026-09-14)."""
    keys = set()
    for a in atoms(text):
        if a.kind == "date":
            year, month = a.key[2:6], a.key[7:9]
            keys |= {f"m:????-{month}"} | ({f"m:{year}-{month}"} if year != "????" else set())
        elif a.kind == "month":
            keys.add(f"m:????-{a.key[7:9]}")
    return frozenset(keys)


# -- extractors ----------------------------------------------------------------------------


def _hedge(low: str, start: int) -> tuple[bool, int]:
    return hedge(low[max(0, start - 24) : start])


def _number(low: str, span: tuple[int, int], value: float, key: str = "", **fields: object) -> Atom:
    """A numeric atom read from ``low[span]``, with its cue, unit words and sentence."""
    start, end = span
    cue, direction = _hedge(low, start)
    after = [x for x in (stems(w) for w in _WORD.findall(low[end : end + 40])) if x][:3]
    fields.setdefault("derived", True)
    fields["cue"] = cue or bool(fields.get("cue"))
    return Atom(
        key or f"~:{value:.4g}", "number", low[start:end], True, value,
        context=frozenset(x.pop() for x in after), direction=direction,
        sentence=sentence_of(low, start, end), **fields,  # type: ignore[arg-type]
    )  # fmt: skip


def _fractions(low: str, digits: bool):
    for m in _POINT_TENTHS.finditer(low) if digits and "tenth" in low else ():
        value = int(m.group(1)) / 10
        yield _number(low, m.span(), value, f"n:{value:g}", percent=True, derived=False)
    for m in _FRACTION.finditer(low):
        if m.group("half"):
            n, d = 1, 2
        else:
            raw = m.group("n")
            n, d = int(raw) if raw.isdigit() else _NUMERATORS[raw], _DENOMINATORS[m.group("d")]
        if (
            n >= d
            or _POINT_TENTHS.match(low, m.start())
            or _FRACTION_BEFORE.search(low[: m.start()])
        ):
            continue
        if _OF_A_UNIT.match(low, m.end()):  # "a third of a standard deviation" is 0.33 of it
            yield _number(low, m.span(), n / d, cue=True)
        elif _hedge(low, m.start())[0] or _FRACTION_AFTER.match(low, m.end()):
            yield _number(low, m.span(), 100 * n / d, percent=True, cue=True)


def _ratios(low: str):
    """Ratios as percentages: "N of M", "N out of every M", "N per thousand", cents of a dollar."""
    for m in _RATIO.finditer(low):
        n = float(m.group("n").replace(",", ""))
        d = _PER_WORD.get(m.group("m")) or float(m.group("m").replace(",", ""))
        year = 1900 <= d <= 2100 and m.group("of") == "in"
        if 0 < n < d and not year and d != 1:
            yield _number(low, m.span(), float(f"{100 * n / d:.12g}"), percent=True)
    for m in _CENTS_SHARE.finditer(low) if "dollar" in low else ():
        if 0 < (n := float(m.group("n"))) < 100:
            yield _number(low, m.span(), n, percent=True)


def _durations(low: str):
    for m in _DURATION.finditer(low):
        unit = m.group("a") or m.group("b") or m.group("c")
        amount = 1.5 if m.group("a") else 0.5 if m.group("b") else 1.0
        if amount == 1.0 and not _hedge(low, m.start())[0]:
            continue  # "a year" alone is usually "per year"; "about a year" is a length
        days = amount * _UNIT_DAYS[unit]
        yield _number(low, m.span(), amount, f"n:{amount:g}", days=days, derived=False)


def _added_durations(low: str):
    """A length added to another, as that length: an approximation, so only about the item."""
    for m in _ADDED_TIME.finditer(low):
        amount = float(m.group("n") or 1)
        days = amount * _UNIT_DAYS[m.group("u") or m.group("long")]
        yield _number(low, m.span(), amount, f"~:{amount:g}", days=days)


def _months(low: str):
    for m in _MONTH_ONLY.finditer(low):
        if m.group("m") == "may" and m.group("q") in ("in", "by"):
            continue  # "in may" is as often "in may be"
        month = _MONTHS.index(m.group("m")) + 1
        yield Atom(f"m:????-{month:02d}", "month", m.group(0), True, derived=True)


def _round_sig(value: float) -> float:
    """``value`` rounded half up to one significant digit (85 -> 90, 2.4e6 -> 2e6)."""
    scale = 10 ** math.floor(math.log10(abs(value)))
    return math.floor(abs(value) / scale + 0.5) * scale * (1 if value > 0 else -1)
