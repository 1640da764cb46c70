"""Which of the facts a seat has heard answer its objective, judged from the seat's view alone.

Scenarios written by others describe a seat's needs by purpose and area ("how much of any
payout our carrier would absorb"), not by the words of the needed item's name ("Insurance
coverage limit"), so word overlap cannot tell which heard fact a seat needs. This module scores
a heard fact against each part of the objective with sentence embeddings (all-MiniLM-L6-v2,
from the ``[embed]`` extra, offline), and adds how well the part points at the fact's holder:
its role and the knowledge domains the shared map gives it ("from the claims side", "the
actuary should tell me"). Every input is something the seat sees.

A fact is picked when its score for some part reaches :data:`THRESHOLD`, and each part also
picks its best fact, since every part of an objective was written for some need. The weights
were chosen on the Silver dev split (``silver-dev``): over its 264 seats this picks 83% of the
needed items among the facts others may share, 7.4 facts a seat at a precision of 0.39
(``python benchmarks/relevance.py silver-dev``; docs/players.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

WHO_WEIGHT = 0.5
"""Weight of the part-to-holder similarity (role and owned domains) added to part-to-fact."""
THRESHOLD = 0.4
"""Score at which a part picks a fact besides its best one."""


@dataclass(frozen=True)
class Heard:
    """A fact another participant stated: who said it, its name and what it said."""

    sender: str
    name: str
    text: str


class Relevance:
    """Scores heard facts against an objective's parts; vectors are cached by text.

    Args:
        encode: text -> unit-length vector. Texts are encoded one at a time, so a text gets
            the same vector whatever else is encoded with it (batches pad, which moves the
            last digits) and a pick never depends on the order the texts were first seen in.
    """

    def __init__(self, encode: Callable[[str], Any]) -> None:
        self.vector = functools.lru_cache(maxsize=1 << 16)(encode)

    def pick(
        self, parts: Sequence[str], heard: Sequence[Heard], holders: dict[str, str]
    ) -> list[Heard]:
        """The heard facts the objective's ``parts`` ask for, in the order they were heard.

        Args:
            parts: the objective's need clauses.
            heard: facts others stated.
            holders: sender role -> what the seat knows of it (role and owned domains).
        """
        if not parts or not heard:
            return []
        score = self.scores(parts, heard, holders)
        chosen = set(np.flatnonzero(score.max(axis=0) >= THRESHOLD)) | set(score.argmax(axis=1))
        return [h for k, h in enumerate(heard) if k in chosen]

    def scores(
        self, parts: Sequence[str], heard: Sequence[Heard], holders: dict[str, str]
    ) -> np.ndarray:
        """Part x fact scores: similarity to the fact's "name: value" plus the weighted holder's."""
        need = np.stack([self.vector(p) for p in parts])
        fact = np.stack([self.vector(f"{h.name}: {h.text}") for h in heard])
        who = np.stack([self.vector(holders.get(h.sender, h.sender)) for h in heard])
        return need @ fact.T + WHO_WEIGHT * (need @ who.T)


@functools.cache
def default_relevance() -> Relevance:
    """The shared :class:`Relevance` on all-MiniLM-L6-v2 (loaded once per process).

    Raises:
        ImportError: the ``[embed]`` extra is not installed (the message says how).
    """
    from scenarios.embedding import MINILM, load_embedder

    _, model = load_embedder(MINILM)
    return Relevance(lambda text: model.encode([text], normalize_embeddings=True)[0])
