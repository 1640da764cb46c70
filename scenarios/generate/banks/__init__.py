"""The banks the procedural generator draws from: sectors, decisions, roles and subjects.

Each sector module (``healthcare``, ``finance``, ...) defines six constants:

* ``DECISIONS``: ``(clusters, text)`` pairs; ``text`` completes "whether to ..." and may hold
  ``{a|b}`` alternatives; ``clusters`` names the role clusters the decision involves ("A", "B"
  or "AB").
* ``UNITS``: lowercase places, teams or segments of the sector ("north campus"); they qualify
  item names and values and give titles their unit.
* ``TOPICS``: topic tag -> subject lines. A line reads ``"[!]kind[ range] | stem | gist"``:
  ``kind`` is a measure of :mod:`scenarios.generate.banks.frames` (cost, rate, count, date,
  offer, finding, people), ``range`` bounds its main value (``2M-9M``), ``stem`` is the noun
  phrase item names and values are built on, and ``gist`` paraphrases it for objectives
  without naming it. A leading ``!`` marks a naturally sensitive subject.
* ``ROLES``: :class:`Role` entries built with :func:`role`: title cores, cluster, domains,
  purposes, and the topics the role *holds* (its facts come from them) and *needs* (its
  desired items come from other agents' facts on them).
* ``THEMES``: topic -> criteria separated by ``" / "``: abstract concerns the goal line weighs
  ("patient flow / bed availability"), never the subject of an item, so the goal says what
  matters without naming what the agents must find out.
* ``ORG_TAILS``: endings of the organisation names the sector's ``{org}`` placeholders get.

Example:
    >>> bank = sector_bank("finance")
    >>> bank.name, len(bank.roles) >= 12, all(bank.by_topic[t] for r in bank.roles for t in r.needs)
    ('finance', True, True)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache, cached_property

SECTORS = (
    "healthcare",
    "technology",
    "defense",
    "finance",
    "education",
    "entertainment",
    "legal",
    "manufacturing",
)


@dataclass(frozen=True)
class Subject:
    """Something a role can know about, measured one way (see :mod:`.frames`)."""

    topic: str
    kind: str
    span: str
    stem: str
    gist: str
    sensitive: bool


@dataclass(frozen=True)
class Role:
    """A job in a sector: title cores, cluster, domains, purposes, held and needed topics."""

    functions: tuple[str, ...]
    cluster: str
    domains: tuple[str, ...]
    purposes: tuple[str, ...]
    holds: tuple[str, ...]
    needs: tuple[str, ...]


@dataclass(frozen=True)
class Decision:
    """A decision template and the role clusters it draws on."""

    clusters: str
    text: str


@dataclass(frozen=True)
class SectorBank:
    """Everything one sector offers the generator."""

    name: str
    decisions: tuple[Decision, ...]
    roles: tuple[Role, ...]
    units: tuple[str, ...]
    subjects: tuple[Subject, ...]
    org_tails: tuple[str, ...]
    themes: dict[str, tuple[str, ...]]

    @cached_property
    def by_topic(self) -> dict[str, tuple[Subject, ...]]:
        """The subjects of each topic."""
        out: dict[str, list[Subject]] = {}
        for s in self.subjects:
            out.setdefault(s.topic, []).append(s)
        return {t: tuple(v) for t, v in out.items()}


def subject(topic: str, line: str) -> Subject:
    """Parse ``"[!]kind[ range] | stem | gist"`` into a :class:`Subject`.

    Example:
        >>> subject("staffing", "!cost 2M-9M | agency nursing | temporary nursing labour")
        Subject(topic='staffing', kind='cost', span='2M-9M', stem='agency nursing', gist='temporary nursing labour', sensitive=True)
    """
    head, stem, gist = (part.strip() for part in line.split(" | "))
    kind, _, span = head.lstrip("!").partition(" ")
    return Subject(topic, kind, span.strip(), stem, gist, head.startswith("!"))


def role(
    cluster: str, functions: str, domains: str, purposes: str, *, holds: str, needs: str
) -> Role:
    """Build a :class:`Role` from compact text.

    Args:
        cluster: the role's cluster letter.
        functions: title cores separated by ``" / "`` (a title adds seniority and a unit).
        domains: knowledge-domain keys separated by spaces (snake_case).
        purposes: lowercase verb phrases separated by ``" / "``: what the role wants to do.
        holds: topics its facts come from, separated by spaces.
        needs: topics it wants to learn about from others, separated by spaces.

    Example:
        >>> role("A", "Plant Manager / Site Director", "plant_operations", "run the plant",
        ...      holds="output", needs="cost safety").needs
        ('cost', 'safety')
    """
    return Role(
        tuple(t.strip() for t in functions.split(" / ")),
        cluster,
        tuple(domains.split()),
        tuple(p.strip() for p in purposes.split(" / ")),
        tuple(holds.split()),
        tuple(needs.split()),
    )


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines() if line.strip()]


@cache
def sector_bank(name: str) -> SectorBank:
    """The bank of one sector (imported on first use, so ``import scenarios`` stays light).

    Raises:
        ValueError: if ``name`` is not one of :data:`SECTORS`.
    """
    if name not in SECTORS:
        raise ValueError(f"unknown sector {name!r}; expected one of {SECTORS}")
    module = importlib.import_module(f"scenarios.generate.banks.{name}")
    decisions = tuple(Decision(c, t) for c, t in module.DECISIONS)
    subjects = tuple(
        subject(topic, line) for topic, text in module.TOPICS.items() for line in _lines(text)
    )
    units = tuple(u.strip() for u in module.UNITS.split("/") if u.strip())
    themes = {t: tuple(x.strip() for x in text.split(" / ")) for t, text in module.THEMES.items()}
    return SectorBank(
        name, decisions, tuple(module.ROLES), units, subjects, tuple(module.ORG_TAILS), themes
    )
