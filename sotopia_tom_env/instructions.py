"""How an agent replies: the action format as text, shared by the env and the prompted players.

One source, so the words an LLM reads in ``env.action_instructions(agent)`` are the ones the
prompted strategies append to their prompts (``policies.prompts``) and the ones the training
data was built with.
"""

from __future__ import annotations

from collections.abc import Sequence

REPLY_FORMAT = """Reply with one JSON object and nothing else. Its fields: "action_type" is "speak", "none" (stay silent) or "leave";
"argument" is what you say, in your own words; "to" lists the roles to message privately,
or is empty to speak to everyone. Possible recipients: {recipients}."""


def reply_format(recipients: Sequence[str]) -> str:
    """The reply format for an agent who may message ``recipients`` (role names).

    Example:
        >>> reply_format(["CFO", "Legal Counsel"]).endswith("Possible recipients: CFO, Legal Counsel.")
        True
    """
    return REPLY_FORMAT.format(recipients=", ".join(recipients))
