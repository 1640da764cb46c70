"""Resolve item references in policies and evaluation targets to the items agents hold.

Scenario files name items in three styles: the exact key of a ``pre_interaction_knowledge``
entry, ``"<key>: <value>"``, or a paraphrase of the value. Every reference is resolved against a
candidate set (an agent's own items for its sharing policy; the other agents' items for its
desired and cannot-know lists) by the first rule that gives exactly one answer:

1. **exact**: the reference equals a key;
2. **normalised**: equal after case-folding and collapsing spaces and punctuation;
3. **key prefix**: the reference starts with ``"<key>:"`` (the "name: value" style);
4. **substring**: one normalised string contains the other (both at least 8 characters);
   the longest such key wins;
5. **fuzzy**: rapidfuzz ``token_set_ratio`` of the reference against ``"<key>: <value>"`` is at
   least 80 and beats the runner-up by at least 5 points.

Desired and cannot-know references that match nothing among other agents are retried against
the agent's own items (the validator flags that as an error). What stays unmatched is listed in
:attr:`Resolution.unresolved`; nothing is guessed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

from rapidfuzz import fuzz, process, utils

if TYPE_CHECKING:
    from scenarios.schema import Scenario

RefField = Literal[
    "what_to_share", "what_not_to_share", "desired_knowledge", "cannot_know_knowledge"
]
FUZZY_MIN_SCORE = 80
FUZZY_MIN_MARGIN = 5
SUBSTRING_MIN_CHARS = 8


class ItemRef(NamedTuple):
    """An item as held: the owner's index in ``scenario.agents`` and the knowledge key.

    A named tuple (ordered, and hashed fast: judges keep sets of them for every message).
    """

    agent: int
    name: str


@dataclass(frozen=True)
class Unresolved:
    """A reference that matched no item."""

    agent: int
    field: RefField
    index: int
    text: str
    path: str


@dataclass
class Resolution:
    """Every policy and evaluation reference of a scenario, resolved (or ``None``).

    Each per-agent list is aligned with the list it resolves, e.g.
    ``desired[i][j]`` resolves ``agents[i].post_interaction_knowledge.desired_knowledge[j]``.
    """

    share: list[list[ItemRef | None]] = field(default_factory=list)
    not_share: list[list[ItemRef | None]] = field(default_factory=list)
    desired: list[list[ItemRef | None]] = field(default_factory=list)
    cannot_know: list[list[ItemRef | None]] = field(default_factory=list)
    rule: dict[tuple[int, str, int], str] = field(default_factory=dict)
    unresolved: list[Unresolved] = field(default_factory=list)

    def may_share(self, ref: ItemRef) -> bool:
        """True if the owner's what_to_share covers the item and what_not_to_share does not."""
        return ref in self.share[ref.agent] and ref not in self.not_share[ref.agent]

    def must_not_share(self, ref: ItemRef) -> bool:
        """True if the owner's what_not_to_share covers the item."""
        return ref in self.not_share[ref.agent]


def normalise(text: str) -> str:
    """Unicode NFKC, case-fold, and reduce punctuation runs and whitespace to single spaces.

    The one notion of "the same name" in the project: item references, role names in the
    validator and recipient lookup in the env all compare through it.

    Example:
        >>> normalise("Chief-Nursing  Officer") == normalise("ＣＨＩＥＦ nursing officer")
        True
    """
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


def resolve(scenario: Scenario) -> Resolution:
    """Resolve all references of ``scenario`` (see the module docstring for the rules)."""
    res = Resolution()
    own = [
        [ItemRef(i, k) for k in a.pre_interaction_knowledge] for i, a in enumerate(scenario.agents)
    ]
    texts = {
        ItemRef(i, k): f"{k}: {v.text}"
        for i, a in enumerate(scenario.agents)
        for k, v in a.pre_interaction_knowledge.items()
    }
    for i, agent in enumerate(scenario.agents):
        others = [r for j, refs in enumerate(own) if j != i for r in refs]
        pol = agent.goals.sharing_policy
        post = agent.post_interaction_knowledge
        lists: list[tuple[RefField, list[str], list[ItemRef], list[ItemRef]]] = [
            ("what_to_share", pol.what_to_share, own[i], []),
            ("what_not_to_share", pol.what_not_to_share, own[i], []),
            ("desired_knowledge", post.desired_knowledge, others, own[i]),
            ("cannot_know_knowledge", post.cannot_know_knowledge, others, own[i]),
        ]
        outs = (res.share, res.not_share, res.desired, res.cannot_know)
        for (fname, refs, cands, fallback), out in zip(lists, outs, strict=True):
            resolved = []
            for j, ref in enumerate(refs):
                hit, rule = match(ref, cands, texts)
                if hit is None and fallback:
                    hit, rule = match(ref, fallback, texts)
                resolved.append(hit)
                if hit is None:
                    res.unresolved.append(Unresolved(i, fname, j, ref, _path(i, fname, j)))
                else:
                    res.rule[(i, fname, j)] = rule
            out.append(resolved)
    return res


def _path(agent: int, fname: RefField, index: int) -> str:
    parent = "goals.sharing_policy" if fname.startswith("what") else "post_interaction_knowledge"
    return f"agents[{agent}].{parent}.{fname}[{index}]"


def match(
    ref: str, candidates: list[ItemRef], texts: dict[ItemRef, str]
) -> tuple[ItemRef | None, str]:
    """Match one reference against candidate items; returns ``(item or None, rule name)``."""
    if not candidates:
        return None, ""
    for c in candidates:
        if c.name == ref:
            return c, "exact"
    nref = normalise(ref)
    norm = {c: normalise(c.name) for c in candidates}
    rules = (
        ("normalised", [c for c in candidates if norm[c] == nref]),
        ("key prefix", _prefix_hits(ref, candidates)),
        ("substring", _substring_hits(nref, norm)),
    )
    for rule, hits in rules:
        if hits:
            return max(hits, key=lambda c: len(c.name)), rule
    return _fuzzy(ref, candidates, texts), "fuzzy"


def _prefix_hits(ref: str, candidates: list[ItemRef]) -> list[ItemRef]:
    head = ref.split(":", 1)[0] if ":" in ref else None
    if head is None:
        return []
    nhead = normalise(head)
    return [c for c in candidates if normalise(c.name) == nhead or ref.startswith(c.name + ":")]


def _substring_hits(nref: str, norm: dict[ItemRef, str]) -> list[ItemRef]:
    if len(nref) < SUBSTRING_MIN_CHARS:
        return []
    return [
        c for c, n in norm.items() if len(n) >= SUBSTRING_MIN_CHARS and (n in nref or nref in n)
    ]


def _fuzzy(ref: str, candidates: list[ItemRef], texts: dict[ItemRef, str]) -> ItemRef | None:
    choices = {c: texts[c] for c in candidates}
    top = process.extract(
        ref, choices, scorer=fuzz.token_set_ratio, processor=utils.default_process, limit=2
    )
    if not top or top[0][1] < FUZZY_MIN_SCORE:
        return None
    if len(top) > 1 and top[0][1] - top[1][1] < FUZZY_MIN_MARGIN:
        return None
    return top[0][2]
