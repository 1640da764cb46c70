"""The banks the procedural generator draws from: sectors, decisions, roles and fact templates.

Each sector module (``healthcare``, ``finance``, ...) defines three constants:

* ``DECISIONS``: ``(clusters, text)`` pairs; ``text`` completes "whether to ..." and may hold
  ``{a|b}`` alternatives; ``clusters`` names the role clusters the decision involves ("A", "B"
  or "AB").
* ``ROLES``: :class:`Role` entries built with :func:`role`, each holding its fact templates.
* ``ORG_TAILS``: endings of the organisation names the sector's ``{org}`` placeholders get.

A fact line reads ``"Name | value template | hook"``; a leading ``!`` marks a naturally
sensitive fact (the generator makes those private first). The template's placeholders
(``{usd:2M-9M}``, ``{pct:4.0-9.9}``, ``{date}``, ``{code:INC}``, ``{person}``, ...) are filled
by :mod:`scenarios.generate.procedural`; the hook is a "how/what/whether ..." clause that
paraphrases the topic for primary objectives without naming it or stating a value.

Example:
    >>> bank = sector_bank("finance")
    >>> bank.name, len(bank.roles) >= 12
    ('finance', True)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

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
class Fact:
    """A fact template one role can hold."""

    name: str
    template: str
    hook: str
    sensitive: bool


@dataclass(frozen=True)
class Role:
    """A job in a sector: title variants, its cluster, domains, purpose and facts."""

    titles: tuple[str, ...]
    cluster: str
    domains: tuple[str, ...]
    purpose: str
    facts: tuple[Fact, ...]


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
    org_tails: tuple[str, ...]


def fact(line: str) -> Fact:
    """Parse ``"[!]Name | template | hook"`` into a :class:`Fact`.

    Example:
        >>> fact("!Audit finding | Finding {code:AF} is open | what the auditors flagged").sensitive
        True
    """
    name, template, hook = (part.strip() for part in line.split(" | "))
    return Fact(name.lstrip("!"), template, hook, name.startswith("!"))


def role(titles: str, cluster: str, domains: str, purpose: str, *facts: str) -> Role:
    """Build a :class:`Role` from compact text.

    Args:
        titles: title variants separated by ``" / "``.
        cluster: the role's cluster letter.
        domains: knowledge-domain keys separated by spaces (snake_case).
        purpose: what the role wants to do, as a lowercase verb phrase.
        *facts: fact lines (see :func:`fact`).

    Returns:
        The role.

    Example:
        >>> role("Plant Manager / Site Director", "A", "plant_operations", "run the plant").titles
        ('Plant Manager', 'Site Director')
    """
    return Role(
        tuple(t.strip() for t in titles.split(" / ")),
        cluster,
        tuple(domains.split()),
        purpose,
        tuple(fact(f) for f in facts),
    )


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
    return SectorBank(name, decisions, tuple(module.ROLES), tuple(module.ORG_TAILS))
