"""Rules around an LLM player's replies, read from the seat's brief alone: secrets out, public facts public.

A model that has learnt to share what it may also, now and then, copies a fact from its
must-not-share list into a message (the 135M student does so in about one episode in six on
scenarios it never trained on). The ``guard`` player option reads each reply as the rule judge
reads messages (:class:`rewards.judges.evidence.ScenarioIndex`), but over the seat's own facts
only, taken from its brief: every piece of the message (a sentence, or a part of a
"Name: value | Name: value" list) that states a must-not-share value is cut, and the rest is
sent. If what is left still states one (a value split over two pieces), or states one together
with the seat's previous message (as the judge reads two messages of a sender in a row:
"The IGCE is 4.1" | "million a year"), nothing is sent.

The ``channel`` option keeps the seat's public facts off its direct messages: the judge credits
a public fact only when every statement of it is public, and a small model that learnt to list
its facts in a direct message ("Sharing what I can: …") repeats there facts it already posted.
Each piece of a direct message that states only public facts the seat has already posted is
cut; when every piece states only public facts, the ones not posted yet go in public instead,
and a message that only repeated posted ones is not sent.

Both read nothing a seat cannot see, so a guarded player is still a player of the
benchmark; it is as good as the reader, so a leak the rule judge cannot read passes it too.
"""

from __future__ import annotations

import re

from rewards.judges.evidence import ScenarioIndex
from scenarios import AgentSpec, ItemRef, KnowledgeItem, Scenario
from scenarios.schema import Goals, SharingPolicy
from sotopia_tom_env.seat import SeatView

# Where a message splits into pieces that each say one thing: sentence ends and list bars.
_PIECES = re.compile(r"((?<=[.!?])\s+(?=\S)|\s+\|\s+|\n+)")


def seat_scenario(view: SeatView) -> Scenario:
    """A scenario holding what the seat knows: its own facts and rules; the others by role only."""
    seat = AgentSpec(
        agent_id=1,
        role=view.role,
        pre_interaction_knowledge={
            f.name: KnowledgeItem(value=f.text, sensitivity="private" if f.private else "public")
            for f in view.facts
        },
        goals=Goals(
            primary_objective=view.objective,
            sharing_policy=SharingPolicy(
                what_to_share=list(view.may_share), what_not_to_share=list(view.must_not)
            ),
        ),
    )
    others = [AgentSpec(agent_id=i, role=r) for i, r in enumerate(view.others, 2)]
    return Scenario(
        scenario_id="seat",
        scenario_goal=view.goal,
        knowledge_domain_map={d: list(who) for d, who in view.domains.items()},
        agents=[seat, *others],
    )


def _join(parts: list[str], keep: list[bool]) -> str:
    """The kept pieces of ``_PIECES.split(text)``, each after the separator before it."""
    kept = ""
    for k, piece in enumerate(parts[::2]):
        if keep[k] and piece.strip():
            kept += (parts[2 * k - 1] if kept else "") + piece
    return kept.strip()


class Guard:
    """Reads the seat's own facts in its replies: cuts its must-not-share values, routes its public ones.

    Args:
        view: the seat's view (its brief is all that is read).
    """

    def __init__(self, view: SeatView) -> None:
        public, _, never, _ = view.by_rule()
        self.secrets = {ItemRef(0, f.name) for f in never}
        self.public = {ItemRef(0, f.name) for f in public}
        self.index = ScenarioIndex(seat_scenario(view)) if view.facts else None

    def leaks(self, text: str, before: str | None = None) -> bool:
        """Whether ``text`` states one of the seat's must-not-share values.

        ``before``, the seat's previous message, is read together with it as well.
        """
        if self.index is None or not self.secrets:
            return False
        found = self.index.disclosed(text)
        if before:
            found |= self.index.joined(before, text)
        return bool(found & self.secrets)

    def clean(self, text: str, before: str | None = None) -> tuple[str, list[str]]:
        """``(what may be sent, the pieces cut)``; the first is empty when nothing may go.

        ``before`` is the seat's previous message, if any.
        """
        if not self.leaks(text, before):
            return text, []
        parts = _PIECES.split(text)  # piece, separator, piece, ...
        leaking = [self.leaks(piece) for piece in parts[::2]]
        kept = _join(parts, [not x for x in leaking])
        if kept and self.leaks(kept, before):
            return "", parts[::2]
        return kept, [p for p, x in zip(parts[::2], leaking, strict=True) if x]

    def route(self, text: str, posted: str) -> tuple[str, bool]:
        """A direct message with the seat's public facts kept off it: ``(what is sent, in public)``.

        ``posted`` is what the seat has said in public so far. The first is empty when nothing
        is left to send; the text comes back as it is when no piece of it states public facts
        alone.
        """
        if self.index is None or not self.public:
            return text, False
        parts = _PIECES.split(text)
        found = [self.index.disclosed(piece) for piece in parts[::2]]
        public = [bool(f) and f <= self.public for f in found]
        if not any(public):
            return text, False
        done = self.index.disclosed(posted) & self.public
        if all(p or not piece.strip() for p, piece in zip(public, parts[::2], strict=True)):
            return _join(parts, [bool(f - done) for f in found]), True
        # It says more: the public facts it posted already are cut (everyone read them there);
        # one not posted yet stays, since cutting it would keep it from its readers.
        return _join(
            parts, [not (p and f <= done) for p, f in zip(public, found, strict=True)]
        ), False
