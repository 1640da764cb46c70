"""Actions: the structured model and a parser that never raises on what an agent sends.

``step`` accepts, per agent, an :class:`AgentAction`, a plain dict, a sample of the action
space, or the raw string an LLM replied with (JSON, JSON inside prose, JSON in a code fence).
:func:`parse_action` turns any of these into a valid action for the sender. Anything malformed
becomes ``none`` and the reason is returned (naming the field at fault), so one bad reply never
breaks an episode.

Parsing is bounded whatever arrives: a raw reply longer than
:func:`~sotopia_tom_env.extraction.reply_char_limit` (16 x the message limit, at least 32,000
characters) is rejected before it is read, the JSON search is linear (see
:mod:`sotopia_tom_env.extraction`), ``to`` holds at most :data:`MAX_RECIPIENTS` entries of at
most :data:`MAX_NAME_CHARS` characters, and values are described in errors through a bounded
``reprlib`` view. Objects that raise while being read (a hostile ``__str__`` or ``__eq__``) are
reported as unreadable.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, create_model

from sotopia_tom_env.extraction import (
    ReplyError,
    clip,
    describe,
    first_json_object,
    reply_char_limit,
    reply_object,
    type_name,
)
from sotopia_tom_env.routing import AgentID, RecipientError, Roster
from sotopia_tom_env.spaces import ACTION_TYPES, has_control_chars

__all__ = [
    "MAX_NAME_CHARS",
    "MAX_RECIPIENTS",
    "NONE",
    "PARSED_NONE",
    "ActionError",
    "AgentAction",
    "ParsedAction",
    "action_model",
    "first_json_object",
    "parse_action",
    "reply_char_limit",
]

ActionType = Literal["none", "speak", "leave"]
MAX_RECIPIENTS = 64
"""Most entries ``to`` may hold (names, or bits of an action-space sample)."""
MAX_NAME_CHARS = 256
"""Longest recipient name read; role names are job titles."""
_FIELDS = ("action_type", "argument", "to")
_MAX_FIELDS_READ = 16  # an action has three fields; more are reported, not all listed


class AgentAction(BaseModel):
    """One turn of one agent. This model is also the structured-output schema sent to LLMs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action_type: ActionType = Field(
        description="'speak' to send a message, 'none' to stay silent this turn, "
        "'leave' to end your participation."
    )
    argument: str = Field(description="The message text for 'speak'; empty otherwise.")
    to: list[str] = Field(
        description="Recipients' role names for a private message; an empty list "
        "means public, seen by everyone."
    )

    @classmethod
    def speak(cls, text: str, to: list[str] | tuple[str, ...] = ()) -> AgentAction:
        """A message, public unless ``to`` names recipients."""
        return cls(action_type="speak", argument=text, to=list(to))

    @classmethod
    def none(cls) -> AgentAction:
        """Stay silent this turn."""
        return cls(action_type="none", argument="", to=[])

    @classmethod
    def leave(cls) -> AgentAction:
        """Leave the conversation."""
        return cls(action_type="leave", argument="", to=[])


NONE = AgentAction.none()


@functools.cache
def action_model(recipients: tuple[str, ...] | None, max_chars: int = 2000) -> type[BaseModel]:
    """An ``AgentAction`` schema for one agent, sent as the structured-output schema.

    With ``recipients``, ``to`` is limited to them (constrained decoding then rules out invented
    or misspelled names and the sender itself) and ``argument`` must not be empty. With ``None``
    (the paper's schema) ``to`` is free text that the env resolves or refuses. ``max_chars``
    bounds ``argument`` either way.

    Example:
        >>> schema = action_model(("Chef", "Waiter"), 300).model_json_schema()
        >>> schema["properties"]["to"]["items"]["enum"]
        ['Chef', 'Waiter']
        >>> action_model(None).model_json_schema()["properties"]["to"]["items"]["type"]
        'string'
    """
    free = recipients is None
    recipient = str if free or not recipients else Literal[recipients]  # type: ignore[valid-type]
    to_field = Field(description=AgentAction.model_fields["to"].description)
    if not free:
        to_field = Field(description=to_field.description, max_length=len(recipients))
    return create_model(
        "AgentAction",
        __config__=ConfigDict(extra="forbid"),
        __doc__=AgentAction.__doc__,
        action_type=(ActionType, AgentAction.model_fields["action_type"]),
        argument=(
            str,
            Field(
                description=AgentAction.model_fields["argument"].description,
                min_length=None if free else 1,
                max_length=max_chars,
            ),
        ),
        to=(list[recipient], to_field),
    )


class ParsedAction(BaseModel):
    """A validated action with recipients resolved to agent ids."""

    model_config = ConfigDict(frozen=True)

    action_type: ActionType
    argument: str = ""
    recipients: tuple[AgentID, ...] = ()


PARSED_NONE = ParsedAction(action_type="none")


class ActionError(ValueError):
    """Why an action was rejected (turned into ``none``)."""


def parse_action(
    raw: Any, sender: AgentID, roster: Roster, max_chars: int
) -> tuple[ParsedAction, str | None]:
    """Parse whatever an agent sent into a valid action; never raises.

    Args:
        raw: an ``AgentAction``, a dict, an action-space sample, a raw LLM string (or UTF-8
            bytes), or ``None``.
        sender: the acting agent's id.
        roster: the episode's participants.
        max_chars: the longest allowed message.

    Returns:
        ``(action, error)``: the action, or ``none`` with the reason it was rejected.

    Example:
        >>> from sotopia_tom_env.routing import Roster
        >>> r = Roster(["Chef", "Waiter"])
        >>> parse_action('{"action_type": "speak", "argument": "hi", "to": ["waiter"]}', "agent_0", r, 100)
        (ParsedAction(action_type='speak', argument='hi', recipients=('agent_1',)), None)
        >>> parse_action({"action_type": "speak", "argument": "hi", "to": 7}, "agent_0", r, 100)[1]
        "'to' must be a list of role names, got int 7"
    """
    try:
        fields, index_ok = _as_dict(raw, max_chars)
        return _validate(fields, sender, roster, max_chars, index_ok), None
    except (ActionError, ReplyError) as e:
        return PARSED_NONE, str(e)
    except Exception as e:  # a hostile object (raising __eq__, __len__...) must not end the episode
        return PARSED_NONE, (
            f"unreadable action: {type_name(e)} raised while reading a {type_name(raw)}"
        )


def _as_dict(raw: Any, max_chars: int) -> tuple[Mapping[Any, Any], bool]:
    """The action's fields, and whether ``action_type`` may be an index (not for LLM text)."""
    if raw is None:
        return {"action_type": "none"}, False
    if isinstance(raw, AgentAction):
        return dict(raw), False  # its fields as they are (no serialiser warnings)
    if isinstance(raw, str | bytes | bytearray):
        return reply_object(raw, max_chars), False
    if isinstance(raw, Mapping):
        return raw, True
    raise ActionError(
        f"unsupported action of type {type_name(raw)}; send a dict, JSON string or AgentAction"
    )


def _validate(
    d: Mapping[Any, Any], sender: AgentID, roster: Roster, max_chars: int, index_ok: bool
) -> ParsedAction:
    _check_fields(d)
    raw_kind = d.get("action_type")
    kind = _action_type(raw_kind, index_ok)
    if kind != "speak":
        return ParsedAction(action_type=kind)  # type: ignore[arg-type]
    text = _argument(d.get("argument", ""), max_chars)
    space_sample = index_ok and _is_int(raw_kind)  # then a list 'to' may hold 0/1 bits
    recipients = _recipients(d.get("to"), sender, roster, space_sample)
    return ParsedAction(action_type="speak", argument=text, recipients=recipients)


def _check_fields(d: Mapping[Any, Any]) -> None:
    n = len(d)
    keys = list(itertools.islice(iter(d), _MAX_FIELDS_READ))
    for k in keys:
        if not isinstance(k, str):
            raise ActionError(f"field names must be strings, got {describe(k)}")
    extra = sorted(str.__str__(k) for k in keys if k not in _FIELDS)
    if extra or n > len(keys):
        more = n - len(keys) + len(extra) - len(extra[:5])
        shown = [clip(k, 40) for k in extra[:5]]
        raise ActionError(
            f"unexpected field(s) {shown}{f' and {more} more' if more else ''}; "
            f"allowed: {list(_FIELDS)}"
        )


def _action_type(value: Any, index_ok: bool) -> str:
    if isinstance(value, str):
        kind = str.__str__(value)[:64].strip().lower()  # no action name is longer
        if kind not in ACTION_TYPES:
            raise ActionError(
                f"unknown action_type {clip(kind)!r}; expected one of {list(ACTION_TYPES)}"
            )
        return kind
    if index_ok and _is_int(value):
        index = int(value)
        if not 0 <= index < len(ACTION_TYPES):
            raise ActionError(
                f"action_type index {describe(index, typed=False)} is out of range "
                f"0..{len(ACTION_TYPES) - 1}"
            )
        return ACTION_TYPES[index]
    raise ActionError(f"action_type must be one of {list(ACTION_TYPES)}, got {describe(value)}")


def _is_int(value: Any) -> bool:
    """An integer, a numpy integer or a 0-d integer array; not a bool."""
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "iu"
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _argument(arg: Any, max_chars: int) -> str:
    if not isinstance(arg, str):
        raise ActionError(f"argument must be a string, got {type_name(arg)}")
    text = str.__str__(arg)
    if len(text) > 2 * max_chars + 1000:  # too long even after trimming: skip the copies
        raise ActionError(f"argument is {len(text)} characters; the limit is {max_chars}")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise ActionError("speak needs a non-empty argument")
    if len(text) > max_chars:
        raise ActionError(f"argument is {len(text)} characters; the limit is {max_chars}")
    if has_control_chars(text):
        raise ActionError("argument contains control characters")
    return text


def _recipients(
    to: Any, sender: AgentID, roster: Roster, space_sample: bool
) -> tuple[AgentID, ...]:
    if to is None or (isinstance(to, str) and not to):
        return ()
    if isinstance(to, str):
        to = [to]  # a lone name is a common LLM shorthand for a one-person list
    if isinstance(to, np.ndarray):
        names = _bit_names(_bit_list(to))
    elif isinstance(to, list | tuple):
        if len(to) > MAX_RECIPIENTS:
            raise ActionError(f"'to' has {len(to)} entries; at most {MAX_RECIPIENTS}")
        bits = space_sample and to and all(_is_integer(v) for v in to)
        names = _bit_names(to) if bits else list(to)
    else:
        raise ActionError(f"'to' must be a list of role names, got {describe(to)}")
    out: list[AgentID] = []
    for i, name in enumerate(names):
        aid = _resolve(i, name, sender, roster)
        if aid not in out:
            out.append(aid)
    return tuple(out)


def _bit_list(to: np.ndarray) -> list[Any]:
    """The entries of an action-space ``to`` vector (``MultiBinary``: bit i addresses agent_i)."""
    if to.ndim != 1 or to.dtype.kind not in "biu":
        raise ActionError(
            f"'to' array must be a 1-d vector of 0/1 integers (bit i addresses agent_i), "
            f"got shape {to.shape} dtype {to.dtype}"
        )
    if len(to) > MAX_RECIPIENTS:
        raise ActionError(f"'to' has {len(to)} entries; at most {MAX_RECIPIENTS}")
    return to.tolist()


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer | np.bool_)


def _is_bit(value: Any) -> bool:
    return _is_integer(value) and value in (0, 1)


def _bit_names(bits: Sequence[Any]) -> list[str]:
    for i, b in enumerate(bits):
        if not _is_bit(b):
            raise ActionError(f"to[{i}] must be a 0/1 bit, got {describe(b)}")
    return [f"agent_{i}" for i, b in enumerate(bits) if b]


def _resolve(i: int, name: Any, sender: AgentID, roster: Roster) -> AgentID:
    if not isinstance(name, str):
        raise ActionError(f"to[{i}] must be a role name string, got {describe(name)}")
    name = str.__str__(name)
    if len(name) > MAX_NAME_CHARS:
        raise ActionError(f"to[{i}] is {len(name)} characters; names are at most {MAX_NAME_CHARS}")
    if has_control_chars(name):
        raise ActionError(f"to[{i}] contains control characters: {clip(name)!r}")
    try:
        return roster.resolve(name, sender)
    except RecipientError as e:
        raise ActionError(str(e)) from None
