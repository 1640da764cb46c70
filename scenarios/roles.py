"""Rules for role names, shared by the validator and the env's recipient lookup.

A role is an agent's name and its direct-message address, and agents write it loosely ("finance
director", "Finance-Director"). So two roles are *the same name* when they are equal after
:func:`~scenarios.resolve.normalise` (NFKC, case-folding, punctuation and spacing collapsed), and
a scenario whose roles cannot be told apart that way cannot route messages reliably.

Example:
    >>> [p.rule for p in role_problems(["Chief Nursing Officer", "chief-nursing  officer"])]
    ['unique_roles']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from scenarios.resolve import normalise

MIN_AGENTS = 3
"""Fewest agents in a scenario (the benchmark's range is 3 to 5)."""
MAX_AGENTS = 5
"""Most agents in a scenario."""

_ID_LIKE = re.compile(r"agent \d+")
# Control, format (zero-width), surrogate, private-use and unassigned characters, and line or
# paragraph separators: invisible or line-breaking text in a name could forge transcript lines.
_BAD_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


@dataclass(frozen=True)
class RoleProblem:
    """Why the role of ``agents[index]`` is unusable."""

    index: int
    rule: str
    message: str


def role_problems(roles: Sequence[str]) -> list[RoleProblem]:
    """Every problem with a scenario's role names, in agent order.

    Rules: ``role_empty`` (blank, or no letter or digit), ``role_characters`` (control,
    zero-width or line-breaking characters), ``role_shadows_id`` (reads as an agent id such as
    "Agent 1", which the env also accepts as an address), ``unique_roles`` (the same name as an
    earlier role once normalised).
    """
    out = [p for i, r in enumerate(roles) if (p := _single(i, r)) is not None]
    first: dict[str, int] = {}
    for i, role in enumerate(roles):
        key = normalise(role)
        if not key:
            continue
        j = first.setdefault(key, i)
        if j != i:
            how = (
                "exactly" if role == roles[j] else "once case, spacing and punctuation are ignored"
            )
            msg = f"{role!r} and {roles[j]!r} (agents[{j}].role) are the same name {how}"
            out.append(RoleProblem(i, "unique_roles", msg))
    return out


def _single(i: int, role: str) -> RoleProblem | None:
    if not role.strip():
        return RoleProblem(i, "role_empty", "the role is empty")
    bad = sorted({f"U+{ord(c):04X}" for c in role if unicodedata.category(c) in _BAD_CATEGORIES})
    if bad:
        return RoleProblem(i, "role_characters", f"control or invisible characters {bad}")
    key = normalise(role)
    if not key:
        return RoleProblem(i, "role_empty", "the role has no letter or digit")
    if _ID_LIKE.fullmatch(key):
        return RoleProblem(i, "role_shadows_id", "reads as an agent id; use a job title")
    return None
