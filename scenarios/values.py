"""The checkable details of a fact ("atoms") and how to find them in free text.

A knowledge value such as ``"$38 per user/year for 6,800 users; renewal Feb 14, 2026"`` is
disclosed when its details are said, in whatever format: ``38 dollars``, ``6.8k users``,
``2026-02-14``. :func:`atoms` turns a text into canonical atoms:

* numbers (plain, money, percentages), with k/M/B and thousand/million/billion multipliers, commas,
  and spelled-out numbers up to the nineties -> ``n:<value>``;
* dates in ISO, US and written forms -> ``d:<yyyy>-<mm>-<dd>`` (year ``????`` when absent);
* clock times (``22:00``, ``10 pm``) -> ``t:<hh>:<mm>``;
* codes (``INC-2291``, ``RT-2025-09``, ``SOC2``) -> ``c:<upper alphanumerics>``;
* proper names (capitalised words inside a clause, CamelCase words) -> ``w:<lower words>``.

Each atom records whether it is *strong* (unlikely to occur by chance: money, percentages,
numbers with three or more significant digits or a decimal point, dates, times, codes and
names) and the word that follows a number (its unit), which weak numbers must also match.
Numbers that are part of a date, time or code are not counted twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scenarios.schema import Scenario

_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for m in names
}
_MONTH_RE = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_SMALL = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2
    )
}
_MULT = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "trillion": 1e12,
}
_CURRENCY_WORDS = {"dollar", "usd", "eur", "euro", "gbp", "pound"}
_WORDNUM = "|".join(sorted([*_SMALL, *_TENS], key=len, reverse=True))

_DATE_PATTERNS = (
    re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"),  # 2026-02-14
    re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b"),  # 02/14/2026 (US order)
    re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I),
    re.compile(
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})(?:,?\s+(\d{{4}}))?\b", re.I
    ),
)
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\s+(\d{{4}})\b", re.I)
_TIME = re.compile(
    r"\b([01]?\d|2[0-3]):([0-5]\d)\b|\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])\.?m\b", re.I
)
_CODE = re.compile(
    r"\b(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]+(?:[-./][A-Za-z0-9]+)*\b"
)
_CODE_UPPER = re.compile(r"\b[A-Z]{2,}(?:[-/][A-Z0-9]+)+\b")
_NUMBER = re.compile(
    rf"(?P<cur>[$€£])?\s?(?<![\w.])(?P<num>\d[\d,]*(?:\.\d+)?|\.\d+"
    rf"|(?:{_WORDNUM})(?:[- ](?:{_WORDNUM}))?(?![\w-]))"
    r"(?:\s?(?P<mult>k|mm|mn|m|bn|b|t|thousand|million|billion|trillion)\b)?"
    r"\s?(?P<pct>%|percent\b|per cent\b|pct\b)?",
    re.I,
)
_NAME = re.compile(r"\b(?:[A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z][a-z'’]+(?:\s+[A-Z][a-z'’]+)*)\b")
_UNIT = re.compile(r"\s*(?:[-/]\s*)?([A-Za-z]+)")
_STOP_NAMES = {
    "the",
    "a",
    "an",
    "for",
    "and",
    "or",
    "of",
    "in",
    "on",
    "at",
    "to",
    "per",
    "by",
    "with",
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
    "no",
    "not",
    "all",
    "only",
    "each",
    "every",
    "total",
    "current",
    "last",
    "next",
    "new",
    "q1",
    "q2",
    "q3",
    "q4",
    "fy",
    "i",
    "we",
    "our",
    "my",
    "this",
    "that",
    "is",
    "are",
    "was",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mondays",
    "tuesdays",
    "wednesdays",
    "thursdays",
    "fridays",
    "saturdays",
    "sundays",
    *_MONTHS,
}


@dataclass(frozen=True)
class Atom:
    """One checkable detail of a text, in canonical form."""

    key: str
    kind: str
    text: str
    strong: bool
    unit: str = ""


@lru_cache(maxsize=65536)
def atoms(text: str) -> tuple[Atom, ...]:
    """Extract the canonical atoms of ``text`` (cached: values are extracted many times).

    Example:
        >>> sorted(a.key for a in atoms("$2.4M by March 3, 2027 (7.6%)"))
        ['d:2027-03-03', 'n:2400000', 'n:7.6']
    """
    taken: list[tuple[int, int]] = []
    found: list[Atom] = []
    for extract in (_dates, _times, _codes, _numbers, _names):
        for start, end, atom in extract(text):
            if any(s < end and start < e for s, e in taken):
                continue
            taken.append((start, end))
            found.append(atom)
    return tuple(dict.fromkeys(found))


def atom_keys(text: str) -> frozenset[str]:
    """The set of atom keys in ``text``, with date keys also under their year-less form."""
    keys = set()
    for a in atoms(text):
        keys.add(a.key)
        if a.kind == "date":
            keys.add("d:????" + a.key[6:])
    return frozenset(keys)


def public_context_keys(scenario: Scenario) -> frozenset[str]:
    """Atom keys every participant sees anyway: the goal, roles, domains and item names.

    A detail that appears there (a site name, a product code) says nothing about a value.
    """
    texts = [scenario.scenario_goal, *scenario.roles, *scenario.knowledge_domain_map]
    texts += [k for a in scenario.agents for k in a.pre_interaction_knowledge]
    joined = "\n".join(texts)
    # Capitalised words anywhere in these texts (also clause openers, which atoms() skips).
    words = {"w:" + w.lower() for w in re.findall(r"\b[A-Z][\w'’-]*", joined)}
    return atom_keys(joined) | words


def units_near(text: str) -> dict[str, set[str]]:
    """Map each number key in ``text`` to the unit words that follow it."""
    out: dict[str, set[str]] = {}
    for a in atoms(text):
        if a.kind == "number":
            out.setdefault(a.key, set()).add(a.unit)
    return out


def _dates(text: str):
    for i, pat in enumerate(_DATE_PATTERNS):
        for m in pat.finditer(text):
            g = m.groups()
            if i == 0:
                y, mo, d = g[0], int(g[1]), int(g[2])
            elif i == 1:
                mo, d, y = int(g[0]), int(g[1]), g[2]
            elif i == 2:
                mo, d, y = _MONTHS[g[0].lower().rstrip(".")], int(g[1]), g[2]
            else:
                d, mo, y = int(g[0]), _MONTHS[g[1].lower().rstrip(".")], g[2]
            if 1 <= mo <= 12 and 1 <= d <= 31:
                key = f"d:{y or '????'}-{mo:02d}-{d:02d}"
                yield m.start(), m.end(), Atom(key, "date", m.group(0), True)
    for m in _MONTH_YEAR.finditer(text):
        mo = _MONTHS[m.group(1).lower().rstrip(".")]
        yield m.start(), m.end(), Atom(f"m:{m.group(2)}-{mo:02d}", "month", m.group(0), True)


def _times(text: str):
    for m in _TIME.finditer(text):
        if m.group(1) is not None:
            h, mi = int(m.group(1)), int(m.group(2))
        else:
            h, mi = int(m.group(3)) % 12, int(m.group(4) or 0)
            if m.group(5).lower() == "p":
                h += 12
        yield m.start(), m.end(), Atom(f"t:{h:02d}:{mi:02d}", "time", m.group(0), True)


def _codes(text: str):
    for pat in (_CODE_UPPER, _CODE):
        for m in pat.finditer(text):
            tok = m.group(0)
            if pat is _CODE and (tok[0].isdigit() and not re.search(r"[A-Z]{2}|[A-Z]\d", tok)):
                continue  # "12M", "4th", "2x" are numbers with suffixes, not codes
            key = "c:" + re.sub(r"[^A-Za-z0-9]", "", tok).upper()
            yield m.start(), m.end(), Atom(key, "code", tok, True)


def _numbers(text: str):
    for m in _NUMBER.finditer(text):
        value = _number_value(m.group("num"))
        if value is None:
            continue
        mult = (m.group("mult") or "").lower()
        value *= _MULT.get(mult, 1)
        pct = bool(m.group("pct"))
        unit = _unit_after(text, m.end()) if not pct else "%"
        money = bool(m.group("cur")) or unit in _CURRENCY_WORDS
        if mult in ("m", "b", "t", "k") and not (money or m.group("num")[-1].isdigit()):
            unit = mult
        digits = re.sub(r"\D", "", m.group("num"))
        strong = (
            money
            or pct
            or bool(mult)
            or "." in m.group("num")
            or len(digits.rstrip("0")) >= 3
            or (len(digits) >= 3 and not _is_year(value))
        )
        key = f"n:{_fmt(value)}"
        yield m.start("num"), m.end(), Atom(key, "number", m.group(0).strip(), strong, unit)


def _names(text: str):
    for clause in re.finditer(r"[^;:.!?\n]+", text):
        for m in _NAME.finditer(clause.group(0)):
            words = [w for w in m.group(0).split() if w.lower() not in _STOP_NAMES]
            if not words:
                continue
            camel = bool(re.search(r"[a-z][A-Z]", m.group(0)))
            first = m.start() == len(clause.group(0)) - len(clause.group(0).lstrip())
            if first and len(words) < 2 and not camel:
                continue  # a capitalised clause opener is usually an ordinary word
            start = clause.start() + m.start()
            key = "w:" + " ".join(w.lower() for w in words)
            yield start, start + len(m.group(0)), Atom(key, "name", m.group(0), True)


def _number_value(tok: str) -> float | None:
    tok = tok.lower().strip()
    if tok[0].isdigit() or tok[0] == ".":
        try:
            return float(tok.replace(",", ""))
        except ValueError:
            return None
    total = 0
    for part in re.split(r"[- ]", tok):
        if part in _SMALL:
            total += _SMALL[part]
        elif part in _TENS:
            total += _TENS[part]
        else:
            return None
    return float(total)


def _unit_after(text: str, pos: int) -> str:
    m = _UNIT.match(text, pos)
    if not m:
        return ""
    word = m.group(1).lower()
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _is_year(value: float) -> bool:
    return value.is_integer() and 1900 <= value <= 2100


def _fmt(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:.6g}"
