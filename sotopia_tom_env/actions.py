"""Actions: the structured model and a parser that never raises on what an agent sends.

``step`` accepts, per agent, an :class:`AgentAction`, a plain dict, a sample of the action
space, or the raw string an LLM replied with (JSON, JSON inside prose, JSON in a code fence).
:func:`parse_action` turns any of these into a valid action for the sender. Anything malformed
becomes ``none`` and the reason is returned, so one bad reply never breaks an episode.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, create_model

from sotopia_tom_env.routing import AgentID, RecipientError, Roster
from sotopia_tom_env.spaces import ACTION_TYPES, has_control_chars

ActionType = Literal["none", "speak", "leave"]
_FIELDS = ("action_type", "argument", "to")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


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
def action_model(recipients: tuple[str, ...], max_chars: int = 2000) -> type[BaseModel]:
    """An ``AgentAction`` schema for one agent: ``to`` limited to its valid recipients.

    Sent as the structured-output schema, it lets constrained decoding rule out invented or
    misspelled names and the sender itself, and keeps messages short enough to finish.

    Example:
        >>> schema = action_model(("Chef", "Waiter"), 300).model_json_schema()
        >>> schema["properties"]["to"]["items"]["enum"]
        ['Chef', 'Waiter']
    """
    recipient = Literal[recipients] if recipients else str  # type: ignore[valid-type]
    return create_model(
        "AgentAction",
        __config__=ConfigDict(extra="forbid"),
        __doc__=AgentAction.__doc__,
        action_type=(ActionType, AgentAction.model_fields["action_type"]),
        argument=(
            str,
            Field(
                description=AgentAction.model_fields["argument"].description,
                min_length=1,
                max_length=max_chars,
            ),
        ),
        to=(
            list[recipient],
            Field(
                description=AgentAction.model_fields["to"].description, max_length=len(recipients)
            ),
        ),
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
    """Parse whatever an agent sent into a valid action.

    Args:
        raw: an ``AgentAction``, a dict, an action-space sample, a raw LLM string, or ``None``.
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
    """
    try:
        return _validate(_as_dict(raw, roster), sender, roster, max_chars), None
    except ActionError as e:
        return PARSED_NONE, str(e)


def _as_dict(raw: Any, roster: Roster) -> Mapping[str, Any]:
    if raw is None:
        return {"action_type": "none"}
    if isinstance(raw, AgentAction):
        return raw.model_dump()
    if isinstance(raw, str | bytes):
        return _from_text(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    if isinstance(raw, Mapping):
        return _from_space_sample(raw, roster) if _is_space_sample(raw) else raw
    raise ActionError(
        f"unsupported action of type {type(raw).__name__}; send a dict, JSON string or AgentAction"
    )


def _is_space_sample(d: Mapping[str, Any]) -> bool:
    return isinstance(d.get("action_type"), int | np.integer) or isinstance(d.get("to"), np.ndarray)


def _from_space_sample(d: Mapping[str, Any], roster: Roster) -> dict[str, Any]:
    kind = int(d.get("action_type", 0))
    if not 0 <= kind < len(ACTION_TYPES):
        raise ActionError(f"action_type index {kind} is out of range 0..{len(ACTION_TYPES) - 1}")
    bits = np.asarray(d.get("to", ()), dtype=np.int64).ravel()
    to = [f"agent_{i}" for i in np.flatnonzero(bits)]
    return {"action_type": ACTION_TYPES[kind], "argument": d.get("argument", ""), "to": to}


def _from_text(text: str) -> Mapping[str, Any]:
    text = text.strip()
    if not text:
        raise ActionError("empty reply; expected a JSON object with action_type, argument and to")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        obj = first_json_object(cand)
        if obj is not None:
            return obj
    raise ActionError(f"no valid JSON object found in reply: {_clip(text)!r}")


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first non-empty JSON object in ``text`` (prose or code fences around it allowed)."""
    decoder = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings are fine
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and obj:
            return obj
        start = text.find("{", start + 1)
    return None


def _validate(
    d: Mapping[str, Any], sender: AgentID, roster: Roster, max_chars: int
) -> ParsedAction:
    extra = sorted(set(map(str, d)) - set(_FIELDS))
    if extra:
        raise ActionError(f"unexpected field(s) {extra}; allowed: {list(_FIELDS)}")
    kind = d.get("action_type")
    if not isinstance(kind, str):
        raise ActionError(
            f"action_type must be one of {list(ACTION_TYPES)}, got {_clip(repr(kind))}"
        )
    kind = kind.strip().lower()
    if kind not in ACTION_TYPES:
        raise ActionError(
            f"unknown action_type {_clip(kind)!r}; expected one of {list(ACTION_TYPES)}"
        )
    if kind != "speak":
        return ParsedAction(action_type=kind)  # type: ignore[arg-type]
    text = _argument(d.get("argument", ""), max_chars)
    return ParsedAction(
        action_type="speak", argument=text, recipients=_recipients(d.get("to"), sender, roster)
    )


def _argument(arg: Any, max_chars: int) -> str:
    if not isinstance(arg, str):
        raise ActionError(f"argument must be a string, got {type(arg).__name__}")
    text = arg.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise ActionError("speak needs a non-empty argument")
    if len(text) > max_chars:
        raise ActionError(f"argument is {len(text)} characters; the limit is {max_chars}")
    if has_control_chars(text):
        raise ActionError("argument contains control characters")
    return text


def _recipients(to: Any, sender: AgentID, roster: Roster) -> tuple[AgentID, ...]:
    if to is None or to == "":
        return ()
    if isinstance(to, str):
        to = [to]  # a lone name is a common LLM shorthand for a one-person list
    if not isinstance(to, list | tuple):
        raise ActionError(f"'to' must be a list of role names, got {type(to).__name__}")
    out: list[AgentID] = []
    for i, name in enumerate(to):
        if not isinstance(name, str):
            raise ActionError(
                f"to[{i}] must be a role name string, got {type(name).__name__} {_clip(repr(name))}"
            )
        try:
            aid = roster.resolve(name, sender)
        except RecipientError as e:
            raise ActionError(str(e)) from None
        if aid not in out:
            out.append(aid)
    return tuple(out)


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "…"
