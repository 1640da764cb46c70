"""What a trained player needs to be played as it was trained: its strategy and player options.

Each training stage writes ``sotopia_tom.json`` next to the weights it saves; ``trained:PATH``
reads it (:meth:`policies.trained.TrainedSpec.card`), so an adapter trained on the compact layout is prompted with
the compact layout without anyone having to remember it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from policies.trained import CARD


def write_card(out: Path, *, strategy: str, options: tuple[str, ...], stage: str,
               **extra: Any) -> Path:  # fmt: skip
    """Write the card of the player saved in ``out`` and return its path."""
    path = Path(out) / CARD
    card = {"strategy": strategy, "options": list(options), "stage": stage, **extra}
    path.write_text(json.dumps(card, indent=1) + "\n")
    return path
