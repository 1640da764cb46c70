"""Scenario generation: a seeded procedural generator and the Silver set built with it.

The names below load on first use, so ``import scenarios`` does not read the banks and
``python -m scenarios.generate.procedural`` runs its module cleanly.

Example:
    >>> from scenarios import generate
    >>> s = generate.generate(1, seed=0, sector="finance")[0]
    >>> s.sector, len(s.agents)
    ('finance', 3)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarios.generate.banks import SECTORS
    from scenarios.generate.procedural import SILVER_SEED, Knobs, build_silver, generate

__all__ = ["SECTORS", "SILVER_SEED", "Knobs", "build_silver", "generate"]

_HOME = {name: "scenarios.generate.procedural" for name in __all__}
_HOME["SECTORS"] = "scenarios.generate.banks"


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)
