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
disclosure.

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

__all__ = ["ItemFacts", "ScenarioIndex", "discloses", "request_sentences"]


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
        raw = {
            ItemRef(i, name): (a.role, item)
            for i, a in enumerate(scenario.agents)
            for name, item in a.pre_interaction_knowledge.items()
        }
        public = public_context_keys(scenario)
        holders: dict[str, set[ItemRef]] = {}
        for ref, (_, item) in raw.items():
            for key in {x.key for x in atoms(item.text)} - public:
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
        # Each numeric atom's range of possible approximations, by dimension, to find candidates.
        self.ranges: dict[str, list[tuple[float, float, ItemRef, Atom]]] = {}
        for ref, f in self.items.items():
            for a in f.numbers + f.weak + f.approx:
                if a.value:
                    size = abs(_magnitude(a))
                    low, high = (
                        _magnitude(a) - size * approx.REACH,
                        _magnitude(a) + size * approx.REACH,
                    )
                    self.ranges.setdefault(approx.dimension(a), []).append((low, high, ref, a))
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
        texts = [item.text for _, item in raw.values()]
        plain = frozenset().union(*map(trigger_words, texts))
        readings = approx.trigger_words(texts)
        self.triggers = plain | readings
        # Words that only an approximate reading needs, and what that reading needs besides.
        self.needs = {w: approx.COMPANIONS[w] for w in readings - plain if w in approx.COMPANIONS}

    def _facts(
        self, raw: dict, ref: ItemRef, public: frozenset[str], holders: dict, common: frozenset
    ) -> ItemFacts:
        role, item = raw[ref]
        own = [x for x in atoms(item.text) if x.key not in public]
        # A name or code another value holds too identifies nothing when the item has others.
        unique = [x for x in own if len(holders[x.key]) == 1]
        named = [x for x in (unique or own) if x.kind != "number"]
        others = " ".join(it.text for r, (_, it) in raw.items() if r != ref).lower()
        keys = [_keys(x, public, others) for x in named if x.strong]
        numbers = [x for x in own if x.kind == "number"]
        return ItemFacts(
            ref=ref,
            owner=role,
            private=item.sensitivity == "private",
            keys=tuple(k for k in keys if k),
            numbers=tuple(x for x in numbers if x.strong),
            weak=tuple(x for x in numbers if not x.strong),
            approx=approx.item_approx(item.text),
            partial=approx.partial_keys(item.text),
            shared=frozenset(x.key for x in numbers if len(holders[x.key]) > 1),
            cues=kinds(own),
            answers=answers(own),
            topic=self._topic(frozenset(stems(ref.name))),
            words=frozenset(w for w in stems(item.text) - common if not w.isdigit()),
            signature=frozenset(w for w in stems(ref.name) | stems(item.text) if not w.isdigit()),
        )

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

    def disclosed(self, text: str) -> set[ItemRef]:
        """Items whose value ``text`` discloses (only plausible candidates are checked in full)."""
        if not self._may_state(text):
            if not self.wordy:
                return set()
            s = Said(frozenset(), (), frozenset(stems(text)))  # only word-level rules can match
        else:
            s = approx.heard(text)
        vague = tuple(
            x for x in s.numbers if x.derived or (x.value, x.money, x.percent) not in self.values
        )
        candidates = set(self.wordy)
        for k in s.keys:
            candidates |= self.by_key.get(k, set())
        for x in s.numbers:
            candidates |= self.by_number.get(x.value, set())
        for x in vague:
            candidates |= self._approximated(x, candidates)
        return {ref for ref in candidates if discloses(s, self.items[ref], vague, self.owns)}

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
        for sentence in request_sentences(text):
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
    if not atom.alts and re.search(rf"\b{re.escape(atom.key[2:])}\b", others):
        return ()  # a one-word name another value also mentions identifies nothing
    return (atom.key, *parts)


def _magnitude(a: Atom) -> float:
    return a.days if a.days is not None else a.value or 0.0
