"""How a reader sees a piece of text: the one definition the env and the judge share.

Agents never see invisible characters: the env drops them before delivery
(:func:`sotopia_tom_env.render.one_line` uses :data:`FORMAT_CHARS`). A reader also takes a
fullwidth ``４``, a mathematical ``𝟒`` or a Cyrillic ``А`` for the character it looks like, and
an en dash, a non-breaking hyphen or a thin space for a dash or a space. :func:`reading` folds a
text into that reading, so a judge that looks for ``$4.1M`` finds it in ``$４\u200b.1Ｍ`` exactly
as the recipient does; what a message costs never depends on how its characters are encoded.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from scenarios import markdown

# Unicode category Cf (format characters), as of Unicode 14; tests/test_forgery.py checks the
# list against the running Python's unicodedata.
_FORMAT_RANGES = [
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F),
]  # fmt: skip
FORMAT_RANGES: tuple[tuple[int, int], ...] = tuple(_FORMAT_RANGES)
"""Inclusive code point ranges of :data:`FORMAT_CHARS`."""
FORMAT_CHARS = frozenset(c for lo, hi in _FORMAT_RANGES for c in range(lo, hi + 1))
"""Invisible format characters: dropped before any agent, or the judge, reads a message."""

# Letters of other scripts that look like Latin ones (the common cases of Unicode's
# confusables list: Cyrillic and Greek capitals and lower case letters used in disguise).
_LOOKALIKES = {
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W", "а": "a",
    "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z",
    "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y",
    "Χ": "X", "ο": "o", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
}  # fmt: skip
# Dashes, minus signs and hyphens read as "-"; quotes as ASCII quotes; the fraction slash as "/".
_PUNCTUATION = {c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63"}
_PUNCTUATION |= {c: "'" for c in "\u2018\u2019\u201a\u201b\u2032"}
_PUNCTUATION |= {c: '"' for c in "\u201c\u201d\u201e\u201f\u2033"}
_PUNCTUATION |= {"\u2044": "/", "\u2215": "/"}
# The env shows a line break inside a message as " \u23ce " (render.LINE_BREAK); a model that
# writes the marker means a line break.
_PUNCTUATION |= {"\u23ce": "\n"}
_FOLD = str.maketrans({**_LOOKALIKES, **_PUNCTUATION})
# Control characters other than tab and line breaks show as nothing a reader can use.
_CONTROLS = "".join(chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_DROP = str.maketrans(dict.fromkeys([*map(chr, FORMAT_CHARS), *_CONTROLS], None))
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def words_of(text: str) -> frozenset[str]:
    """The distinct words of ``text.lower()`` (cached: a message's scans share one split)."""
    return frozenset(_WORD.findall(text.lower()))


def visible(text: str) -> str:
    r"""``text`` without invisible format characters (what the env delivers of them).

    >>> visible("4\u200b.\u00ad1M")
    '4.1M'
    """
    return text.translate(_DROP)


@lru_cache(maxsize=65536)
def reading(text: str) -> str:
    r"""``text`` as a reader takes it: invisible characters gone, look-alikes folded, markdown read.

    Unicode compatibility forms (fullwidth and mathematical digits and letters, ligatures,
    superscripts) become their plain characters (NFKC); Cyrillic and Greek look-alikes become
    Latin letters; dashes, minus signs and non-breaking hyphens become ``-``; every kind of space
    becomes a space; curly quotes become straight ones; accents and other combining marks (decoration on
    plain letters) are dropped. Markdown is rendered to the text a reader takes from it
    (:func:`scenarios.markdown.render`: emphasis dropped, tables as "header: cell" pairs).

    >>> reading("ＩＧＣＥ of $４\u200b.1\u2011million, CI\u20130457, Кeystone")
    'IGCE of $4.1-million, CI-0457, Keystone'
    >>> reading("The IGCE is **$4.1** million")
    'The IGCE is $4.1 million'
    """
    text = _folded(text)
    if markdown.may_hold(text):
        text = markdown.render(text)
        if not text.isascii():  # an entity may stand for any character
            text = _folded(text)
    return text


def _folded(text: str) -> str:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text.translate(_DROP)).translate(_FOLD)
        if not text.isascii():
            # Accents come off Latin letters ("Querétaro" is read as "Queretaro"), as many
            # writers leave them out.
            text = "".join(_plain(c) for c in unicodedata.normalize("NFD", text))
            text = unicodedata.normalize("NFC", text)
    elif _ASCII_CONTROL.search(text):
        text = _ASCII_CONTROL.sub("", text)
    return text


def _plain(c: str) -> str:
    """A non-ASCII character as read: a space for any space, nothing for a stray mark."""
    if c.isascii():
        return c
    kind = unicodedata.category(c)
    if kind == "Zs":
        return " "
    return "" if kind in ("Mn", "Me") else c
