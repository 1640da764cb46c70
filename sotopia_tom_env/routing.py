"""Who is who, how recipients are addressed, and who may see a message.

Agents are stable ids ``agent_0 … agent_{k-1}`` in scenario order; their role names are what
the text shows. A recipient may be written as its id or its role name, with case, spacing and
punctuation forgiven ("finance  director" finds "Finance Director"). Visibility is the single
rule of the benchmark: a message is seen by its sender, by its listed recipients, and by
everyone when it has no recipients (public).
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz, process

from scenarios.resolve import normalise
from scenarios.roles import role_problems

AgentID = str


def agent_ids(n: int) -> list[AgentID]:
    """The stable ids of an ``n``-agent episode."""
    return [f"agent_{i}" for i in range(n)]


class RecipientError(ValueError):
    """A ``to`` entry that names nobody in the episode, or the sender itself."""


class Roster:
    """The participants of one episode: ids, roles and name lookup."""

    def __init__(self, roles: Sequence[str]) -> None:
        """Index the roles of one episode.

        Raises:
            ValueError: if two roles are the same name once normalised, or a role is empty,
                holds control characters or reads as an agent id (``scenarios.roles`` rules).
        """
        problems = role_problems(roles)
        if problems:
            detail = "; ".join(f"agents[{p.index}].role: {p.message}" for p in problems)
            raise ValueError(f"roles {list(roles)!r} cannot address agents unambiguously: {detail}")
        self.roles = list(roles)
        self.ids = agent_ids(len(roles))
        self.role_of = dict(zip(self.ids, self.roles, strict=True))
        self.index_of = {a: i for i, a in enumerate(self.ids)}
        # Ids and roles share one normalised namespace; role_problems rules out clashes, so an
        # exact spelling (the common case, looked up first to skip normalising) means the same.
        self._exact = {**{a: a for a in self.ids}, **{r: a for a, r in self.role_of.items()}}
        self._lookup = {normalise(name): aid for name, aid in self._exact.items()}

    def resolve(self, name: str, sender: AgentID) -> AgentID:
        """The id addressed by ``name`` (a role name or an id, compared once normalised).

        Raises:
            RecipientError: for an unknown name (with the closest role as a hint) or the sender.
        """
        aid = self._exact.get(name) or self._lookup.get(normalise(name))
        if aid is None:
            raise RecipientError(
                f"unknown recipient {name!r}{self._hint(name, sender)}; valid: {self._valid(sender)}"
            )
        if aid == sender:
            raise RecipientError(f"{name!r} is the sender itself; leave it out of 'to'")
        return aid

    def _hint(self, name: str, sender: AgentID) -> str:
        # Only roles the sender may address: suggesting its own role would be a second error.
        others = [r for a, r in self.role_of.items() if a != sender]
        best = process.extractOne(name, others, scorer=fuzz.WRatio)
        return f" (did you mean {best[0]!r}?)" if best and best[1] >= 75 else ""

    def _valid(self, sender: AgentID) -> str:
        return ", ".join(repr(self.role_of[a]) for a in self.ids if a != sender)

    def describe(self) -> str:
        """``"Role A (agent_0), Role B (agent_1), …"``."""
        return ", ".join(f"{r} ({a})" for a, r in self.role_of.items())


def visible_to(viewer: AgentID, sender: AgentID, recipients: Sequence[AgentID]) -> bool:
    """The visibility rule: public, or the viewer sent it, or the viewer is a recipient."""
    return not recipients or viewer == sender or viewer in recipients
