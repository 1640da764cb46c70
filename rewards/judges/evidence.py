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

**Inquiry** is decided in :mod:`rewards.judges.inquiry`; a request sentence (or one of its
clauses) asks for an item when it is about the item and about no other agent's item more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import Pattern
from typing import NamedTuple

from rewards.judges import approx
from rewards.judges.disclosure import discloses
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
    Atom,
    Said,
    atoms,
    public_context_keys,
    sentence_words,
    stems,
    trigger_words,
    words_of,
)

_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"[a-z0-9]+")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_SPACED = re.compile(r"\d[\s\-./_*`'#]+\d")
_READS_KEPT = 4096
_PERIOD = re.compile(r"c:(?:Q[1-4]|H[12]|[FC]Y\d{2}(?:\d{2})?)")
_CODE_GAP = r"[\s\-./_*`'#]*"
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
        self.name_heads = self._name_heads([r.name for r in raw])
        self.codes = self._code_patterns()
        self.code_tails = frozenset(re.findall(r"\d+", plain)[-1] for plain, _, _ in self.codes)
        self._reads: dict[str, Reading] = {}  # texts read, like the modules' text caches
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
        self.triggers = plain | readings
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
        )

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
        if whole or part or codes:
            s = Said(s.keys | whole | codes, s.numbers, s.words, s.soft | part)
        return s

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

    def _read(self, text: str) -> Reading:
        s = self.said(text)
        if s is None:
            return Reading(None, frozenset(), frozenset(), ())
        vague, candidates = self._candidates(s)
        found = frozenset(r for r in candidates if discloses(s, self.items[r], vague, self.owns))
        return Reading(s, frozenset(candidates), found, vague)

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
        return {r for r in pending - done if discloses(merged, self.items[r], vague, self.owns)}

    def _joint(self, before: str, text: str) -> Said | None:
        """What the end of ``before`` and the start of ``text`` state only together."""
        tail = before.rstrip(" .,;:!?")
        if not tail or not (
            tail[-1].isdigit() or tail[-12:].rsplit(None, 1)[-1].lower() in _NUMBER_ENDS
        ):
            return None
        joint = f"{tail[-60:]} {text[:60]}"
        return approx.heard(joint) if self._may_state(joint) else None

    def _names_in(self, text: str) -> tuple[frozenset[str], frozenset[str]]:
        """Name keys said in any case: whole names, and single name words (soft)."""
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
            return False
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
        out: set[ItemRef] = set()
        for sentence in request_sentences(reading(text)):
            if not self._asked(sentence, sender, out):
                continue  # no target is near the whole sentence, so none is near a clause
            for piece in pieces(sentence)[1:]:
                self._asked(piece, sender, out)
        return out

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


def _code_pattern(plain: str) -> re.Pattern[str]:
    """A code's letters and digits in order, with separators (or none) between any of them."""
    return re.compile(r"(?<![a-z0-9])" + _CODE_GAP.join(plain) + r"(?![a-z0-9])")


def _trivial(a: Atom) -> bool:
    """A small whole number written as a decimal ("2.0x leverage", "TLS 1.0") says little."""
    return (
        not (a.money or a.percent) and a.value is not None and a.value < 10 and a.value.is_integer()
    )


def _magnitude(a: Atom) -> float:
    return a.days if a.days is not None else a.value or 0.0
