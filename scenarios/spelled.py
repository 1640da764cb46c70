"""Numbers written in words, read as digits: "two thousand four hundred" -> "2400".

:func:`spell_out` rewrites every spelled number of a text in place, so the digit patterns of
:mod:`scenarios.values` see it: units, tens and hundreds ("two hundred and twelve"), scale words
("four point one million", "a million and a half", "half a million", "a quarter million"),
decimals ("twenty-one point four"), halves and quarters ("fourteen and a half", "three and three
quarters"), dozens ("half a dozen", "two dozen"). An article counts as one only before a scale
("a hundred", "a million"); elsewhere it stays a word ("a three point six million dollar gap" ->
"a 3600000 dollar gap"). Words that are not a well-formed number stay as they are ("five six",
"one-time", "and").
"""

from __future__ import annotations

import re
import string
from functools import lru_cache

from scenarios.text import words_of

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_SMALL = {w: i for i, w in enumerate(_UNITS)}
_TENS = {
    w: 10 * i
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)
}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_FRACTIONS = {"half": 0.5, "quarter": 0.25, "quarters": 0.75}
NUMBER_WORDS = frozenset([*_UNITS, *_TENS, "hundred", *_SCALES])
"""Words of which a spelled number holds at least one."""

_VOCAB = "|".join(sorted([*NUMBER_WORDS, "a", "and", "point", *_FRACTIONS], key=len, reverse=True))
# A run of number vocabulary; "one-time", "two-step", "three-year" are words, not numbers, but
# "four-point-one-million-dollar" is one.
_RUN = re.compile(
    rf"\b(?:{_VOCAB})(?:[\s-]+(?:{_VOCAB}))*\b(?!-(?!(?:dollars?|euros?|pounds?|percent)\b)[a-z])"
)
_TOKEN = re.compile(r"[a-z]+")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def spell_out(text: str) -> str:
    """Replace numbers written in words by digits ("twenty-one point four" -> "21.4").

    Example:
        >>> spell_out("a three point six million dollar gap, two thousand four hundred units")
        'a 3600000 dollar gap, 2400 units'
    """
    low = text.translate(_ASCII_LOWER)  # same positions as text
    # ASCII text lower-cases the same either way, so its words are the ones other scans use.
    words = words_of(text) if text.isascii() else frozenset(_WORD.findall(low))
    if NUMBER_WORDS.isdisjoint(words) and "half" not in words and "dozen" not in words:
        return text  # the common case, found much faster than by the full pattern
    parts, last = [], 0
    for run in _RUN.finditer(low):
        tokens = list(_TOKEN.finditer(low, run.start(), run.end()))
        for start, end, value in _numbers_in([t.group() for t in tokens]):
            parts += [text[last : tokens[start].start()], _fmt(value)]
            last = tokens[end - 1].end()
    out = "".join(parts) + text[last:]
    return _DOZEN.sub(_dozens, out) if "dozen" in words else out


# "a dozen", "half a dozen", "a half-dozen", "2 dozen" (after the words above became digits).
_DOZEN = re.compile(r"\b(?:(half an?|an? half)[\s-]|(an?)\s|(\d+(?:\.\d+)?)\s)dozen\b", re.I)


def _dozens(m: re.Match[str]) -> str:
    return _fmt(6 if m.group(1) else 12 if m.group(2) else 12 * float(m.group(3)))


def _numbers_in(tokens: list[str]):
    """(first token, token after the last, value) of each number in a run of number words."""
    i = 0
    while i < len(tokens):
        found = _parse(tokens, i)
        if found is None:
            i += 1
            continue
        value, end = found
        yield i, end, value
        i = end


def _parse(t: list[str], i: int) -> tuple[float, int] | None:
    """The number the words ``t[i:]`` start with and the index after it, or None."""
    nxt = t[i + 1] if i + 1 < len(t) else ""
    if t[i] == "half" and nxt == "a" and t[i + 2 : i + 3] and t[i + 2] in _SCALES:
        return 0.5 * _SCALES[t[i + 2]], i + 3  # "half a million"
    if t[i] == "a" and nxt == "quarter" and t[i + 2 : i + 3] and t[i + 2] in _SCALES:
        return 0.25 * _SCALES[t[i + 2]], i + 3  # "a quarter million"
    if t[i] == "a" and (nxt == "hundred" or nxt in _SCALES):
        return _count(t, i + 1, 1.0)  # "a hundred", "a million": the article is one
    if t[i] in _SMALL or t[i] in _TENS or (t[i] == "hundred" and nxt == "and"):
        return _count(t, i, None)  # "an extra hundred and fifty"; "8.4 million" stays a word
    return None


def _count(t: list[str], j: int, group: float | None) -> tuple[float, int] | None:
    """Read units, tens, hundreds, scales, decimals and fractions from ``t[j]`` on."""
    total, last, scale, start = 0.0, "article" if group else "", 0.0, j
    end = j
    while j < len(t):
        w = t[j]
        n = _SMALL.get(w, _TENS.get(w))
        if n is not None:
            if group is None:
                group = float(n)
            elif (last == "ten" and w in _SMALL and n < 10) or (last == "hundred" and n < 100):
                group += n
            else:
                break
            last = "ten" if w in _TENS else "unit"
        elif w == "hundred" and (group is None or group < 100) and last != "point":
            group, last = (group or 1.0) * 100, "hundred"
        elif w in _SCALES and (not scale or _SCALES[w] < scale):
            scale = _SCALES[w]
            total, group, last = total + (group or 1.0) * scale, None, "scale"
        elif w == "point" and group is not None and j + 1 < len(t) and t[j + 1] in _SMALL:
            digits = ""
            while j + 1 < len(t) and _SMALL.get(t[j + 1], 10) < 10:
                j += 1
                digits += str(_SMALL[t[j]])
            group, last = float(f"{int(group)}.{digits}"), "point"
        elif w == "and":
            fraction = _and_fraction(t, j)
            if fraction is not None:
                part, j = fraction
                if last == "scale":
                    total += part * scale
                elif group is not None:
                    group += part
                    if j + 1 < len(t) and t[j + 1] in _SCALES:  # "fourteen and a half thousand"
                        j += 1
                        total, group = total + group * _SCALES[t[j]], None
                end = j + 1
                break
            if last not in ("hundred", "scale") or j + 1 >= len(t) or t[j + 1] not in NUMBER_WORDS:
                break
        else:
            break
        j += 1
        end = j if w != "and" else end
    value = total + (group or 0.0)
    return (value, end) if end > start and (value or "zero" in t[start:end]) else None


def _and_fraction(t: list[str], j: int) -> tuple[float, int] | None:
    """A fraction after "and" ("and a half", "and three quarters"): (part, its last index)."""
    rest = t[j + 1 : j + 3]
    if rest in (["a", "half"], ["a", "quarter"]):
        return _FRACTIONS[rest[1]], j + 2
    if rest == ["three", "quarters"]:
        return 0.75, j + 2
    return None


def _fmt(value: float) -> str:
    value = float(f"{value:.12g}")
    return str(int(value)) if value.is_integer() else f"{value:.6g}"
