"""What a sentence asks for: request detection, question words and how much it is about an item.

A request is a sentence that ends in a question mark or carries a request phrase ("could you",
"please", "I'd like to know", "do you know", "tell me", …). It asks for an item when it is about
the item (half the words of its name, or one word of its name and one of its value, or two words
of its value), where a question phrase that fits the value's kind counts as one word of the
value:

* "how long", "how much time", "how soon": durations;
* "how many", "what number of", "how big": counts and percentages;
* "how much", "what amount", "what price": any number (money, a quantity, a share, a time);
* "when", "what date", "which month", "deadline": dates, months, times, durations, years;
* "what percentage", "what share", "what proportion", "how much of": percentages and ratios;
* "who", "which customers": names; "where", "which site": names and codes.

A sentence whose only question words are specific ("who", "when", "where", "why") asks for an
item only if the item can answer them: "who handles the occupancy report?" does not ask for the
occupancy rate, "when is the turbine delivery?" not for the turbine count. A "who" that
addresses the audience ("who can tell me…", "who knows…") and a polite "when you can" do not
count. A sentence that lists several things ("the cost and how long each floor is closed", "our
occupancy, the average rate and the signed group contracts") is also read clause by clause, so
every item it asks for is credited, not only the best-matching one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from scenarios.values import words_of

if TYPE_CHECKING:
    from rewards.judges.evidence import ItemFacts
    from scenarios.values import Atom

_REQUEST = re.compile(
    r"\b(?:could|can|would|will|might) (?:you|someone|anyone|the)\b|\bplease\b"
    r"|\b(?:like|love|want|need|keen|hoping) to (?:know|hear|see|understand|learn|get|confirm)\b"
    r"|\bi(?:'d| would)?(?: really)? (?:need|want|like)\b|\bwe need\b|\bdo you (?:have|know)\b"
    r"|\bdoes (?:anyone|anybody|someone) (?:have|know)\b|\bany idea\b|\bremind (?:me|us)\b"
    r"|\blet (?:me|us) know\b|\bmay i ask\b|\b(?:request|requesting|wondering)\b|\bcurious\b"
    r"|\btell (?:me|us)\b|\bshare with (?:me|us)\b|\bappreciate (?:knowing|hearing|it if|a|the|your)\b"
    r"|\bsend (?:me|us|over)\b|\bwalk (?:me|us) through\b|\bfill (?:me|us) in\b",
)  # matched against a lower-cased sentence, like the cues below (faster than re.I)
# Every request phrase starts with one of these words, so a message without any asks nothing.
_REQUEST_WORDS = frozenset(
    """could can would will might please like love want need keen hoping i we do does any remind
    let may request requesting wondering curious tell share appreciate send walk fill""".split()
)
_SENTENCE = re.compile(r"(?:[^.?!;\n]|\.(?=\d))+[.?!;\n]*")  # "7.1%" does not end a sentence
_CLAUSE = re.compile(r",|;|\b(?:and|or|plus|as well as|along with|together with|also)\b")


def _year(a: Atom) -> bool:
    return a.kind == "number" and a.value is not None and 1900 <= a.value <= 2100


KIND_CUES: tuple[tuple[re.Pattern[str], Callable[[Atom], bool]], ...] = (
    (
        re.compile(
            r"\bhow (?:long|soon)\b|\bhow much time\b|\buntil when\b"
            r"|\bhow many (?:days|weeks|months|years|hours|minutes)\b"
        ),
        lambda a: a.days is not None,
    ),
    (
        re.compile(r"\bhow many\b|\bwhat number of\b|\bhow (?:big|large|high)\b|\bwhat size\b"),
        lambda a: a.kind == "number" and not a.money,
    ),
    (
        re.compile(
            r"\bhow much\b|\bwhat (?:amount|price|figure|budget|sum)\b"
            r"|\bwhat (?:does|do|will|would|did) (?:it|this|that|they|we|the \w+)(?: \w+)? cost\b"
        ),
        lambda a: a.kind == "number",
    ),
    (
        re.compile(
            r"\bwhen\b|\bwhat (?:date|day|time|month|year)\b|\bwhich (?:date|day|month|year)\b"
            r"|\bby what date\b|\bdeadline\b|\bhow soon\b"
        ),
        lambda a: a.kind in ("date", "month", "time") or a.days is not None or _year(a),
    ),
    (
        re.compile(
            r"\bwhat (?:percent|percentage|share|proportion|fraction|portion|rate|ratio|part)\b"
            r"|\bhow much of\b|\bhow many of\b"
        ),
        lambda a: a.percent,
    ),
    (
        re.compile(
            r"\bwho(?:m|se)?\b|\bwhich (?:person|people|customers?|clients?|accounts?|vendors?|suppliers?|firms?|compan\w+)\b"
        ),
        lambda a: a.kind == "name",
    ),
    (
        re.compile(
            r"\bwhere\b|\bwhich (?:sites?|regions?|locations?|places?|countr\w+|cit\w+|schools?)\b"
        ),
        lambda a: a.kind in ("name", "code"),
    ),
)
_ANY_CUE = re.compile(r"\b(?:how|what|when|which|who|whom|whose|where|until|deadline)\b")
_WH = re.compile(r"\b(?:who(?:m|se)?|when|where|why|what|which|how)\b")
# "Who can tell me…" addresses the audience; "when you can" is politeness: neither is the question.
_NOT_THE_QUESTION = re.compile(
    r"\bwho(?= (?:can|could|would|will|knows?|has|have|might|else|is able)\b)"
    r"|\bwhen(?= (?:you|possible|convenient|ready)\b)"
)
WH_FITS: dict[str, Callable[[Atom], bool]] = {
    "who": lambda a: a.kind == "name",
    "when": KIND_CUES[3][1],
    "where": lambda a: a.kind in ("name", "code"),
}


def kinds(found: list[Atom]) -> frozenset[int]:
    """Indexes of the question phrases (:data:`KIND_CUES`) a value with these atoms answers."""
    return frozenset(i for i, (_, fits) in enumerate(KIND_CUES) if any(map(fits, found)))


def answers(found: list[Atom]) -> frozenset[str]:
    """The specific question words ("who", "when", "where") a value with these atoms answers.

    A value without atoms may answer any of them (a rule cannot tell).
    """
    if not found:
        return frozenset(WH_FITS)
    return frozenset(w for w, fits in WH_FITS.items() if any(map(fits, found)))


def cues(low: str) -> frozenset[int]:
    """Indexes of the question phrases in a lower-cased sentence."""
    if not _ANY_CUE.search(low):
        return frozenset()  # most sentences: one scan instead of one per phrase
    return frozenset(i for i, (cue, _) in enumerate(KIND_CUES) if cue.search(low))


def focus(low: str) -> frozenset[str] | None:
    """The specific question words of a lower-cased sentence, or None if it asks generally."""
    found = {
        "who" if w.startswith("who") else w for w in _WH.findall(_NOT_THE_QUESTION.sub("", low))
    }
    if not found or found & {"what", "which", "how"}:
        return None
    return frozenset(found)


def pieces(sentence: str) -> tuple[str, ...]:
    """The sentence, then its clauses if it lists several things."""
    parts = [p for p in _CLAUSE.split(sentence) if p.strip()]
    return (sentence, *parts) if len(parts) > 1 else (sentence,)


def topic_score(
    words: set[str],
    asked: frozenset[int],
    wh: frozenset[str] | None,
    facts: ItemFacts,
    topic: frozenset[str],
) -> float:
    """How much a sentence is about an item: 0 when it is not about it at all.

    ``asked`` are the sentence's question phrases (:func:`cues`), ``wh`` its :func:`focus`.
    """
    if wh is not None and wh.isdisjoint(facts.answers):
        return 0.0
    on_topic = len(words & topic)
    on_value = len(words & facts.words) + bool(asked & facts.cues)
    about = (
        on_topic >= max(1, math.ceil(len(topic) / 2)) or (on_topic and on_value) or on_value >= 2
    )
    return on_topic / max(len(topic), 1) + 0.5 * on_value if about else 0.0


@lru_cache(maxsize=65536)
def request_sentences(text: str) -> tuple[str, ...]:
    """The sentences of ``text`` that ask for something."""
    if "?" not in text and (
        words_of(text).isdisjoint(_REQUEST_WORDS) or not _REQUEST.search(text.lower())
    ):
        return ()  # most messages: a word check or one scan instead of one per sentence
    return tuple(s for s in _SENTENCE.findall(text) if "?" in s or _REQUEST.search(s.lower()))
