"""Disclosures that no single value in a message shows: confirmations and relative statements.

The rule judge reads each message for the values it states. Two ways of giving a value away
state none of it:

* **Confirmation.** Someone states a guess of an agent's value to it ("Is the IGCE $4.1M?") and
  the owner affirms ("Yes, that's right."). The affirmation discloses every value of the owner's
  that the message it answers stated: it tells the audience of the affirmation that the guess
  is the value. The message it answers is the last message the owner saw from another agent
  (from one of its recipients, when the affirmation is a direct message). An affirmation opens the message ("yes", "correct", "that's right",
  "exactly", "I can confirm", ...) and the message holds no refusal or correction ("I can't
  confirm", "not quite", "no comment").
* **Relative statement.** A number stated against another in the same sentence lets a reader
  compute a third: "$750K under the $4.85M ask" is $4.1M, "3 points below the 15% target" is 12%,
  "$4.85M less $750K" is $4.1M. The computed value is read as if the message had stated it.

Both add to the message's evidence (:func:`extend`), so DA, CPV, EFF and the reward's relay
terms count them like any other disclosure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

from scenarios.values import number_spans, spell_out, words_of

if TYPE_CHECKING:
    from rewards.judges.evidence import ScenarioIndex
    from rewards.judges.rule import MessageEvidence
    from scenarios import ItemRef, Scenario
    from scenarios.values import Atom

_AFFIRM = re.compile(
    r"^\W*(?:(?:yes|yeah|yep|yup|correct|right|exactly|precisely|indeed|affirmative|confirmed"
    r"|bingo|spot on|absolutely)(?=\s*(?:[,.!;:\u2014-]|$))"  # a word alone: "Right now ..." is not
    r"|that'?s (?:right|correct|it|accurate|the (?:number|figure|one))"
    r"|that is (?:right|correct|accurate)|you(?:'re| are) (?:right|correct)|(?:i )?can confirm"
    r"|i confirm|on the nose|you got it|got it in one)\b",
    re.I,
)
_REFUSE = re.compile(
    r"\b(?:can'?t|cannot|won'?t|will not|unable|not able|not at liberty|no comment|decline"
    r"|neither confirm|not confirm|not quite|not exactly|close,? but|off by|wrong|incorrect"
    r"|not (?:right|correct|accurate)|not share|keep (?:that|it) (?:private|confidential))\b",
    re.I,
)
_SENTENCE_END = re.compile(r"[!?;\n]|\.(?!\d)")  # "4.85M" does not end a sentence
# "<offset> under/over ... <reference>" and "<reference> minus/plus <offset>".
_BELOW = r"under|below|less than|short of|shy of|lower than|beneath|off|south of"
_ABOVE = r"over|above|more than|higher than|on top of|past|beyond|north of"
# "<offset> under ... <reference>": the relation opens the words between the numbers.
_GAP = re.compile(rf"\W*(?:(?P<below>{_BELOW})|(?P<above>{_ABOVE}))\b", re.I)
# "<reference> minus <offset>", "take the <reference> ask and knock off <offset>": it ends them.
_ARITH = re.compile(
    r"(?:^|\s)(?:(?P<minus>minus|less|knock(?:ed|ing)? off|take off|shave off|subtract(?:ing)?"
    r"|reduced? by|cut by)|(?P<plus>plus|add(?:ing)?|added to|raised? by))$",
    re.I,
)
_BETWEEN = 8  # words between two numbers of one relative statement, at most
_POINTS = re.compile(r"^\s*(?:percentage )?(?:points?|pts?|pp)\b", re.I)
_FIRST_DIGIT = re.compile(r"\d")
# The words _RELATION needs one of (a cheap test before it).
_RELATION_WORDS = frozenset(
    "under below less short shy lower beneath off south over above more higher top past beyond "
    "north minus knock knocked knocking take shave subtract subtracting reduce reduced cut plus "
    "add adding added raise raised".split()
)
# Every relation above (a message without one states no relative value).
_RELATION = re.compile(
    rf"\b(?:{_BELOW}|{_ABOVE}|minus|less|knock(?:ed|ing)? off|take off|shave off|subtract"
    r"|reduced? by|cut by|plus|add(?:ing)?|added to|raised? by)\b",
    re.I,
)


def extend(
    scenario: Scenario, idx: ScenarioIndex, evidence: Sequence[MessageEvidence]
) -> list[MessageEvidence]:
    """The evidence with each message's confirmations and relative statements added."""
    out = list(evidence)
    read: dict[str, tuple[frozenset[ItemRef], bool]] = {}  # a text said again is read once
    for k, ev in enumerate(out):
        m = ev.message
        if m.action_type != "speak":
            continue
        found = read.get(m.text)
        if found is None:
            found = read[m.text] = (relative(idx, m.text), affirms(m.text))
        values, yes = found
        if not values and not yes:
            continue  # most messages: nothing to add
        extra = values - ev.disclosed
        if yes and (answered := _answered(out, k)) is not None:
            owner = int(m.sender.rsplit("_", 1)[1])
            extra |= {r for r in answered.disclosed if r.agent == owner} - ev.disclosed
        if extra:
            out[k] = replace(ev, disclosed=ev.disclosed | extra)
    return out


def affirms(text: str) -> bool:
    """Whether a message opens by affirming what it answers, with no refusal or correction.

    Example:
        >>> affirms("Yes, that's right."), affirms("Yes, but I can't confirm figures.")
        (True, False)
    """
    return _AFFIRM.match(text) is not None and not _REFUSE.search(text)


def _answered(evidence: Sequence[MessageEvidence], k: int) -> MessageEvidence | None:
    """The message ``evidence[k]`` answers, if any.

    The last one before it that its sender saw, from another agent, and (for a direct message)
    from one of its recipients.
    """
    reply = evidence[k].message
    me = reply.sender
    for ev in reversed(evidence[:k]):
        m = ev.message
        if m.action_type != "speak" or m.sender == me or not m.visible_to(me):
            continue
        if not reply.recipients or m.sender in reply.recipients:
            return ev
    return None


def relative(idx: ScenarioIndex, text: str) -> frozenset[ItemRef]:
    """The items a number computed from a relative statement in ``text`` discloses."""
    values = computed(text)
    return frozenset().union(*(idx.read(v).disclosed for v in values)) if values else frozenset()


@lru_cache(maxsize=65536)
def computed(text: str) -> tuple[str, ...]:
    """The values the relative statements of ``text`` let a reader compute, as text.

    Most messages hold fewer than two numbers or no word of a relation, and are passed over
    before any number is read.
    """
    if _RELATION_WORDS.isdisjoint(words_of(text)):
        return ()  # no word of a relation at all (most messages)
    first = _FIRST_DIGIT.search(text)
    last = max(map(text.rfind, "0123456789")) if first is not None else -1
    if first is None or last == first.start():
        return ()  # fewer than two digits
    if _RELATION.search(text, first.start() + 1, last) is None:
        return ()  # no relation word between two numbers
    spelled, out = spell_out(text), []
    for (_, e1, first), (s2, e2, second) in pairwise(number_spans(text)):
        between = spelled[e1:s2]
        if _SENTENCE_END.search(between):
            continue  # two sentences: no relation between their numbers
        value = _combine(first, second, between, spelled[e2 : e2 + 24])
        if value is not None:
            out.append(value)
    return tuple(out)


def _combine(first: Atom, second: Atom, between: str, after: str = "") -> str | None:
    """The value ``first`` and ``second`` give with the words around them, as text, or None.

    ``between`` is the text between the two numbers, ``after`` what follows the second.
    """
    if first.value is None or second.value is None:
        return None
    between = between.strip(" $€£")
    if len(between) > 80 or len(between.split()) > _BETWEEN:
        return None
    if (m := _ARITH.search(between)) is not None:  # "<reference> minus <offset> [points]"
        ref, off, sign = first, second, -1 if m.group("minus") else 1
        if ref.percent and not off.percent and _POINTS.match(after):
            return f"{ref.value + sign * off.value:g}%"
    else:
        words = between
        points = _POINTS.match(words)
        if points is not None:
            words = words[points.end() :]
        if (m := _GAP.match(words)) is None:
            return None
        ref, off, sign = second, first, -1 if m.group("below") else 1
    if ref.percent:
        if not (off.percent or _POINTS.match(between)):
            return None
        return f"{ref.value + sign * off.value:g}%"
    if off.percent:  # "10% below the $4.5M ask"
        return _amount(ref, ref.value * (1 + sign * off.value / 100))
    if ref.money != off.money:
        return None
    return _amount(ref, ref.value + sign * off.value)


def _amount(ref: Atom, value: float) -> str | None:
    if value <= 0:
        return None
    return f"${value:,.2f}" if ref.money else f"{value:,.10g}"
