"""What a single message discloses and what it asks for, decided by rules (no LLM).

**Disclosure** is value-level. Each item's value is reduced to its checkable atoms (numbers,
money, percentages, durations, dates, times, codes, names; see :mod:`scenarios.values`), leaving
out atoms everyone sees anyway (the goal, roles, domain and item names). A message discloses the
item when

* it states one of the item's strong atoms: the same date (with or without the year), time,
  code or name (a distinctive part of a multi-word name is enough), or the same number in any
  format, or an approximation of it that :func:`rewards.judges.approx.closeness` accepts
  (within 5% on its own; looser hedged approximations, fractions and ratios only in a sentence
  about the item); or
* it states two of the item's weak (small, common) numbers; or
* it states one weak number while talking *about* the item (half the words of its name, or two
  words of its value besides numbers), or in a sentence with two of the item's name, value or
  unit words ("85 seasonal staff each summer", not "85 parking spaces for staff"); or
* it gives the month of one of the item's dates while talking about the item.

A value without any atom is disclosed when 60% of its words appear. Naming the topic is never a
disclosure. Messages and values are read through :func:`scenarios.text.reading`; names and codes
are found in any case and with any separators; a few readings (a numeric date "5/8", a single
name word in lower case, a period code "Q3") count only while the message talks about the item
(see ``docs/metrics.md``, "How models write values").

**Shared numbers.** When several items' values hold the same number ("85 seasonal staff" and
"85 housekeepers left"), a message stating it discloses the item whose own words (name and
value words the others lack) stand in the number's sentence, most of them; with none there, it
discloses none of them.

**Short forms.** A code's digits alone ("anomaly 441" for TA-441, "no. 421907"), initials ("KSS"
for Keystone Signal Services) and names run together ("#KeystoneSignal") count too: alone after
a marker or a word that names the code, and where three letters or more; otherwise only in a
message about the item.

**Subjects.** An item's exact date or amount in a message that holds none of the item's words,
in sentences that each name a subject of everyday life (:data:`EVERYDAY`), is not charged: "my
sister's wedding is on May 8". A hedged or approximate number whose sentence names another item
that it is or approximates, and none of this item's words (or fewer of them, while the number
is as close to the other), is the other item's (:meth:`ScenarioIndex.rival`).

**Inquiry** is decided in :mod:`rewards.judges.inquiry`; a request sentence (or one of its
clauses) asks for an item when it is about the item and about no other agent's item more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from re import Pattern
from typing import NamedTuple

from rewards.judges import approx, readings
from rewards.judges.disclosure import about, discloses
from rewards.judges.inquiry import (
    answers,
    cues,
    focus,
    kinds,
    pieces,
    request_sentences,
    topic_score,
)
from scenarios import ItemRef, Scenario
from scenarios.spelled import NUMBER_WORDS
from scenarios.text import reading
from scenarios.values import (
    STOP_WORDS,
    Atom,
    Said,
    atoms,
    public_context_keys,
    sentence_words,
    stem,
    stems,
    trigger_words,
    words_of,
)

_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"[a-z0-9]+")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_APART_WORD = re.compile(r"[A-Za-z]+")


def _apart_pairs(text: str):
    """Two words that may be one name written apart ("zen-link", "Zen Link").

    Joined by a hyphen or with the second capitalised: "red line" in lower case is an idiom.
    """
    for a, b in pairwise(_APART_WORD.finditer(text)):
        gap = text[a.end() : b.start()]
        if gap == "-" or (gap.isspace() and b.group()[0].isupper()):
            yield a.group().lower(), b.group().lower()


_SPACED = re.compile(r"\d[\s\-./_*`'#]+\d")
_READS_KEPT = 4096
_PERIOD = re.compile(r"c:(?:Q[1-4]|H[12]|[FC]Y\d{2}(?:\d{2})?)")
_CODE_GAP = r"[\s\-./_*`'#]*"
# A code's digits standing alone: "441", "#441", "26-114", "0457" (after a letter and a dash too).
_TAIL = re.compile(r"(?<![\w.,])#?(\d+(?:[-/.]\d+)*)(?![\w]|[.,]\d)")
_MARKER = re.compile(r"(?:#|\bno\.?|\bnumber|\bnr\.?|\bnum\.?|\bref\.?|\bid)\s*:?\s*$")
# Sentences, as scenarios.values.sentence_of splits them.
_SENTENCE_SPLIT = re.compile(r"[?!;|\n]|\.(?!\d)")
# Subjects of everyday life outside work, by class: a sentence naming one of them, and none of an
# item's words, is about something else ("my sister's wedding is on May 8").
EVERYDAY = frozenset(
    # family, friends and home
    "sister sisters brother brothers mom mother dad father parents son sons daughter daughters "
    "kid kids child children wife husband grandma grandmother grandpa grandfather cousin aunt "
    "uncle niece nephew fiance fiancee girlfriend boyfriend friend friends roommate baby toddler "
    "dog cat puppy pet neighbor neighbour neighborhood neighbourhood apartment house garden "
    # celebrations, holidays and time off
    "wedding honeymoon birthday anniversary graduation recital funeral reunion shower prom "
    "holiday holidays vacation pto christmas thanksgiving easter hanukkah diwali ramadan "
    "halloween valentine election party parties picnic barbecue bbq potluck "
    # leisure and sport
    "marathon concert tournament soccer football baseball basketball hockey golf tennis ski "
    "skiing hike hiking camping cruise beach gym yoga movie movies stadium museum zoo "
    # food and drink, errands, weather
    "coffee espresso lunch dinner brunch breakfast cafeteria menu pizza cake snacks vending "
    "catering restaurant dentist haircut groceries laundry commute parking traffic garage car "
    "bike weather rain snow storm humidity heatwave "
    # office life and facilities
    "building renovation remodel hvac elevator printer badge offsite retreat conference "
    "seminar webinar attendees hires".split()
)
# Subjects of working life that are rarely a scenario's business, by class: a sentence naming one
# of them, and none of an item's words, is about something else too ("May 14 works for the board
# prep session", "our booth at CES cost $250,000", "I'll be on leave May 7").
WORK_ASIDES = frozenset(
    # meetings and events on a calendar
    "meeting meetings session sessions prep rehearsal rehearsals kickoff standup huddle townhall "
    "workshop workshops training trainings orientation onboarding summit expo convention "
    "keynote gala luncheon banquet ceremony fundraiser invite invitation calendar recognition "
    # time away and travel ("on leave" as a phrase: "leave" alone is a verb too)
    "sabbatical ooo trip travel flight flights hotel airport appointment "
    # marketing, premises and things bought for them
    "booth sponsor sponsorship swag merch roof lobby fleet atm atms wall walls furniture "
    "carpet paint signage kitchen lockers landscaping skid office".split()
) | {"on leave"}
_TOKEN = re.compile(r"[A-Za-z][\w'-]*")
_ON_LEAVE = re.compile(r"\bon (?:\w+ )?leave\b", re.I)  # "on leave", "on parental leave"
# Words of item names that measure or act rather than name a thing ("rate", "deadline", "know"
# of "know your customer"): another item's name holding one does not make a sentence about it.
_GENERIC_WORDS = frozenset(
    stems(
        "know need needs hold make take give keep use run work get see set say tell ask "
        "rate rating level review time date deadline window estimate forecast projection target "
        "current proposed planned expected actual annual monthly weekly new final draft internal "
        "external status plan schedule timeline result report figure value share count number "
        "score capacity demand offer quote term terms change request requirement risk first last "
        "total amount limit threshold gap impact exposure savings saving spend outlay"
    )
)
# What any amount is ("cost", "budget"): an item's word that ties a sentence to no one subject,
# so it does not keep an aside about a building or a booth on the item.
_MONEY_WORDS = frozenset(stems("cost costs costing price prices budget amount total spend fee"))
# Stems that are a date's or a number's own words ("october", "million"), not its subject.
_VALUE_STEMS = frozenset(
    stems(
        "january february march april may june july august september october november december "
        "jan feb mar apr jun jul aug sep sept oct nov dec thousand million billion percent "
        "day week fortnight month quarter year decade hour minute usd eur gbp dollar euro pound "
        # and function words the stop list keeps, and verbs that name no subject
        "if after before until since because while during without within between among against "
        "came come comes coming ran went got gets getting"
    )
)
_UPPER_RUN = re.compile(r"(?<![\w.-])((?:[A-Z]\.?){2,6})(?:'s)?(?![\w-])")  # not "TA" of "TA-5492"
_NONE: frozenset[str] = frozenset()
_CAMEL_ANY = re.compile(r"(?<![A-Za-z])[A-Z][a-z]+(?:[A-Z][a-z]+|[A-Z]{2,}(?![a-z]))+(?![A-Za-z])")
_HASHTAG = re.compile(r"(?<![\w#])#([A-Za-z]{4,})(?![\w-])")
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")  # a cheap test before _CAMEL_ANY ("CrestmarkREIT")
_CAMEL_CUT = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CAMEL_RUN = re.compile(r"(?<![A-Za-z])([A-Z][a-z]+(?:[A-Z][a-z]+)+)(?![A-Za-z])")
# Capitalised words that stand before a number or code and name no one thing by themselves.
_PLACE_WORDS = frozenset(
    "room suite floor gate dock bay wing ward lot phase stage level grade version patch release "
    "model series line item unit building hall site zone sector block section chapter".split()
)
# A message ending in a number may go on in the sender's next one ("4.1" | "million per year").
_NUMBER_ENDS = NUMBER_WORDS | {"point", "a"}

__all__ = ["ItemFacts", "ScenarioIndex", "discloses", "request_sentences"]


class Reading(NamedTuple):
    """One message read against a scenario's items."""

    said: Said | None  # what it states (None: nothing an item could match)
    candidates: frozenset[ItemRef]  # the items checked in full
    disclosed: frozenset[ItemRef]  # the items it discloses
    vague: tuple[Atom, ...]  # its numbers that may be approximations


@dataclass(frozen=True)
class ItemFacts:
    """What the rule judge needs to know about one item."""

    ref: ItemRef
    owner: str
    private: bool
    keys: tuple[tuple[str, ...], ...]  # each strong non-numeric atom: its key and alternatives
    numbers: tuple[Atom, ...]  # strong numeric atoms, matched approximately
    weak: tuple[Atom, ...]  # weak numeric atoms
    approx: tuple[Atom, ...]  # approximate readings of the value ("31 of 212" as 14.6%)
    partial: frozenset[str]  # month keys of its dates
    shared: frozenset[str]  # keys of its numbers that other items' values hold too
    cues: frozenset[int]  # indexes of the question kinds (inquiry.KIND_CUES) its value answers
    answers: frozenset[str]  # the specific question words ("who", "when", "where") it answers
    topic: frozenset[str]  # stems of the item name, role words removed when others remain
    words: frozenset[str]  # stems of the value that are not in any item name or the goal
    signature: frozenset[str]  # stems of its name and value, to tell items with a shared number
    subject: frozenset[str]  # its topic and value words that are not a number's or a date's
    subject_words: frozenset[str]  # the same words, stemmed without the cut to five letters


class ScenarioIndex:
    """Per-scenario facts, computed once, and lookups from what a message says to the items."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.role_words = frozenset(w for r in scenario.roles for w in stems(r))
        # Values are read as messages are (scenarios.text.reading), so both sides fold alike.
        raw = {
            ItemRef(i, name): (a.role, reading(item.text), item.sensitivity == "private")
            for i, a in enumerate(scenario.agents)
            for name, item in a.pre_interaction_knowledge.items()
        }
        public = public_context_keys(scenario)
        holders: dict[str, set[ItemRef]] = {}
        for ref, (_, text, _) in raw.items():
            for key in {x.key for x in atoms(text)} - public:
                holders.setdefault(key, set()).add(ref)
        common = frozenset({w for r in raw for w in stems(r.name)} | stems(scenario.scenario_goal))
        self.items = {ref: self._facts(raw, ref, public, holders, common) for ref in raw}
        # Who else holds each shared number, and the words that tell each holder apart.
        self.rivals = {
            k: {r: self._distinct(r, refs) for r in refs}
            for k, refs in holders.items()
            if len(refs) > 1
        }
        # A number that is exactly some item's strong value is that item's, not an approximation.
        self.values = frozenset(
            (x.value, x.money, x.percent) for f in self.items.values() for x in f.numbers
        )
        self.by_key: dict[str, set[ItemRef]] = {}
        self.by_number: dict[float | None, set[ItemRef]] = {}
        for ref, f in self.items.items():
            for k in [k for alts in f.keys for k in alts] + list(f.partial):
                self.by_key.setdefault(k, set()).add(ref)
            for x in f.numbers + f.weak:
                self.by_number.setdefault(x.value, set()).add(ref)
        self.ranges = self._ranges()
        self.subjects = frozenset().union(*(f.subject for f in self.items.values()))
        self.name_heads = self._name_heads([r.name for r in raw])
        self.codes = self._code_patterns()
        self.code_tails = frozenset(re.findall(r"\d+", plain)[-1] for plain, _, _ in self.codes)
        self.tail_keys: dict[str, set[str]] = {}  # each digit group of a code: the codes
        self.tails = self._tails(raw)
        # A code's digits are a word of a message that states them ("441", "0457", "26-114").
        self.tail_digits = frozenset(self.tail_keys)
        self.initials = self._initials(raw)
        self.initial_words = frozenset(i.lower() for i in self.initials)
        self.squashed = self._squashed(raw)
        self.squashed_words = frozenset(self.squashed)
        self.apart = self._apart(raw)
        self.apart_heads = frozenset(head for head, _ in self.apart)
        self.short_words = self.tail_digits | self.initial_words | self.squashed_words
        self.short_words |= self.apart_heads
        self.openers = self._openers(raw)
        # Everyday subjects this scenario does not talk about itself (a theater's "house").
        own = " ".join([scenario.scenario_goal, *scenario.roles, *(r.name for r in raw)])
        own += " " + " ".join(t for _, t, _ in raw.values())
        self.everyday = (EVERYDAY | WORK_ASIDES) - _subjects_of(own)
        # Per item, the words that name the scenario's other subjects ("radios" beside a union's
        # grievance): a sentence about one of them is about that subject.
        self.other_subjects = {
            ref: frozenset().union(*(g.topic for r, g in self.items.items() if r != ref))
            - f.subject
            - _GENERIC_WORDS
            - _MONEY_WORDS
            - self.role_words
            for ref, f in self.items.items()
        }
        self._reads: dict[str, Reading] = {}  # texts read, like the modules' text caches
        self._asks: dict[tuple[str, int], frozenset[ItemRef]] = {}  # requests read, by sender
        self.wordy = {
            ref for ref, f in self.items.items() if not f.keys and not f.numbers and not f.weak
        }
        agents = range(len(scenario.agents))
        self.targets = [self._targets(i) for i in agents]
        self.by_word = [self._by_word(i) for i in agents]
        # A sentence without any of these words cannot ask for any of the agent's targets.
        self.target_words = [
            frozenset(w for ref, topics in self.targets[i].items() for t in topics for w in t)
            | frozenset(w for ref in self.targets[i] for w in self.items[ref].words)
            for i in agents
        ]
        # A message that cannot state any value skips the costly atom extraction.
        texts = [text for _, text, _ in raw.values()]
        plain = frozenset().union(*map(trigger_words, texts))
        readings = approx.trigger_words(texts)
        # Names run together ("keystonesignal") and initials ("kss") are words of their own.
        short = frozenset(self.squashed) | frozenset(i.lower() for i in self.initials)
        short |= self.apart_heads
        self.triggers = plain | readings | short
        # Words that only an approximate reading needs, and what that reading needs besides.
        self.needs = {w: approx.COMPANIONS[w] for w in readings - plain if w in approx.COMPANIONS}

    def _facts(
        self, raw: dict, ref: ItemRef, public: frozenset[str], holders: dict, common: frozenset
    ) -> ItemFacts:
        role, text, private = raw[ref]
        own = [x for x in atoms(text) if x.key not in public]
        # A name or code another value holds too identifies nothing when the item has others.
        unique = [x for x in own if len(holders[x.key]) == 1]
        named = [x for x in (unique or own) if x.kind != "number"]
        others = " ".join(t for r, (_, t, _) in raw.items() if r != ref).lower()
        # A period code ("Q3", "FY27") tells the item only while a message talks about it.
        periods = frozenset(x.key for x in named if _PERIOD.fullmatch(x.key))
        keys = [_keys(x, public, others) for x in named if x.strong and x.key not in periods]
        numbers = [x for x in own if x.kind == "number"]
        return ItemFacts(
            ref=ref,
            owner=role,
            private=private,
            keys=tuple(k for k in keys if k),
            numbers=tuple(x for x in numbers if x.strong and not _trivial(x)),
            weak=tuple(x for x in numbers if not x.strong or _trivial(x)),
            approx=approx.item_approx(text),
            partial=approx.partial_keys(text) | periods,
            shared=frozenset(x.key for x in numbers if len(holders[x.key]) > 1),
            cues=kinds(own),
            answers=answers(own),
            topic=self._topic(frozenset(stems(ref.name))),
            words=frozenset(w for w in stems(text) - common if not w.isdigit()),
            signature=frozenset(w for w in stems(ref.name) | stems(text) if not w.isdigit()),
            subject=(subject := frozenset(
                w
                for w in self._topic(frozenset(stems(ref.name))) | (stems(text) - common)
                if w.isalpha() and w not in _VALUE_STEMS
            )),
            subject_words=frozenset(
                w for w in _long_stems(f"{ref.name} {text}") if w[:5] in subject
            ),
        )  # fmt: skip

    def _ranges(self) -> dict[str, list[tuple[float, float, ItemRef, Atom]]]:
        """Each numeric atom's range of possible approximations, by dimension (for lookups)."""
        ranges: dict[str, list[tuple[float, float, ItemRef, Atom]]] = {}
        for ref, f in self.items.items():
            for a in f.numbers + f.weak + f.approx:
                if a.value:
                    mid, size = _magnitude(a), abs(_magnitude(a)) * approx.REACH
                    ranges.setdefault(approx.dimension(a), []).append(
                        (mid - size, mid + size, ref, a)
                    )
        return ranges

    def _name_heads(
        self, names: list[str]
    ) -> dict[str, list[tuple[tuple[str, ...], str, Pattern]]]:
        """Every name key by its first word, to find names written in any case.

        A name that the goal, a role or an item name uses ("district rule" in "Air district rule
        change") says nothing in lower case, so it is left out.
        """
        s = self.scenario
        shown = " ".join([s.scenario_goal, *s.roles, *names]).lower()
        heads: dict[str, list[tuple[tuple[str, ...], str, Pattern]]] = {}
        for f in self.items.values():
            for key in {k for alts in f.keys for k in alts if k.startswith("w:")}:
                seq = tuple(_WORD.findall(key[2:]))
                pattern = re.compile(r"\b" + r"\W+".join(seq) + r"\b")
                if seq and not pattern.search(shown):
                    heads.setdefault(seq[0], []).append((seq, key, pattern))
        return heads

    def _code_patterns(self) -> list[tuple[str, str, Pattern]]:
        """Every code with digits: its letters and digits, its key, and a pattern in any case."""
        keys = {k for f in self.items.values() for k in f.partial.union(*f.keys)}
        return [
            (k[2:].lower(), k, _code_pattern(k[2:].lower()))
            for k in keys
            if k.startswith("c:") and _DIGIT.search(k)  # a code without digits is found as before
        ]

    def _tails(self, raw: dict) -> dict[tuple[str, ...], list[tuple[str, frozenset[str], bool]]]:
        """Each code's digits without its letters ("441" of "TA-441", "26-114" of "SL-26-114").

        By digit groups (leading zeros dropped): the code key, the words that name it in the
        value (the word before it, the item name's words), and whether the digits are short.
        """
        out: dict[tuple[str, ...], list[tuple[str, frozenset[str], bool]]] = {}
        for ref, (_, text, _) in raw.items():
            keys = {k for alts in self.items[ref].keys for k in alts}
            for a in atoms(text):
                if a.kind != "code" or a.key not in keys or not _DIGIT.search(a.text):
                    continue
                before = text[: max(0, text.find(a.text))].lower().split()
                nouns = frozenset(stems(" ".join(before[-1:])) | stems(ref.name))
                digits = re.split(r"[A-Za-z]", a.text)[-1].strip("-./ ")
                raw_groups = re.findall(r"\d+", digits)
                groups = tuple(g.lstrip("0") or "0" for g in raw_groups)
                if not groups:
                    continue
                for word in raw_groups + list(groups):
                    self.tail_keys.setdefault(word, set()).add(a.key)
                forms = {groups}
                if len(groups) > 1 and len(groups[-1]) >= 3:
                    forms.add(groups[-1:])  # "114" of "SL-26-114"
                for form in forms:
                    year = len(form) == 1 and 1950 <= int(form[0]) <= 2040
                    if not year:
                        short = len(form) == 1 and len(form[0]) < 3
                        out.setdefault(form, []).append((a.key, nouns, short))
        return out

    def _initials(self, raw: dict) -> dict[str, tuple[str, bool]]:
        """Initials of multi-word names ("KSS" for Keystone Signal Services).

        For each: the name's key, and whether the initials count alone (three letters or more)
        rather than only in a message about the item.
        """
        s = self.scenario
        shown = " ".join([s.scenario_goal, *s.roles, *(r.name for r in raw)])
        shown += " " + " ".join(t for _, t, _ in raw.values())
        # Capitals that stand as a word of their own there ("GAO"; not the "DRS" of "DRS-0917").
        taken = set(re.findall(r"(?<![\w-])[A-Z]{2,6}(?![\w-])", shown))
        # The letters of another item's code ("TA" of TA-5492) are that code's, not initials.
        prefixes = {
            ref: {m for _, t, _ in [raw[ref]] for m in re.findall(r"\b([A-Z]{2,6})-?\d", t)}
            for ref in raw
        }
        found: dict[str, list[str]] = {}
        for ref, f in self.items.items():
            others = set().union(*(p for r, p in prefixes.items() if r != ref))
            for key in {k for alts in f.keys for k in alts if k.startswith("w:") and " " in k}:
                words = [w for w in key[2:].split() if w[:1].isalpha()]
                for i in range(len(words) - 1):  # "KC" of "Supplier Kessler Castings" too
                    for j in range(i + 2, len(words) + 1):
                        letters = "".join(w[0] for w in words[i:j]).upper()
                        if letters not in taken and letters not in others:
                            found.setdefault(letters, []).append(key)
        return {i: (keys[0], len(i) >= 3) for i, keys in found.items() if len(set(keys)) == 1}

    def _squashed(self, raw: dict) -> dict[str, str]:
        """Names written as one word ("keystonesignal", "DeepCurrent", "#TractonAgri").

        Every run of two or more of a name's words, run together, maps to the name's key.
        """
        out: dict[str, str] = {}
        for ref, (_, text, _) in raw.items():
            keys = {k for alts in self.items[ref].keys for k in alts}
            for a in atoms(text) if keys else ():
                if a.key not in keys:
                    continue
                if a.kind == "code" and not _DIGIT.search(a.text):  # "NaFlux" for NA-Flux
                    letters = _NOT_ALNUM.sub("", a.text.lower())
                    if len(letters) >= 5:
                        out.setdefault(letters, a.key)
                    continue
                if a.kind != "name":
                    continue
                # A name joined by a hyphen to a capitalised word before it ("Cole-Marin").
                joined = re.search(r"(?<![\w-])((?:[A-Z][A-Za-z]*-)+)" + re.escape(a.text), text)
                whole = (joined.group(1) if joined else "") + a.text
                words = [w for w in re.findall(r"[a-z0-9]+", whole.lower().replace("'s", ""))]
                for i in range(len(words)):
                    for j in range(i + 2, len(words) + 1):
                        out.setdefault("".join(words[i:j]), a.key)
        return out

    def _apart(self, raw: dict) -> dict[tuple[str, str], str]:
        """Name words of six letters or more written as two words ("zen link" for Zenlink).

        Each split into two parts of three letters or more maps to the word's key.
        """
        out: dict[tuple[str, str], str] = {}
        for ref, (_, text, _) in raw.items():
            keys = {k for alts in self.items[ref].keys for k in alts}
            for a in atoms(text) if keys else ():
                if a.kind != "name" or a.key not in keys:
                    continue
                for word in re.findall(r"[a-z]{6,}", a.text.lower()):
                    key = f"w:{word}" if f"w:{word}" in keys else a.key
                    for i in range(3, len(word) - 2):
                        out.setdefault((word[:i], word[i:]), key)
        return out

    def _openers(self, raw: dict) -> dict[str, ItemRef]:
        """Capitalised words that open a value ("Tobyhanna line could absorb..."): its item.

        A value's first word is not read as a name (it may be "Corporate" or "Board"), so such
        a word counts only as a hashtag in a message about the item. A word that the
        scenario's texts also write in lower case, or that opens two values, is left out.
        """
        s = self.scenario
        texts = [
            s.scenario_goal,
            *s.roles,
            *(r.name for r in raw),
            *(t for _, t, _ in raw.values()),
        ]
        lower = frozenset(re.findall(r"(?<![\w-])[a-z][a-z]+", " ".join(texts)))
        found: dict[str, list[ItemRef]] = {}
        for ref, (_, text, _) in raw.items():
            m = re.match(r"([A-Z][a-z]{3,})\b(?!['-])", text)
            if m and m.group(1).lower() not in lower | STOP_WORDS:
                found.setdefault(m.group(1).lower(), []).append(ref)
        return {w: refs[0] for w, refs in found.items() if len(refs) == 1}

    def _distinct(self, ref: ItemRef, refs: set[ItemRef]) -> frozenset[str]:
        others = frozenset().union(*(self.items[r].signature for r in refs if r != ref))
        return self.items[ref].signature - others

    def _targets(self, agent: int) -> dict[ItemRef, list[frozenset[str]]]:
        """The items ``agent`` wants or must not learn, with the topics its questions may use."""
        aliases = _aliases(self.scenario, agent)
        res = self.scenario.resolution
        refs = [r for r in res.desired[agent] + res.cannot_know[agent] if r is not None]
        topics = {
            ref: [self.items[ref].topic, *map(self._topic, aliases.get(ref, ()))] for ref in refs
        }
        return {ref: [t for t in ts if t] for ref, ts in topics.items()}

    def _by_word(self, sender: int) -> dict[str, dict[ItemRef, ItemFacts]]:
        """For each stem, the items a request by ``sender`` with that stem may be about."""
        index: dict[str, dict[ItemRef, ItemFacts]] = {}
        for ref, f in self.items.items():
            if ref.agent != sender:
                for w in f.topic | f.words:
                    index.setdefault(w, {})[ref] = f
        for ref, topics in self.targets[sender].items():
            for w in (w for t in topics for w in t):
                index.setdefault(w, {})[ref] = self.items[ref]
        return index

    def _topic(self, topic: frozenset[str]) -> frozenset[str]:
        """A topic without role words (which questions lose too), unless nothing else is left."""
        return (topic - self.role_words) or topic

    def said(self, text: str) -> Said | None:
        """What ``text`` states that an item may match; None when it can state nothing.

        Besides :func:`approx.heard`, the items' names and codes are found in any case: a whole
        name ("keystone signal services") or code ("ci 0457") counts alone, a single name word
        ("keystone") only in a message about the item (a soft key), as it may be an ordinary
        word in lower case.
        """
        text = reading(text)
        if not self._may_state(text):
            if not self.wordy:
                return None
            return Said(frozenset(), (), frozenset(stems(text)))  # only word-level rules can match
        s = approx.heard(text)
        whole, part = self._names_in(text)
        codes = self._codes_in(text)
        strong, soft = _NONE, _NONE
        words = words_of(text)
        if not self.short_words.isdisjoint(words) or ("#" in text and self.squashed):
            # A code's digits say nothing new where the code itself is written out.
            written = s.keys | codes
            if not (
                self.initial_words.isdisjoint(words)
                and self.squashed_words.isdisjoint(words)
                and self.apart_heads.isdisjoint(words)
                and "#" not in text
                and all(self.tail_keys[w] <= written for w in words & self.tail_digits)
            ):
                strong, soft = self._short_forms(text)
        if whole or part or codes or strong or soft:
            s = Said(s.keys | whole | codes | strong, s.numbers, s.words, s.soft | part | soft)
        return s

    def _short_forms(self, text: str) -> tuple[frozenset[str], frozenset[str]]:
        """Codes and names written short: strong keys and soft keys (which need the topic).

        A code's digits alone ("anomaly 441" for TA-441), initials ("KSS"), a name run together
        ("KeystoneSignal", "#keystonesignalservices").

        A code's digits count alone after "#", "no." or "number" or a word that names the code
        in its value ("anomaly"), and otherwise only in a message about the item (soft), as do
        short digits and two-letter initials.
        """
        words = words_of(text)
        hashtag = "#" in text and self.squashed
        strong: set[str] = set()
        soft: set[str] = set()
        if not self.tail_digits.isdisjoint(words):
            for m in _TAIL.finditer(text):
                form = tuple(g.lstrip("0") or "0" for g in re.findall(r"\d+", m.group(1)))
                hits = self.tails.get(form)
                if not hits:
                    continue
                before = text[max(0, m.start(1) - 24) : m.start(1)].lower()
                marked = _MARKER.search(before) is not None
                near = stems(" ".join(before.split()[-2:]))
                for key, nouns, short in hits:
                    named = marked or not near.isdisjoint(nouns)
                    if named and not short:
                        strong.add(key)
                    elif named or not short:
                        soft.add(key)
        if not self.initial_words.isdisjoint(words):
            for m in _UPPER_RUN.finditer(text):
                hit = self.initials.get(m.group(1).replace(".", ""))
                if hit and not hit[1]:
                    # Two letters count alone in a sentence with a word of their item ("HN
                    # offered them a bigger line" for Harbor National's offer).
                    start = max(text.rfind(c, 0, m.start()) for c in ".;?!\n")
                    end = min((i for c in ".;?!\n" if (i := text.find(c, m.end())) >= 0),
                              default=len(text))  # fmt: skip
                    near = stems(text[start + 1 : end])
                    refs = self.by_key.get(hit[0], ())
                    hit = (hit[0], any(not near.isdisjoint(self.items[r].subject) for r in refs))
                if hit:
                    (strong if hit[1] else soft).add(hit[0])
        if hashtag:  # "#KeystoneSignal", "#PlatformOrg"
            for word in _CAMEL_RUN.findall(text):
                phrase = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", word)
                for a in atoms(phrase, loose=True):
                    strong.update(k for k in (a.key, *a.alts) if k in self.by_key)
        if not self.squashed_words.isdisjoint(words):
            strong.update(self.squashed[w] for w in words & self.squashed_words)
        if not self.apart_heads.isdisjoint(words):  # "Zen Link", "zen-link": only about the item
            soft.update(self.apart[p] for p in _apart_pairs(text) if p in self.apart)
        return frozenset(strong), frozenset(soft)

    def read(self, text: str) -> Reading:
        """What ``text`` states, which items may match, and which it discloses (cached)."""
        found = self._reads.get(text)
        if found is None:
            if len(self._reads) >= _READS_KEPT:
                self._reads.clear()
            found = self._reads[text] = self._read(text)
        return found

    def clear_cache(self) -> None:
        """Forget the texts read (as if every message were new)."""
        self._reads.clear()
        self._asks.clear()

    def _read(self, text: str) -> Reading:
        s = self.said(text)
        if s is None:
            return Reading(None, frozenset(), frozenset(), ())
        vague, candidates = self._candidates(s)
        found = frozenset(
            r for r in candidates if discloses(s, self.items[r], vague, self.owns, self.rival)
        )
        if found:  # an aside's word, or another subject's, may put a value on something else
            subjects = _subjects_of(text)
            maybe = {
                r
                for r in found
                if not (
                    self.everyday.isdisjoint(subjects)
                    and self.other_subjects[r].isdisjoint(s.words)
                )
            }
            found -= {r for r in maybe if self._elsewhere(text, s, r)}
        if self.openers and "#" in text:  # "#Tobyhanna", the name that opens its value
            for tag in _HASHTAG.findall(text):
                ref = self.openers.get(tag.lower())
                if ref and ref not in found and about(s.words, self.items[ref]):
                    found, candidates = found | {ref}, candidates | {ref}
        return Reading(s, frozenset(candidates), found, vague)

    def _elsewhere(self, text: str, s: Said, ref: ItemRef) -> bool:
        """Whether every sentence that states the item's date or number is about something else.

        So it is when the message holds none of the item's words (bar what any amount is, "cost")
        and each such sentence names a subject of everyday life (:data:`EVERYDAY`), of work the
        scenario does not talk about (:data:`WORK_ASIDES`) or another of the scenario's subjects
        ("The radios arrived May 8" is not the grievance filed May 8; nor is "my sister's wedding
        is on May 8"). A name or code of the item always counts, except a name that only says
        whose the aside is ("the Houston marathon").
        """
        facts, whose = self.items[ref], _modifiers(text, self.everyday)
        mine = facts.subject_words & _long_stems(text) - {stem(w, 8) for w in whose}
        if (s.words & facts.subject) - _MONEY_WORDS and any(
            w[:5] not in _MONEY_WORDS for w in mine
        ):
            return False  # the item's own words ("complaining" is not "complications")
        stating = False
        for sentence in _SENTENCE_SPLIT.split(reading(text)):
            said = self.said(sentence) if sentence.strip() else None
            if said is None:
                continue
            vague, _ = self._candidates(said)
            if not discloses(said, facts, vague, self.owns, self.rival):
                continue
            stating = True
            hits = {k for alts in facts.keys for k in alts if k in said.keys or k in said.soft}
            hits = {k for k in hits if not set(k.removeprefix("w:").split()) <= whose}
            dated = all(k[:2] in ("d:", "y:") for k in hits if k in said.keys)
            if (hits and not dated) or not (
                self.everyday & _subjects_of(sentence) or self._other_event(ref, said, hits)
            ):
                return False
        return stating

    def _other_event(self, ref: ItemRef, said: Said, hits: set[str]) -> bool:
        """Whether the item's date is the date of another of the scenario's subjects.

        "The radios arrived May 8" beside the grievance filed May 8. Only a date: an amount
        beside another subject is often what the amount is for ("$310,000 in case we switch
        platforms").
        """
        facts = self.items[ref]
        return (
            any(k[:2] in ("d:", "y:") for k in hits)
            and not self.other_subjects[ref].isdisjoint(said.words)
            and not any(approx.same(a, x) for a in facts.numbers for x in said.numbers)
        )

    def disclosed(self, text: str) -> set[ItemRef]:
        """Items whose value ``text`` discloses (only plausible candidates are checked in full)."""
        return set(self.read(text).disclosed)

    def joined(
        self, before: str, text: str, first: Reading | None = None, second: Reading | None = None
    ) -> set[ItemRef]:
        """Items that two messages of one sender in a row disclose together and neither alone.

        A reader takes them as one text: "The IGCE is 4.1" then "million per year"; "Re the
        crew's shifts:" then "13 straight, 12 hours each". They are read with their atoms and
        words together, plus the atoms across the joint ("4.1" + "million"); only the items
        either one may match, or the joint does, are checked again. ``first`` and ``second``
        are :meth:`read` of the two texts when already known.
        """
        before, text = reading(before), reading(text)
        first, second = first or self.read(before), second or self.read(text)
        if first.said is None and second.said is None:
            return set()  # neither can state anything, nor can the two together
        joint = self._joint(before, text)
        pending = (first.candidates | second.candidates) - first.disclosed - second.disclosed
        parts = [r.said for r in (first, second) if r.said is not None]
        vague = first.vague + second.vague
        if joint is not None:
            extra, more = self._candidates(joint)
            parts, vague, pending = [*parts, joint], vague + extra, pending | more
        if not pending:
            return set()
        words = [
            r.said.words if r.said else frozenset(stems(t))
            for r, t in ((first, before), (second, text))
        ]
        merged = Said(
            frozenset().union(*(p.keys for p in parts)),
            tuple(x for p in parts for x in p.numbers),
            words[0] | words[1],
            frozenset().union(*(p.soft for p in parts)),
        )
        done = first.disclosed | second.disclosed
        return {
            r
            for r in pending - done
            if discloses(merged, self.items[r], vague, self.owns, self.rival)
        }

    def _joint(self, before: str, text: str) -> Said | None:
        """What the end of ``before`` and the start of ``text`` state only together.

        A number cut in two ("4." | "1 million", "$93," | "500", "thirty-" | "one percent"), a
        number and its scale ("4.1" | "million per year"), and bare numbers in a scale the other
        message states ("All figures in $M." | "IGCE: 4.1").
        """
        parts = []
        glued, head = before[-80:].rstrip(), text[:80].lstrip()
        cut = glued[-1:] in (".", ",") and glued[-2:-1].isdigit() and head[:1].isdigit()
        if cut or (glued[-1:] == "-" and head[:1].isalpha()):
            parts.append(f"{glued[-60:]}{head[:60]}")
        else:
            tail = before[-80:].rstrip(" .,;:!?")
            words = tail[-16:].split()  # none where the message is only punctuation
            last = words[-1].rsplit("-", 1)[-1].lower() if words else ""  # "forty-two"
            if words and (tail[-1].isdigit() or last in _NUMBER_ENDS):
                parts.append(f"{tail[-60:]} {text[:60]}")
        said = [approx.heard(p) for p in parts if self._may_state(p)]
        scaled = readings.together(before, text)
        if not said and not scaled:
            return None
        return Said(
            frozenset().union(*(x.keys for x in said)),
            tuple(n for x in said for n in x.numbers) + scaled,
            frozenset().union(*(x.words for x in said)),
            frozenset().union(*(x.soft for x in said)),
        )

    def _names_in(self, text: str) -> tuple[frozenset[str], frozenset[str]]:
        """Name keys said in any case: whole names, and single name words (soft).

        A name run together with another word ("CrestmarkREIT") is read as its words too.
        """
        words = words_of(text)
        if _LOWER_UPPER.search(text) and _CAMEL_ANY.search(text):
            text += " " + " ".join(re.sub(_CAMEL_CUT, " ", w) for w in _CAMEL_ANY.findall(text))
            words = words_of(text)
        heads = words & self.name_heads.keys()
        if not heads:
            return frozenset(), frozenset()
        whole, part = set(), set()
        low = text.lower()
        for head in heads:
            for seq, key, pattern in self.name_heads[head]:
                if len(seq) == 1:
                    part.add(key)
                elif words.issuperset(seq) and pattern.search(low):
                    whole.add(key)
        return frozenset(whole), frozenset(part)

    def _codes_in(self, text: str) -> frozenset[str]:
        """Item codes written in any case and with any separators ("ci 0457", "CI-0 4 5 7")."""
        if not self.codes or not _DIGIT.search(text):
            return frozenset()
        # A code's last digits stand in the text as they are, unless spaced out one by one.
        if not any(tail in text for tail in self.code_tails) and not _SPACED.search(text):
            return frozenset()
        low = text.lower()
        squashed = _NOT_ALNUM.sub("", low)
        return frozenset(
            key for plain, key, pattern in self.codes if plain in squashed and pattern.search(low)
        )

    def _candidates(self, s: Said) -> tuple[tuple[Atom, ...], set[ItemRef]]:
        """The spoken numbers that may be approximations, and the items worth checking."""
        vague = tuple(
            x for x in s.numbers if x.derived or (x.value, x.money, x.percent) not in self.values
        )
        candidates = set(self.wordy)
        for k in s.keys | s.soft if s.soft else s.keys:
            candidates |= self.by_key.get(k, set())
        for x in s.numbers:
            candidates |= self.by_number.get(x.value, set())
        for x in vague:
            candidates |= self._approximated(x, candidates)
        return vague, candidates

    def _may_state(self, text: str) -> bool:
        """Whether ``text`` may state a value: see :func:`~scenarios.values.may_state`.

        Fraction and time-unit words count only with the words their readings need: "quarter"
        without a numerator and "weeks" without "a", "an", "one" or "half" state nothing.
        """
        if _DIGIT.search(text):
            return True
        words = words_of(text)
        if self.triggers.isdisjoint(words):
            if "#" in text and (
                _CAMEL_RUN.search(text) is not None  # "#PlatformOrg"
                or any(t.lower() in self.openers for t in _HASHTAG.findall(text))
            ):
                return True
            joined = _CAMEL_ANY.findall(text) if _LOWER_UPPER.search(text) else ()
            return bool(joined) and not self.triggers.isdisjoint(
                words_of(" ".join(_CAMEL_CUT.sub(" ", w) for w in joined))
            )
        if not self.needs or not text.isascii():
            return True  # only ASCII text without digits splits into words as the readings do
        alone = {w for w in words & self.needs.keys() if words.isdisjoint(self.needs[w])}
        return not alone or not self.triggers.isdisjoint(words - alone)

    def _approximated(self, spoken: Atom, known: set[ItemRef]) -> set[ItemRef]:
        """Items with a number that ``spoken`` may approximate (besides those ``known``)."""
        if spoken.value is None:
            return set()
        kind, size = approx.dimension(spoken), _magnitude(spoken)
        kinds = [kind]
        if kind in ("money", "count") and abs(spoken.value) >= 100_000:
            kinds.append("count" if kind == "money" else "money")
        return {
            ref
            for k in kinds
            for low, high, ref, a in self.ranges.get(k, ())
            if low <= size <= high and ref not in known and approx.closeness(a, spoken)
        }

    def rival(self, facts: ItemFacts, item: Atom, spoken: Atom) -> bool:
        """Whether a hedged or approximate number is another item's rather than this one's.

        So it is when its sentence names another item the number is or approximates and none of
        this item's words, or more of that item's words while the number is as close to it.
        """
        near = sentence_words(spoken.sentence)
        if self.subjects.isdisjoint(near - facts.subject):
            return False  # the sentence names no other item
        mine = len(near & facts.subject)
        others = self._approximated(spoken, {facts.ref})
        others |= self.by_number.get(spoken.value, set()) - {facts.ref}
        if not others:
            return False
        off = _distance(item, spoken)
        for r in others:
            theirs = len(near & self.items[r].subject)
            if theirs and (not mine or (theirs > mine and self._nearest(r, spoken) <= off)):
                return True
        return False

    def _nearest(self, ref: ItemRef, spoken: Atom) -> float:
        f = self.items[ref]
        return min((_distance(a, spoken) for a in f.numbers + f.weak + f.approx), default=1.0)

    def owns(self, facts: ItemFacts, key: str, spoken: Atom) -> bool:
        """Whether a spoken number equal to the shared value ``key`` is this item's."""
        rivals = self.rivals.get(key)
        if not rivals:
            return True
        near = sentence_words(spoken.sentence)
        scores = {r: len(near & words) for r, words in rivals.items()}
        best = max(scores.values())
        return best > 0 and scores.get(facts.ref, 0) == best

    def requested(self, text: str, sender: int) -> set[ItemRef]:
        """Which of its targets a request sentence of ``text`` by agent ``sender`` asks for.

        A sentence, or one of its clauses, asks for an item when it is about the item and
        about no other agent's item more, so "what will Medicare reimburse per patient?" asks
        for the reimbursement figure, not for the per-patient cost.
        """
        found = self._asks.get((text, sender))
        if found is None:
            if len(self._asks) >= _READS_KEPT:
                self._asks.clear()
            out: set[ItemRef] = set()
            for sentence in request_sentences(reading(text)):
                if not self._asked(sentence, sender, out):
                    continue  # no target is near the whole sentence, so none is near a clause
                for piece in pieces(sentence)[1:]:
                    self._asked(piece, sender, out)
            found = self._asks[(text, sender)] = frozenset(out)  # a text asked again: once
        return set(found)

    def _asked(self, piece: str, sender: int, out: set[ItemRef]) -> bool:
        """Add to ``out`` the targets ``piece`` asks for; False if no target is near it."""
        # "Audit Manager, could you…" names a person, not a topic.
        words = stems(piece) - self.role_words
        if words.isdisjoint(self.target_words[sender]):
            return False
        # Only items sharing a word with the sentence can score above 0.
        near: dict[ItemRef, ItemFacts] = {}
        for w in words & self.by_word[sender].keys():
            near.update(self.by_word[sender][w])
        low = piece.lower()
        asked, wh = cues(low), focus(low)
        best = max((topic_score(words, asked, wh, f, f.topic) for f in near.values()), default=0)
        for ref, topics in self.targets[sender].items():
            score = max(topic_score(words, asked, wh, self.items[ref], t) for t in topics)
            if score > 0 and score >= best:
                out.add(ref)
        return True


def _subjects_of(text: str) -> frozenset[str]:
    """The words of ``text`` that may name a subject, with the phrase "on leave"."""
    words = words_of(text)
    return words | {"on leave"} if "leave" in words and _ON_LEAVE.search(text) else words


def _modifiers(text: str, asides: frozenset[str]) -> frozenset[str]:
    """The words, in lower case, of the names right before an aside's word.

    "The Maple Avenue lobby": the name says whose the lobby is, not that it is about the item.
    """
    tokens = list(_TOKEN.finditer(text))
    out: set[str] = set()
    for i, m in enumerate(tokens):
        if m[0] not in asides:  # lower case only: a capitalised aside word is a name itself
            continue
        while (
            i and tokens[i - 1][0][0].isupper() and text[tokens[i - 1].end() : m.start()].isspace()
        ):
            i, m = i - 1, tokens[i - 1]
            out.update(m[0].lower().split("-"))
    return frozenset(out)


def _long_stems(text: str) -> frozenset[str]:
    """Stems of the content words of ``text`` without the cut to five letters (up to eight)."""
    return frozenset(stem(w, 8) for w in words_of(reading(text)) if len(w) > 1)


def _aliases(scenario: Scenario, agent: int) -> dict[ItemRef, set[frozenset[str]]]:
    """The agent's own wording of its targets, as extra topics for matching its questions."""
    post = scenario.agents[agent].post_interaction_knowledge
    res = scenario.resolution
    texts = post.desired_knowledge + post.cannot_know_knowledge
    refs = res.desired[agent] + res.cannot_know[agent]
    return {
        ref: {frozenset(w for w in stems(t.split(":")[0]) if not w.isdigit())}
        for t, ref in zip(texts, refs, strict=True)
        if ref
    }


def _keys(atom: Atom, public: frozenset[str], others: str) -> tuple[str, ...]:
    """The keys that identify a strong atom; name parts only if not public and in no other value.

    A date also matches without its year ("September 14" for 2026-09-14).
    """
    if atom.kind == "date":
        return (atom.key, "y:" + atom.key[7:])
    if atom.kind == "code":
        return _code_keys(atom)
    if atom.kind != "name":
        return (atom.key,)
    parts = tuple(
        a
        for a in atom.alts
        if a not in public and not re.search(rf"\b{re.escape(a[2:])}\b", others)
    )
    if re.search(rf"\b{re.escape(atom.key[2:])}\b", others):
        return parts  # a name another value also mentions identifies nothing (its own parts may)
    if not atom.alts and atom.key[2:] in _PLACE_WORDS:
        return ()  # "Room" of "Room 2B-417" names no one thing
    return (atom.key, *parts)


def _code_keys(atom: Atom) -> tuple[str, ...]:
    """A code's key and its short forms.

    The key without leading zeros ("CI-457" for CI-0457), and its tails from a letter on
    ("CV-3318" of 26-CV-3318, "C-5820" of ODI-C-5820) that hold three digits.
    """
    keys = [
        atom.key,
        "c:" + re.sub(r"[^A-Za-z0-9]", "", re.sub(r"(?<!\d)0+(?=\d)", "", atom.text)).upper(),
    ]
    groups = re.split(r"[-./\s]+", atom.text)
    for i in range(1, len(groups)):
        tail = "".join(groups[i:])
        if re.search(r"[A-Za-z]", tail) and len(re.sub(r"\D", "", tail)) >= 3:
            keys.append("c:" + re.sub(r"[^A-Za-z0-9]", "", tail).upper())
    return tuple(dict.fromkeys(keys))


def _code_pattern(plain: str) -> re.Pattern[str]:
    """A code's letters and digits in order, with separators (or none) between any of them."""
    return re.compile(r"(?<![a-z0-9])" + _CODE_GAP.join(plain) + r"(?![a-z0-9])")


def _trivial(a: Atom) -> bool:
    """A small whole number written as a decimal ("2.0x leverage", "TLS 1.0") says little."""
    return (
        not (a.money or a.percent) and a.value is not None and a.value < 10 and a.value.is_integer()
    )


def _distance(item: Atom, spoken: Atom) -> float:
    """How far a spoken number is from an item's, relatively (in days for durations)."""
    i, x = _magnitude(item), _magnitude(spoken)
    return abs(x - i) / abs(i) if i else float("inf")


def _magnitude(a: Atom) -> float:
    return a.days if a.days is not None else a.value or 0.0
