"""Gymnasium spaces of the environment: wide-charset text, the action dict and the observation.

Two small subclasses make the standard spaces fit free text:

* :class:`UnicodeText` accepts any printable text (gymnasium's ``Text`` only accepts its sampling
  charset, by default alphanumerics), while sampling from a compact printable charset.
* :class:`ActionSpace` is a ``Dict`` whose ``sample(mask)`` takes the flat ``action_mask`` the
  observation carries (PettingZoo's tests pass that array straight to ``sample``).
"""

from __future__ import annotations

import re
import string
from typing import Any

import numpy as np
from gymnasium import spaces

ACTION_TYPES = ("none", "speak", "leave")
"""Action types in ``action_mask`` / ``action_type`` index order."""

SAMPLE_CHARSET = "".join(
    dict.fromkeys(string.ascii_letters + string.digits + string.punctuation + " \n" + "éüßçñ€£—→·%")
)
"""Characters random samples are drawn from (any printable text is *accepted*)."""

MAX_OBSERVATION_CHARS = 1 << 18

_FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def has_control_chars(text: str) -> bool:
    """True if ``text`` holds control characters other than newline and tab, or lone surrogates."""
    return _FORBIDDEN.search(text) is not None


class UnicodeText(spaces.Text):
    """A ``Text`` space that contains every printable string within its length bounds."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        """Any ``str`` of allowed length without control characters."""
        return (
            isinstance(x, str)
            and self.min_length <= len(x) <= self.max_length
            and not has_control_chars(x)
        )


class ActionSpace(spaces.Dict):
    """``{"action_type": Discrete(3), "argument": text, "to": MultiBinary(n)}``.

    ``to`` bit *i* addresses ``agent_i``; all zeros means public. ``sample(mask)`` accepts the
    observation's flat ``action_mask``: the first three entries allow none/speak/leave, the rest
    allow each recipient.
    """

    def __init__(self, n_agents: int, max_message_chars: int, seed: Any = None) -> None:
        super().__init__(
            {
                "action_type": spaces.Discrete(len(ACTION_TYPES)),
                "argument": UnicodeText(max_message_chars, min_length=1),
                "to": spaces.MultiBinary(n_agents),
            },
            seed=seed,
        )

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        """Sample an action; with a flat ``action_mask`` only allowed types and recipients."""
        if mask is None or isinstance(mask, dict):
            return super().sample(mask=mask, probability=probability)
        mask = np.asarray(mask, dtype=np.int8)
        k = len(ACTION_TYPES)
        recipients = np.where(mask[k:] == 1, 2, 0).astype(np.int8)  # 2 = free to be 0 or 1
        return super().sample(mask={"action_type": mask[:k], "argument": None, "to": recipients})


def observation_space(n_agents: int) -> spaces.Dict:
    """``{"text": prompt-ready text, "action_mask": MultiBinary(3 + n_agents)}``."""
    return spaces.Dict(
        {
            "text": UnicodeText(MAX_OBSERVATION_CHARS),
            "action_mask": spaces.MultiBinary(len(ACTION_TYPES) + n_agents),
        }
    )
