"""The env's ``render_mode="ansi"`` text: the transcript in judge format, coloured for a terminal.

Apart from :mod:`~sotopia_tom_env.render` (one safe line per message), which the transcript
itself uses: so the transcript and its rendering do not import each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from sotopia_tom_env.transcript import Message, Transcript

_DIM, _PRIVATE, _LEAVE, _RESET = "\x1b[2m", "\x1b[35m", "\x1b[33m", "\x1b[0m"


def render_text(transcript: Transcript, messages: Sequence[Message], header: bool = True) -> str:
    """The messages as judge-format lines, direct messages and leaves coloured.

    Message lines come from :meth:`Message.line`, so a message cannot carry terminal escapes
    or extra lines.

    Args:
        transcript: the episode's transcript (for the header).
        messages: the messages to render (all of them, or only the new ones).
        header: whether to start with the scenario header.
    """
    out = [f"{_DIM}{transcript.header()}{_RESET}"] if header else []
    for m in messages:
        color = _LEAVE if m.action_type == "leave" else _PRIVATE if m.recipients else ""
        out.append(f"{color}{m.line()}{_RESET if color else ''}")
    return "\n".join(out) + ("\n" if out else "")
