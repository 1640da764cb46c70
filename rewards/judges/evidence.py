"""What a single message discloses and what it asks for, decided by rules (no LLM).

**Disclosure** is value-level. Each item's value is reduced to its checkable atoms (numbers,
money, percentages, dates, times, codes, names; see :mod:`scenarios.values`), leaving out atoms
everyone sees anyway (the goal, roles, domain and item names) and, when the item has atoms of its
own, atoms it shares with another item's value. A message discloses the item when

* it states one of the item's strong atoms: the same date, time, code or name (a distinctive
  part of a multi-word name is enough), or the same number in any format, or a rounded or
  hedged approximation of it within 5% ("about $180" for $182); or
* it states two of the item's weak (small, common) numbers; or
* it states one weak number either followed by the same unit words ("nine days") while the
  item has no strong atom, or while talking *about* the item (half the words of its name, or
  two words of its value besides numbers).

A value without any atom is disclosed when 60% of its words appear. Naming the topic is never
a disclosure.

**Inquiry** is a deliberate request: a sentence that ends in a question mark or carries a
request phrase ("could you", "please", "I'd like to know", …) and that is about the item: half
the words of its name, or one word of its name and one of its value, or two words of its
value, where a question word that fits the value's kind ("how long" for a duration, "how many"
for a count, "how much" for money, "when" for a date) counts as one word of the value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from scenarios import ItemRef, Scenario
from scenarios.values import (
    Atom,
    Said,
    approx_equal,
    atoms,
    may_state,
    public_context_keys,
    said,
    stems,
    trigger_words,
)

_REQUEST = re.compile(
    r"\b(?:could|can|would|will|might) (?:you|someone|the)\b|\bplease\b|\b(?:like|love|want|need|keen|hoping) to (?:know|hear|see|understand|learn|get)\b"
    r"|\bi(?:'d| would)?(?: really)? (?:need|want|like)\b|\bwe need\b|\bdo you (?:have|know)\b"
    r"|\blet (?:me|us) know\b|\bmay i ask\b|\b(?:request|requesting|wondering)\b|\bcurious\b|\btell (?:me|us)\b"
    r"|\bshare with (?:me|us)\b|\bappreciate (?:knowing|hearing|it if|a|the|your)\b|\bsend (?:me|us|over)\b",
)  # matched against a lower-cased sentence, like the cues below (faster than re.I)
_SENTENCE = re.compile(r"(?:[^.?!;\n]|\.(?=\d))+[.?!;\n]*")  # "7.1%" does not end a sentence
_DURATION_UNITS = {"day", "week", "month", "year", "hour", "minut", "quart"}  # unit stems
_KIND_CUES = (  # question phrases that say what kind of value is wanted
    (
        re.compile(r"\bhow long\b"),
        lambda a: a.kind == "number" and bool(a.context & _DURATION_UNITS),
    ),
    (
        re.compile(r"\bhow many\b|\bwhat number of\b"),
        lambda a: a.kind == "number" and not a.money,
    ),
    (re.compile(r"\bhow much\b"), lambda a: a.money),
    (
        re.compile(r"\bwhen\b|\bwhat date\b|\bby what date\b"),
        lambda a: a.kind in ("date", "month", "time"),
    ),
    (re.compile(r"\bwhat (?:percent|percentage|share|rate)\b"), lambda a: a.percent),
)


@dataclass(frozen=True)
class ItemFacts:
    """What the rule judge needs to know about one item."""

    ref: ItemRef
    owner: str
    private: bool
    keys: tuple[tuple[str, ...], ...]  # each strong non-numeric atom: its key and alternatives
    numbers: tuple[Atom, ...]  # strong numeric atoms, matched approximately
    weak: tuple[Atom, ...]  # weak numeric atoms
    cues: frozenset[int]  # indexes of the question kinds (_KIND_CUES) its value answers
    topic: frozenset[str]  # stems of the item name, role words removed when others remain
    words: frozenset[str]  # stems of the value that are not in any item name or the goal


@dataclass(frozen=True)
class _Shared:
    public: frozenset[str]  # atom keys everyone sees
    counts: dict[str, int]  # in how many values each atom key occurs
    common: frozenset[str]  # stems of item names and the goal


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
        counts: dict[str, int] = {}
        for _, item in raw.values():
            for key in {x.key for x in atoms(item.text)}:
                counts[key] = counts.get(key, 0) + 1
        shared = _Shared(
            public=public_context_keys(scenario),
            counts=counts,
            common=frozenset(
                {w for r in raw for w in stems(r.name)} | stems(scenario.scenario_goal)
            ),
        )
        self.items = {ref: self._facts(raw, ref, shared) for ref in raw}
        # A number that is exactly some item's strong value is that item's, not an approximation.
        self.values = frozenset(
            (x.value, x.money, x.percent) for f in self.items.values() for x in f.numbers
        )
        self.by_key: dict[str, set[ItemRef]] = {}
        self.by_number: dict[float | None, set[ItemRef]] = {}
        for ref, f in self.items.items():
            for k in (k for alts in f.keys for k in alts):
                self.by_key.setdefault(k, set()).add(ref)
            for x in f.numbers + f.weak:
                self.by_number.setdefault(x.value, set()).add(ref)
        self.numeric = [(ref, f) for ref, f in self.items.items() if f.numbers]
        self.wordy = {
            ref for ref, f in self.items.items() if not f.keys and not f.numbers and not f.weak
        }
        agents = range(len(scenario.agents))
        self.targets = [self._targets(i) for i in agents]
        self.by_word = [self._by_word(i) for i in agents]
        # A message that cannot state any value skips the costly atom extraction.
        self.triggers = frozenset().union(*(trigger_words(item.text) for _, item in raw.values()))

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

    def _facts(self, raw: dict, ref: ItemRef, shared: _Shared) -> ItemFacts:
        role, item = raw[ref]
        public, common = shared.public, shared.common
        own = [x for x in atoms(item.text) if x.key not in public]
        use = [x for x in own if shared.counts[x.key] == 1] or own
        others = " ".join(it.text for r, (_, it) in raw.items() if r != ref).lower()
        keys = [_keys(x, public, others) for x in use if x.strong and x.kind != "number"]
        return ItemFacts(
            ref=ref,
            owner=role,
            private=item.sensitivity == "private",
            keys=tuple(k for k in keys if k),
            numbers=tuple(x for x in use if x.strong and x.kind == "number"),
            weak=tuple(x for x in use if not x.strong),
            cues=frozenset(
                i for i, (_, fits) in enumerate(_KIND_CUES) if any(fits(a) for a in own)
            ),
            topic=self._topic(frozenset(stems(ref.name))),
            words=frozenset(w for w in stems(item.text) - common if not w.isdigit()),
        )

    def _topic(self, topic: frozenset[str]) -> frozenset[str]:
        """A topic without role words (which questions lose too), unless nothing else is left."""
        return (topic - self.role_words) or topic

    def disclosed(self, text: str) -> set[ItemRef]:
        """Items whose value ``text`` discloses (only plausible candidates are checked in full)."""
        if not may_state(text, self.triggers):
            if not self.wordy:
                return set()
            s = Said(frozenset(), (), frozenset(stems(text)))  # only word-level rules can match
        else:
            s = said(text)
        vague = tuple(x for x in s.numbers if (x.value, x.money, x.percent) not in self.values)
        candidates = set(self.wordy)
        for k in s.keys:
            candidates |= self.by_key.get(k, set())
        for x in s.numbers:
            candidates |= self.by_number.get(x.value, set())
        for ref, f in self.numeric if vague else ():
            if ref not in candidates and any(approx_equal(a, x) for a in f.numbers for x in vague):
                candidates.add(ref)
        return {ref for ref in candidates if discloses(s, self.items[ref], vague)}

    def requested(self, text: str, sender: int) -> set[ItemRef]:
        """Which of its targets a request sentence of ``text`` by agent ``sender`` asks for.

        A sentence asks for an item when it is about the item (module docstring) and about no
        other agent's item more, so "what will Medicare reimburse per patient?" asks for the
        reimbursement figure, not for the per-patient cost.
        """
        out: set[ItemRef] = set()
        for sentence in request_sentences(text):
            # "Audit Manager, could you…" names a person, not a topic.
            words = stems(sentence) - self.role_words
            # Only items sharing a word with the sentence can score above 0.
            near: dict[ItemRef, ItemFacts] = {}
            for w in words & self.by_word[sender].keys():
                near.update(self.by_word[sender][w])
            if not near:
                continue
            low = sentence.lower()
            cues = frozenset(i for i, (cue, _) in enumerate(_KIND_CUES) if cue.search(low))
            best = max(_topic_score(words, cues, f, f.topic) for f in near.values())
            for ref, topics in self.targets[sender].items():
                score = max(_topic_score(words, cues, self.items[ref], t) for t in topics)
                if score > 0 and score >= best:
                    out.add(ref)
        return out


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
    """The keys that identify a strong atom; name parts only if not public and in no other value."""
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


def _topic_score(
    words: set[str], cues: frozenset[int], facts: ItemFacts, topic: frozenset[str]
) -> float:
    """How much a sentence is about an item: 0 when it is not about it at all."""
    on_topic = len(words & topic)
    on_value = len(words & facts.words) + bool(cues & facts.cues)
    about = (
        on_topic >= max(1, math.ceil(len(topic) / 2)) or (on_topic and on_value) or on_value >= 2
    )
    return on_topic / max(len(topic), 1) + 0.5 * on_value if about else 0.0


@lru_cache(maxsize=65536)
def request_sentences(text: str) -> tuple[str, ...]:
    """The sentences of ``text`` that ask for something."""
    if "?" not in text and not _REQUEST.search(text.lower()):
        return ()  # most messages: one scan instead of one per sentence
    return tuple(s for s in _SENTENCE.findall(text) if "?" in s or _REQUEST.search(s.lower()))


def discloses(s: Said, facts: ItemFacts, vague: tuple[Atom, ...] | None = None) -> bool:
    """The disclosure rule of the module docstring.

    ``vague`` are the spoken numbers that may be approximations (all of them by default).
    """
    if any(any(k in s.keys for k in alts) for alts in facts.keys):
        return True
    if any(item.value == spoken.value for item in facts.numbers for spoken in s.numbers):
        return True
    spoken = s.numbers if vague is None else vague
    if any(approx_equal(item, x) for item in facts.numbers for x in spoken):
        return True
    if facts.weak:
        hits = [w for w in facts.weak if any(w.value == x.value for x in s.numbers)]
        with_unit = [
            w for w in hits if any(w.value == x.value and w.context & x.context for x in s.numbers)
        ]
        strongless = not facts.keys and not facts.numbers
        return len(hits) >= 2 or bool(hits and _about(s, facts)) or bool(with_unit and strongless)
    if not facts.keys and not facts.numbers and facts.words:
        return len(facts.words & s.words) >= 0.6 * len(facts.words)
    return False


def _about(s: Said, facts: ItemFacts) -> bool:
    return (
        len(s.words & facts.topic) >= max(1, math.ceil(len(facts.topic) / 2))
        or len(s.words & facts.words) >= 2
    )
