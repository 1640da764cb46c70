"""Reading untrusted replies: the action JSON found in bounded, linear time; safe descriptions.

A reply may wrap its JSON object in prose or in code fences. The search returns the first
non-empty JSON object it can decode; :func:`search_json_object` with ``fences_first`` (what
action parsing uses) looks inside closed code fences before the whole reply.

The cost is linear in the reply's length, whatever the reply holds:

* fences are paired with ``str.find``, not with a backtracking regex;
* decoding is tried only where an object can start (``{``, optional JSON whitespace, ``"``),
  at most :data:`MAX_ATTEMPTS` times, and the failed attempts together may scan at most
  :data:`SCAN_BUDGET_FACTOR` times the text, so ``{"`` repeated or nested fragments cannot
  make the search quadratic;
* an object nested deeper than :data:`MAX_NESTING` is not decoded, and decoder failures of
  every kind (syntax, recursion, integers over Python's digit limit) count as "no object
  here".

Callers cap the reply's length first (:func:`reply_char_limit`); :func:`first_json_object`
also refuses text longer than its ``max_chars``.
"""

from __future__ import annotations

import json
import re
import reprlib
import sys
from typing import Any

import numpy as np

MIN_REPLY_CHARS = 32_000
"""The shortest reply cap, whatever the message limit."""

REPLY_CHARS_PER_MESSAGE_CHAR = 16
"""Reply cap per character of the message limit: room for JSON escapes (up to 12 characters
per emoji), the fields around the message and prose before or after it."""

SCAN_BUDGET_FACTOR = 4
"""Failed decode attempts may scan at most this many times the text's length (at least
:data:`MIN_REPLY_CHARS`), all together."""

MAX_ATTEMPTS = 256
"""Most places a decode is tried at. A real reply has a handful of ``{"`` before its object;
the cap also bounds the cost of the decoder's error messages, which count lines up to the
failure."""

ATTEMPT_COST = 64
"""Characters charged for an attempt refused before decoding."""

MAX_NESTING = 100
"""Deepest bracket nesting decoded (an action is flat). Objects nested deeper are skipped before
decoding, which keeps the decoder far from the recursion limit: a reply parses the same however
deep the caller's stack is."""

_FENCE = "```"
_OPENERS = np.array([ord("["), ord("{")], dtype="<u4")
_CLOSERS = np.array([ord("]"), ord("}")], dtype="<u4")
_EVERYTHING = 1 << 62  # an attempt's charge that ends the search
_OBJECT_START = re.compile(r'\{[ \t\n\r]*"')  # no nested quantifier: linear
_DECODER = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings are fine


def reply_char_limit(max_message_chars: int) -> int:
    """The longest raw reply parsed for a message limit of ``max_message_chars``.

    Example:
        >>> reply_char_limit(2000), reply_char_limit(10_000)
        (32000, 160000)
    """
    return max(MIN_REPLY_CHARS, REPLY_CHARS_PER_MESSAGE_CHAR * max_message_chars)


DEFAULT_MAX_CHARS = reply_char_limit(2000)
"""The reply cap at the environment's default message limit."""


class ReplyError(ValueError):
    """A reply that holds no readable action object; the message says why."""


def reply_object(raw: str | bytes | bytearray, max_message_chars: int) -> dict[str, Any]:
    """The action object in a raw reply (text or UTF-8 bytes), read in bounded time.

    Raises:
        ReplyError: the reply is over :func:`reply_char_limit`, empty, or holds no JSON object.

    Example:
        >>> reply_object('Here: ```json {"action_type": "none"} ```', 2000)
        {'action_type': 'none'}
    """
    return _from_text(_reply_text(raw, reply_char_limit(max_message_chars)))


def _reply_text(raw: str | bytes | bytearray, limit: int) -> str:
    """The reply as plain text, refused before it is read when it is over ``limit``."""
    if isinstance(raw, str):
        if len(raw) > limit:
            raise ReplyError(_oversize(len(raw), "characters", limit))
        return str.__str__(raw)  # a plain copy: a str subclass's own methods never run
    if len(raw) > 4 * limit:  # UTF-8 takes at most 4 bytes a character
        raise ReplyError(_oversize(len(raw), "bytes", limit))
    text = bytes(raw).decode("utf-8", "replace")
    if len(text) > limit:
        raise ReplyError(_oversize(len(text), "characters", limit))
    return text


def _oversize(n: int, unit: str, limit: int) -> str:
    return (
        f"reply is {n} {unit}; the limit is {limit} characters "
        f"({REPLY_CHARS_PER_MESSAGE_CHAR} x the message limit, at least {MIN_REPLY_CHARS})"
    )


def _from_text(text: str) -> dict[str, Any]:
    text = text.strip()
    if not text:
        raise ReplyError("empty reply; expected a JSON object with action_type, argument and to")
    obj, reason = search_json_object(text, max_chars=len(text), fences_first=True)
    if obj is None:
        detail = f" ({reason})" if reason else ""
        raise ReplyError(f"no valid JSON object found in reply{detail}: {clip(text)!r}")
    return obj


def fenced_blocks(text: str) -> list[str]:
    """The contents of the closed code fences in ``text``, in order.

    A fence's language tag stays in the content; the object search skips it anyway.

    Example:
        >>> fenced_blocks('say ```json {"a": 1}``` and ```x``` and ```open')
        ['json {"a": 1}', 'x']
    """
    blocks = []
    start = text.find(_FENCE)
    while start != -1:
        end = text.find(_FENCE, start + len(_FENCE))
        if end == -1:
            break
        blocks.append(text[start + len(_FENCE) : end])
        start = text.find(_FENCE, end + len(_FENCE))
    return blocks


def first_json_object(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> dict[str, Any] | None:
    """The first non-empty JSON object in ``text`` (prose or code fences around it allowed).

    Args:
        text: the reply.
        max_chars: longer text is not searched (``None`` is returned).

    Returns:
        The decoded object, or ``None`` when there is none (or the search budget ran out).

    Example:
        >>> first_json_object('Sure: {"action_type": "none"} {"x": 1}')
        {'action_type': 'none'}
    """
    return search_json_object(text, max_chars)[0]


def search_json_object(
    text: str, max_chars: int = DEFAULT_MAX_CHARS, *, fences_first: bool = False
) -> tuple[dict[str, Any] | None, str | None]:
    """Like :func:`first_json_object`, and says why nothing was found.

    Args:
        text: the reply.
        max_chars: longer text is not searched.
        fences_first: search inside closed code fences before the whole text (one budget for
            all of it).

    Returns:
        ``(object, None)``, or ``(None, reason)``: the reason of the attempt that read the
        furthest (``None`` when no object even starts in the text).

    Example:
        >>> search_json_object('{"a": [1, 2}')
        (None, "Expecting ',' delimiter: line 1 column 12 (char 11)")
    """
    if len(text) > max_chars:
        return None, f"text is {len(text)} characters; the search limit is {max_chars}"
    search = _Search(len(text))
    for candidate in (*fenced_blocks(text), text) if fences_first else (text,):
        obj = search.run(candidate)
        if obj is not None:
            return obj, None
        if search.stopped:
            break
    return None, search.reason()


class _Nesting:
    """Bracket levels of a text, to bound how deep a decode starting at a brace would go.

    Brackets inside strings are counted too (one vectorised pass, no string tracking): an
    object's depth is its brackets' peak level before the level falls below its opening brace.
    Closers inside strings can hide real depth; the decoder's recursion limit is the backstop.
    """

    def __init__(self, text: str) -> None:
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        steps = np.isin(codes, _OPENERS).astype(np.int32) - np.isin(codes, _CLOSERS)
        self.level = np.cumsum(steps)

    @staticmethod
    def needed(text: str) -> bool:
        """Whether any object in ``text`` could be nested deeper than :data:`MAX_NESTING`."""
        return text.count("[") + text.count("{") > MAX_NESTING

    def depth_at(self, start: int) -> int:
        """How deep the brackets of the object opening at ``start`` go."""
        levels = self.level[start:]
        closed = levels < levels[0]
        end = int(np.argmax(closed)) if closed.any() else len(levels)
        return int(levels[:end].max() - levels[0]) + 1


class _Search:
    """One bounded search: attempts and scanned characters are shared by every candidate."""

    def __init__(self, n: int) -> None:
        self.budget = SCAN_BUDGET_FACTOR * max(n, MIN_REPLY_CHARS)
        self.attempts = 0
        self.stopped = False
        self.furthest: tuple[int, str | None] = (-1, None)

    def run(self, text: str) -> dict[str, Any] | None:
        nesting = _Nesting(text) if _Nesting.needed(text) else None
        for match in _OBJECT_START.finditer(text):
            if self.attempts >= MAX_ATTEMPTS or self.budget < 0:
                self.stopped = True
                return None
            start = match.start()
            depth = nesting.depth_at(start) if nesting else 0
            if depth > MAX_NESTING:
                obj, scanned = None, ATTEMPT_COST
                why = f"JSON nested too deeply ({depth} levels from char {start}; "
                why += f"at most {MAX_NESTING})"
            else:
                obj, scanned, why = _decode_at(text, start)
            if obj is not None:
                return obj
            self.attempts += 1
            self.budget -= scanned
            if scanned > self.furthest[0]:
                self.furthest = (scanned, why)
        return None

    def reason(self) -> str | None:
        why = self.furthest[1]
        if self.stopped:
            plural = "" if self.attempts == 1 else "s"
            return f"{why}; the search stopped after {self.attempts} attempt{plural}"
        return why


def _decode_at(text: str, start: int) -> tuple[dict[str, Any] | None, int, str | None]:
    """The object decoded at ``start`` (or ``None``), the characters read, and why it failed."""
    try:
        obj, _ = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as e:
        return None, e.pos - start + 1, str(e)
    except RecursionError:
        # Deeper than the caller's stack allows (depth hidden from _Nesting by closers inside
        # strings). Spend the whole budget: what is found next must not depend on the caller's
        # stack depth.
        return None, _EVERYTHING, f"JSON nested too deeply in the object at char {start}"
    except ValueError:
        digits = sys.get_int_max_str_digits()
        why = f"a number over {digits} digits in the object at char {start}"
        return None, len(text) - start, why
    if isinstance(obj, dict) and obj:
        return obj, 0, None
    return None, 1, f"empty object at char {start}"


# -- bounded descriptions of untrusted values, for error messages ------------------------------


class _SafeRepr(reprlib.Repr):
    """A bounded repr; an object whose ``__repr__`` raises is named by its type (no address)."""

    def repr_instance(self, x: Any, level: int) -> str:
        try:
            text = repr(x)
        except Exception:  # a hostile __repr__ only changes the wording of the error
            return f"<unprintable {type_name(x)}>"
        return clip(text, self.maxother)


_REPR = _SafeRepr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 60, 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4


def describe(value: Any, typed: bool = True) -> str:
    """A short, safe description of a value for an error message: ``"int 5"``."""
    prefix = f"{type_name(value)} " if typed else ""
    try:
        if isinstance(value, int) and value.bit_length() > 64:  # repr may exceed the digit limit
            return f"{prefix}of {value.bit_length()} bits"
        return prefix + _REPR.repr(value)
    except Exception:  # a hostile __repr__ is described by its type alone
        return f"unprintable {type_name(value)}"


def type_name(value: Any) -> str:
    """The name of ``value``'s type, whatever the type claims."""
    name = getattr(type(value), "__name__", "object")
    return name if isinstance(name, str) else "object"


def clip(text: str, n: int = 80) -> str:
    """``text`` cut to ``n`` characters, with an ellipsis when cut."""
    return text if len(text) <= n else text[:n] + "…"
