"""The checkable details of a fact ("atoms") and how to find them in free text.

A knowledge value such as ``"$38 per user/year for 6,800 users; renewal Feb 14, 2026"`` is
disclosed when its details are said, in whatever format: ``38 dollars``, ``6.8k users``,
``2026-02-14``. :func:`atoms` turns a text into canonical atoms:

* numbers (plain, money, percentages) with k/M/B and thousand/million/billion multipliers,
  commas, and numbers spelled out in words ("twenty-one point four", "two hundred and twelve",
  "fourteen and a half thousand") -> ``n:<value>``;
* dates in ISO, US and written forms -> ``d:<yyyy>-<mm>-<dd>`` (year ``????`` when absent);
  numeric ones also with slashes, dashes or dots and two-digit years ("5/8/26", "18.06.26",
  "2026/05/08"), compact ("20260508"), with "day of" ("the 8th day of May") or glued ("May8");
  an ambiguous numeric date's other order is kept as a soft alternative;
* clock times (``22:00``, ``10 pm``) -> ``t:<hh>:<mm>``;
* codes (``INC-2291``, ``RT-2025-09``, ``SOC2``) -> ``c:<upper alphanumerics>``;
* proper names (capitalised words inside a clause, CamelCase words) -> ``w:<lower words>``, with
  their distinctive single words as alternatives (``Pinecrest`` for "Pinecrest Middle").

An atom is *strong* when it is unlikely to occur by chance: money, percentages, decimals,
numbers with a multiplier, whole numbers of 100 or more with two significant digits (not
years), dates, times, codes and names. Numbers keep the stems of the three content words that
follow them (their unit context) and whether an approximation cue ("about", "just under")
precedes them. :func:`said` extracts the same from a message, more loosely (a capitalised
sentence opener may be a name there).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from scenarios.spelled import NUMBER_WORDS, spell_out
from scenarios.text import words_of

if TYPE_CHECKING:
    from scenarios.schema import Scenario

_MONTH_NAMES = (
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
    ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
    ("dec", "december"),
)  # fmt: skip
_MONTHS = {m: i for i, names in enumerate(_MONTH_NAMES, start=1) for m in names}
_MONTH_RE = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_NUMBER_WORDS = NUMBER_WORDS
_DIGIT = re.compile(r"\d")
# The patterns above without re.I run on this ASCII lower-casing, which keeps every position, so
# matches index the original text; Python's re scans case-insensitive alternations far slower.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_MULT = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "mln": 1e6, "mil": 1e6,
    "mill": 1e6, "mio": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "bln": 1e9, "mrd": 1e9,
    "billion": 1e9, "t": 1e12, "trillion": 1e12, "hundred": 1e2, "hundred thousand": 1e5,
    "hundred million": 1e8, "grand": 1e3,
}  # fmt: skip
_CURRENCY_WORDS = {"dollar", "dollars", "usd", "eur", "euro", "euros", "gbp", "pound", "pounds"}
# Other currencies by name or code after the amount ("35 BTC", "thirty-five bitcoin", "CHF 21,700"
# and "21,700 Swiss francs"); not "aud" or "cad", which also open audit and drawing codes.
_CURRENCY_WORDS |= {"btc", "bitcoin", "bitcoins", "xbt", "eth", "ether", "yen", "jpy", "chf", "franc",
                    "francs", "yuan", "cny", "rmb", "renminbi", "rupee", "rupees", "inr", "peso", "pesos"}  # fmt: skip
_CUES = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx|nearly|almost|close to|just under|just over|"
    r"(?:a bit|a little|slightly|just|well) (?:over|under|more than|less than|above|below|shy of)|"
    r"under|over|some|circa|more than|less than|above|below|north of|upwards of|shy of|"
    r"something like|in the region of|on the order of|an estimated|estimated at|at least|at most)|~)\s*$"
)  # matched against lower-cased text
_UNDER = re.compile(r"\b(?:nearly|almost|under|less than|below|shy of|at most)\s*$")
_OVER = re.compile(r"\b(?:over|more than|above|north of|upwards of|at least)\s*$")
_TIGHT = re.compile(
    r"\b(?:nearly|almost|just|a bit|a little|slightly)\s+\S*\s*\S*\s*$|\b(?:nearly|almost)\s*$"
)
_CUES_AFTER = re.compile(r"\s?(?:-?ish\b|or so\b|or thereabouts\b|give or take\b)")
_DAYS = {
    "day": 1.0, "days": 1.0, "week": 7.0, "weeks": 7.0, "fortnight": 14.0, "month": 30.44,
    "months": 30.44, "quarter": 91.31, "quarters": 91.31, "year": 365.25, "years": 365.25,
    "yr": 365.25, "yrs": 365.25, "decade": 3652.5, "decades": 3652.5, "hour": 1 / 24,
    "hours": 1 / 24, "hrs": 1 / 24, "minute": 1 / 1440, "minutes": 1 / 1440,
}  # fmt: skip
_SENTENCE_END = re.compile(r"[?!;|\n]|\.(?!\d)")
_SCALE = re.compile(r"(?:\bof|/)\s*$", re.I)
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")
# A leading lookahead (?=\d) or (?=[A-Z]) lets Python's re skip to candidate positions fast.
_YEAR = r"(?:,?\s+(\d{4}|'\d{2})(?![\d.,]*\s*(?:%|percent|[kmb]\b)))?"
_DATE_PATTERNS = (
    # 2026-02-14, 2026/02/14
    re.compile(r"(?=\d)\b(\d{4})([-/.])(\d{1,2})\2(\d{1,2})\b(?![-/.]\d)"),
    # 02/14/2026, 2/14/26, 14.02.2026, 14-02-26: the order is decided in _numeric_date
    re.compile(
        r"(?=\d)(?<![\d/.,-])(\d{1,2})([-/.])(\d{1,2})\2((?:19|20)\d\d|\d\d)(?![\d/]|[-.]\d)"
    ),
    # "May 8", "May8", "May 8th, '26"
    re.compile(rf"\b({_MONTH_RE})\s*(\d{{1,2}})(?:st|nd|rd|th)?{_YEAR}(?!\d)\b"),
    # "8 May", "8May", "the 8th of May", "the 8th day of May"
    re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s*(?:day\s+)?(?:of\s+)?({_MONTH_RE}){_YEAR}\b"),
    # 20260508
    re.compile(r"(?=[12])\b((?:19|20)\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\b"),
)


def _glued_forms() -> frozenset[str]:
    """Every word that glues a month name to a day: "may8", "8may", "22jan", "oct15th"."""
    out = set()
    for month in _MONTHS:
        for day in range(1, 32):
            for d in {str(day), f"{day:02d}"}:
                for suffix in ("", "st", "nd", "rd", "th"):
                    out |= {f"{month}{d}{suffix}", f"{d}{suffix}{month}"}
    return frozenset(out)


_GLUED = _glued_forms()  # a set lookup per word, much faster than a pattern or a loop


_EIGHT_DIGITS = re.compile(r"\d{8}")
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\s+(\d{{4}}|'\d{{2}})\b")  # "March 2027", "Mar '27"
_TIME = re.compile(
    r"(?=\d)(?:\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])\.?m\.?(?!\w)|\b([01]?\d|2[0-3]):([0-5]\d)\b)"
)
_CODE = re.compile(
    r"\b(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]+(?:[-./][A-Za-z0-9]+)*\b"
)
_CODE_UPPER = re.compile(r"(?=[A-Z])\b[A-Z]{2,}(?:[-/][A-Z0-9]+)+\b")
# The pattern starts at the digits, so the scan jumps between them; a currency sign or code before
# the number is looked up separately (an optional prefix group made every position a start).
_CURRENCY_PLACES = {
    "us",
    "canadian",
    "australian",
    "swiss",
    "japanese",
    "chinese",
    "indian",
    "mexican",
}
_CURRENCY_BEFORE = re.compile(r"(?:[$€£¥₹]|\b(?:usd|eur|gbp|chf|jpy|cny|inr|btc))\s?\s?$")
_NUMBER = re.compile(
    r"(?=[\d.])(?:(?<![\w.])|(?<=usd)|(?<=eur)|(?<=gbp))(?P<num>"
    r"\d{1,3}(?:[ ']\d{3})+(?!\d)(?:\.\d+)?"  # 4 100 000, 4'100'000 (thin spaces read as spaces)
    r"|\d{1,3}(?:\.\d{3}){2,}(?![\d.])"  # 4.100.000
    r"|\d+,\d{1,2}(?![\d,])"  # 4,1 (a decimal comma: three digits after a comma are thousands)
    r"|\d[\d,]*(?:\.\d+)?|\.\d+)"
    r"(?:(?P<mult>k|m|b)\b|[\s-]?(?P<multw>mm|mn|mln|mil|mill|mio|bn|bln|mrd"
    r"|hundred(?:[\s-](?:thousand|million))?|thousands?|millions?|billions?|trillions?|grand)\b"
    r"|\s(?P<smult>k|m|b)\b)?"  # "$4.1 M": a letter scale apart, only for money
    r"\s?(?:(?P<pct>%|percent\b|per cent\b|pct\b|pc\b|prozent\b)|(?P<bps>bps?\b|basis points?\b))?",
)
# A currency sign after the amount ("4,1 Mio. $"), not the sign of another amount ("5. $20").
_CURRENCY_AFTER = re.compile(r"(?:\.?\s)?[$€£](?![\d.])")
_MONEY_CODE = re.compile(r"(?:USD|EUR|GBP)\d")  # "USD4.1mn" is an amount, not a code
_SCALED = re.compile(r"\d[\d.,]*(?:[KMBT]|MM|MN|BN|MLN|BLN|MIO|MRD)(?:/[A-Za-z]+)?", re.I)
# The word right after a number, for its unit: "18 months", "3 to 5 years" (not "12 a year").
_NEXT_WORD = re.compile(r"[\s-]*(?:(?:to|or|-)\s*\d[\d.,]*[\s-]*)?([a-z]+)")
# A name never runs across a line break (a new line starts a new clause).
_NAME = re.compile(
    r"(?=[A-Z])\b(?:[A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z][a-z'’]+(?:[^\S\n]+[A-Z][a-z'’]+)*)\b"
)
_CAMEL = re.compile(r"[a-z][A-Z]")
_POSSESSIVE = re.compile(r"['’]s$")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    """a an the and or of for to in on at by with from per vs via as is are was were be been our your
    their its this that these those it we i you they my me us who what which when where how why do does
    did has have had will would could can may might shall should about into over under than then there
    here all any each every some no not only also just more most less least new current total last next
    s""".split()
)
STOP_WORDS = _STOP
"""Function words that say nothing about a value's subject (never a stem of :func:`stems`)."""
_STOP_NAMES = {
    "the", "a", "an", "for", "and", "or", "of", "in", "on", "at", "to", "per", "by", "with",
    "dr", "mr", "mrs", "ms", "prof", "no", "not", "all", "only", "each", "every", "total", "current",
    "last", "next", "new", "q1", "q2", "q3", "q4", "fy", "i", "we", "our", "my", "this", "that", "is",
    "are", "was", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays", *_MONTHS,
}  # fmt: skip
_GENERIC_NAME_WORDS = {
    "middle", "high", "school", "schools", "elementary", "university", "college", "hospital", "clinic",
    "center", "centre", "group", "inc", "llc", "ltd", "corp", "corporation", "company", "co", "partners",
    "capital", "bank", "health", "systems", "services", "solutions", "technologies", "labs", "global",
    "international", "state", "county", "city", "district", "department", "regional", "national",
    "north", "south", "east", "west", "street", "road", "avenue", "plant", "site", "line", "fort", "mount",
    "lake", "saint", "st", "port", "foundation", "trust", "fund", "institute", "association", "council",
    "board", "office", "agency", "authority", "lab", "studio", "studios", "media", "pictures", "records",
    "logistics", "holdings", "industries", "motors", "energy", "medical", "care", "academy", "project",
    "program", "team", "unit", "range", "area", "zone", "building", "hall", "campus", "tower", "house",
    "park", "field", "river", "valley", "bay", "family", "american", "united", "general", "first",
}  # fmt: skip


@lru_cache(maxsize=65536)
def stem(word: str, size: int = 5) -> str:
    """A light stem: lower case, common suffixes off, at most ``size`` letters."""
    w = word.lower()
    for suffix in ("ings", "ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]  # "hire", "hired", "hiring" -> "hir"
    return w[:size]


def stems(text: str) -> set[str]:
    """Stems of the content words of ``text``."""
    found = set(map(_content_stem, words_of(text)))
    found.discard("")
    return found


@lru_cache(maxsize=65536)
def _content_stem(word: str) -> str:
    return "" if word in _STOP or len(word) < 2 else stem(word)


class Atom(NamedTuple):
    """One checkable detail of a text, in canonical form (a tuple: made and hashed fast)."""

    key: str
    kind: str
    text: str
    strong: bool
    value: float | None = None
    money: bool = False
    percent: bool = False
    cue: bool = False
    context: frozenset[str] = frozenset()
    alts: tuple[str, ...] = ()
    days: float | None = None  # a duration's length in days ("14 weeks" -> 98.0)
    direction: int = 0  # the cue's side: -1 "under", -2 "just under", +2 "a little over" (hedge)
    sentence: str = ""  # the (lower-cased) sentence the number stands in; see near_words
    derived: bool = False  # an approximate reading ("nearly half", "31 of 212" as 14.6%)
    spread: float = 0.0  # a range read as its middle: half its width, relative to the middle


@lru_cache(maxsize=65536)
def atoms(text: str, loose: bool = False) -> tuple[Atom, ...]:
    """Extract the canonical atoms of ``text`` (cached: values are extracted many times).

    Args:
        text: a knowledge value or a message.
        loose: also treat a capitalised clause opener as a possible name (for messages).

    Example:
        >>> sorted(a.key for a in atoms("$2.4M by March 3, 2027 (seven point six percent)"))
        ['d:2027-03-03', 'n:2400000', 'n:7.6']
    """
    numbers = number_spans(text)  # shared with the judge's readings, computed once
    text = spell_out(text)
    taken: list[tuple[int, int]] = []
    found: list[Atom] = []
    low = text.translate(_ASCII_LOWER)
    # Codes and names start with an ASCII capital; dates, times, numbers and mixed codes all
    # contain a digit. Most messages skip some extractors, and each costs a scan of the text.
    capitals = low != text
    if _DIGIT.search(text):
        extractors = (_dates, _times, _codes) if capitals else (_dates, _times)
    else:
        extractors = (_letter_codes,) if capitals else ()
    for spans in [*(extract(text, low) for extract in extractors), numbers]:
        for start, end, atom in spans:
            if any(s < end and start < e for s, e in taken):
                continue
            taken.append((start, end))
            found.append(atom)
    found += [
        a
        for s, e, a in (_names(text, loose) if capitals else ())
        if not any(s0 < e and s < e0 for s0, e0 in taken)
    ]
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=65536)
def number_spans(text: str) -> tuple[tuple[int, int, Atom], ...]:
    """The numbers of ``spell_out(text)`` with their spans there, in order (for readings)."""
    text = spell_out(text)
    if not _DIGIT.search(text):
        return ()
    return tuple(_number_spans(text, text.translate(_ASCII_LOWER)))


def atom_keys(text: str) -> frozenset[str]:
    """The set of atom keys in ``text``, with date keys also under their year-less form."""
    keys = set()
    for a in atoms(text):
        keys.add(a.key)
        if a.kind == "date":
            keys.add("d:????" + a.key[6:])
    return frozenset(keys)


@dataclass(frozen=True)
class Said:
    """What a message states: exact keys, numbers with their context, and word stems.

    ``soft`` keys identify a detail only while the message talks about its item: a date written
    "5/8" (which may be a fraction) or a single name word in lower case ("keystone").
    """

    keys: frozenset[str]
    numbers: tuple[Atom, ...]
    words: frozenset[str]
    soft: frozenset[str] = frozenset()


@lru_cache(maxsize=65536)
def said(text: str) -> Said:
    """Atoms of a message, read loosely (names at sentence starts, name parts, year-less dates)."""
    found = atoms(text, loose=True)
    keys, soft = set(), set()
    for a in found:
        keys.add(a.key)
        if a.kind == "date":  # a numeric date's other order ("08/05/2026") needs the topic
            keys.add("d:????" + a.key[6:])
            soft.update(a.alts)
        else:
            keys.update(a.alts)
    numbers = tuple(a for a in found if a.kind == "number")
    return Said(frozenset(keys), numbers, frozenset(stems(text)), frozenset(soft))


def trigger_words(text: str) -> frozenset[str]:
    """Words of which a message needs one (or a digit) to state any atom of ``text``.

    Every atom but a name or a letter code holds a digit or a number word, and a message states
    a name only with one of its words (each may be said alone) and a code only whole (its
    longest word). See :func:`may_state`.
    """
    words = set(_NUMBER_WORDS)
    for a in atoms(text):
        if a.kind in ("name", "code") and not _DIGIT.search(a.text):
            parts = _WORD.findall(a.text.lower())
            words.update(parts if a.kind == "name" else [max(parts, key=len)])
    return frozenset(words)


def may_state(message: str, triggers: frozenset[str]) -> bool:
    """Whether ``message`` can state an atom of a text whose :func:`trigger_words` are given.

    Much cheaper than :func:`said`, so a message that cannot skips atom extraction.
    """
    return bool(_DIGIT.search(message)) or not triggers.isdisjoint(words_of(message))


def approx_equal(item: Atom, spoken: Atom) -> bool:
    """Whether a spoken number states an item's number, exactly or as a rounded approximation.

    Equal values always match. Within 5%, a spoken value of 10 or more with fewer significant
    digits (182 -> "180", 11.9% -> "12%") or any value after an approximation cue ("about 60%")
    matches too, when both are money, both percentages, or both plain numbers with a common
    unit word.
    """
    assert item.value is not None and spoken.value is not None
    if item.value == spoken.value:
        return True
    same_kind = (item.money, item.percent) == (spoken.money, spoken.percent)
    if (
        not item.value
        or not same_kind
        or not (item.money or item.percent or item.context & spoken.context)
    ):
        return False
    close = abs(spoken.value - item.value) / abs(item.value) <= 0.05
    rounded = (
        significant_digits(spoken.value) < significant_digits(item.value)
        and abs(spoken.value) >= 10
    )
    return close and (spoken.cue or rounded)


def public_context_keys(scenario: Scenario) -> frozenset[str]:
    """Atom keys every participant sees anyway: the goal, roles, domains and item names.

    A detail that appears there (a site name, a product code) says nothing about a value.
    """
    texts = [scenario.scenario_goal, *scenario.roles, *scenario.knowledge_domain_map]
    texts += [k for a in scenario.agents for k in a.pre_interaction_knowledge]
    joined = "\n".join(texts)
    # Capitalised words anywhere in these texts (also clause openers, which atoms() skips).
    words = {"w:" + w.lower() for w in re.findall(r"\b[A-Z][\w'’-]*", joined)}
    words |= {_POSSESSIVE.sub("", w) for w in words}  # "Ambassador's" names "Ambassador"
    return atom_keys(joined) | words


# -- extractors -------------------------------------------------------------------------------


# Extractors take the text and its ASCII lower-casing (same positions) and yield (start, end, atom).


def _dates(text: str, low: str):
    # The written forms need a month name; checking the words first skips their patterns.
    tokens = _WORD.findall(low)
    months = not (_MONTHS.keys().isdisjoint(tokens) and _GLUED.isdisjoint(tokens))
    for i, pat in enumerate(_DATE_PATTERNS if months else _DATE_PATTERNS[:2] + _DATE_PATTERNS[4:]):
        if i == 4 and not _EIGHT_DIGITS.search(low):
            continue
        for m in pat.finditer(low):
            g = m.groups()
            other = None  # the other order of a numeric date, if it may be one
            if pat is _DATE_PATTERNS[0]:
                y, mo, d = g[0], int(g[2]), int(g[3])
            elif pat is _DATE_PATTERNS[1]:
                (mo, d), other, y = _numeric_date(int(g[0]), int(g[2]), g[1]), None, g[3]
                if mo != d and mo <= 12 and d <= 12:
                    other = (d, mo)
            elif pat is _DATE_PATTERNS[2]:
                mo, d, y = _MONTHS[g[0].lower().rstrip(".")], int(g[1]), g[2]
            elif pat is _DATE_PATTERNS[3]:
                d, mo, y = int(g[0]), _MONTHS[g[1].lower().rstrip(".")], g[2]
            else:
                y, mo, d = g[0], int(g[1]), int(g[2])
            if y and len(y) < 4:  # "'26", "2/14/26"
                y = "20" + y.lstrip("'")
            if 1 <= mo <= 12 and 1 <= d <= 31:
                key = f"d:{y or '????'}-{mo:02d}-{d:02d}"
                alts = (f"y:{other[0]:02d}-{other[1]:02d}",) if other else ()
                yield (
                    m.start(),
                    m.end(),
                    Atom(key, "date", text[m.start() : m.end()], True, alts=alts),
                )
    for m in _MONTH_YEAR.finditer(low) if months else ():
        mo = _MONTHS[m.group(1).lower().rstrip(".")]
        year = m.group(2) if m.group(2)[0] != "'" else "20" + m.group(2)[1:]
        month = Atom(f"m:{year}-{mo:02d}", "month", text[m.start() : m.end()], True)
        yield m.start(), m.end(), month


def _numeric_date(a: int, b: int, sep: str) -> tuple[int, int]:
    """(month, day) of a numeric date's two numbers.

    Month first ("2/14/26") unless written with dots ("14.02.2026"), or unless only the other
    order is a date ("31/01/2027").
    """
    first = (b, a) if sep == "." else (a, b)
    if first[0] > 12 and first[1] <= 12:
        return first[1], first[0]
    return first


def _times(text: str, low: str):
    for m in _TIME.finditer(low):
        if m.group(4) is not None:
            h, mi = int(m.group(4)), int(m.group(5))
        else:
            h, mi = int(m.group(1)) % 12, int(m.group(2) or 0)
            if m.group(3) == "p":
                h += 12
        time = Atom(f"t:{h:02d}:{mi:02d}", "time", text[m.start() : m.end()], True)
        yield m.start(), m.end(), time


def _letter_codes(text: str, low: str):
    """Codes without a digit (``_CODE`` needs one): only all-capital ones like "SOC-TWO"."""
    return _codes(text, low, (_CODE_UPPER,))


def _codes(text: str, low: str, patterns: tuple[re.Pattern[str], ...] = (_CODE_UPPER, _CODE)):
    for pat in patterns:
        for m in pat.finditer(text):
            tok = m.group(0)
            if pat is _CODE and (tok[0].isdigit() and not re.search(r"[A-Z]{2}|[A-Z]\d", tok)):
                continue  # "12M", "4th", "2x" are numbers with suffixes, not codes
            if _MONEY_CODE.match(tok) or _SCALED.fullmatch(tok):
                continue  # "USD4.1mn", "4.1MM" are amounts
            key = "c:" + re.sub(r"[^A-Za-z0-9]", "", tok).upper()
            yield m.start(), m.end(), Atom(key, "code", tok, True)


def _digits(num: str) -> str:
    """A matched number in Python's notation: "4 100 000", "4.100.000", "4,1", "4,100"."""
    if num.isdigit():
        return num
    if " " in num or "'" in num:
        return num.replace(" ", "").replace("'", "")
    if num.count(".") > 1:
        return num.replace(".", "")
    if "," in num and _DECIMAL_COMMA.fullmatch(num):
        return num.replace(",", ".")
    return num.replace(",", "")


def _number_spans(text: str, low: str):
    for m in _NUMBER.finditer(low):
        num = _digits(m.group("num"))
        try:
            value = float(num)
        except ValueError:
            continue
        mult = m.group("mult") or m.group("multw") or ""  # "340 m" is metres, "340m" millions
        mult = mult.replace("-", " ").rstrip("s") if len(mult) > 3 else mult  # "millions"
        currency = _CURRENCY_BEFORE.search(low, max(0, m.start() - 6), m.start())
        smult = m.group("smult")
        if smult and (currency or (smult == "k" and "," in m.group("num"))):
            mult = smult  # "$4.1 M", "$250 K", "1,300 K"; "4.1 m" may be metres
        end = m.end() if mult or not m.group("smult") else m.start("smult")
        bps = bool(m.group("bps"))
        if mult or bps:  # 4.1 * 1e6 is 4100000, not 4099999.99…; 185 basis points are 1.85%
            value = float(f"{value * _MULT.get(mult, 1) / (100 if bps else 1):.12g}")
        start = currency.start() if currency else m.start()
        if value in (10, 100, 1000) and _SCALE.search(text[max(0, start - 8) : start]):
            continue  # "84 of 100": the scale says nothing about the value
        after = [
            w for w in _WORD.findall(low[end : end + 60]) if w not in _STOP and not w.isdigit()
        ][:3]
        percent = bool(m.group("pct")) or bps
        named = (
            after[1:2] if after[:1] and after[0] in _CURRENCY_PLACES else after[:1]
        )  # "Swiss francs"
        money = bool(currency) or mult == "grand" or bool(named and named[0] in _CURRENCY_WORDS)
        money = money or (not percent and bool(_CURRENCY_AFTER.match(low, end)))
        strong = money or percent or bool(mult) or "." in num or _strong_int(value)
        cue, direction = hedge(low[max(0, start - 24) : start])
        cue = cue or bool(_CUES_AFTER.match(low, end))
        # A duration's unit follows its number ("18 months"); "12 a year" is a rate, not 12 years.
        nxt = _NEXT_WORD.match(low, end)
        unit = _DAYS.get(nxt.group(1)) if nxt and not money and not percent else None
        atom = Atom(f"n:{_fmt(value)}", "number", text[start : end].strip(), strong, value, money, percent, cue,
                    frozenset(stem(w) for w in after), (), None if unit is None else value * unit, direction,
                    sentence_of(low, start, end))  # fmt: skip
        yield m.start("num"), end, atom


def hedge(before: str) -> tuple[bool, int]:
    """Whether lower-cased text ending right before a number hedges it, and to which side.

    The side is -1 for a bound from above ("under", "less than"), +1 from below ("over", "more
    than"), doubled for a tight one ("just under", "nearly", "a little over"), 0 for "about".
    """
    if not _CUES.search(before):
        return False, 0
    side = -1 if _UNDER.search(before) else 1 if _OVER.search(before) else 0
    return True, side * (2 if side and _TIGHT.search(before) else 1)


def sentence_of(low: str, start: int, end: int) -> str:
    """The sentence around ``low[start:end]`` (the words that say what a number is)."""
    left = 0
    for m in _SENTENCE_END.finditer(low, max(0, start - 200), start):
        left = m.end()
    right = _SENTENCE_END.search(low, end)
    return low[left : right.start() if right else len(low)]


@lru_cache(maxsize=65536)
def sentence_words(sentence: str) -> frozenset[str]:
    """Stems of a number's :attr:`Atom.sentence` (computed only when a rule needs them)."""
    return frozenset(stems(sentence))


def _names(text: str, loose: bool):
    for m in _NAME.finditer(text):
        name = m.group(0)
        words = [_POSSESSIVE.sub("", w.lower()) for w in name.split()]  # "Tracton Agri's"
        words = [w for w in words if w not in _STOP_NAMES]
        if not words:
            continue
        if not loose and len(words) < 2 and not _CAMEL.search(name) and _opens_clause(text, m):
            continue  # a capitalised clause opener is usually an ordinary word
        alts = (  # a function word ("Under" of "Under Secretary") identifies nothing alone
            tuple(f"w:{w}" for w in words if w not in _GENERIC_NAME_WORDS and w not in _STOP)
            if len(words) > 1
            else ()
        )
        yield m.start(), m.end(), Atom("w:" + " ".join(words), "name", name, True, alts=alts)


def _opens_clause(text: str, m: re.Match[str]) -> bool:
    before = text[: m.start()].rstrip(" \t\r\f\v")
    return not before or before[-1] in ";:.!?\n("


def _strong_int(value: float) -> bool:
    if not value.is_integer() or value < 100 or 1900 <= value <= 2100:
        return False
    return significant_digits(value) >= 2


def significant_digits(value: float) -> int:
    """Significant digits: 182 -> 3, 180 -> 2, 11.9 -> 3, 1.35e6 -> 3."""
    text = f"{abs(value):.10g}"
    digits = text.replace(".", "").lstrip("0")
    if "." not in text:
        digits = digits.rstrip("0")
    return max(len(digits), 1)


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"
