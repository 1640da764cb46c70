"""A scripted chat client for tests: fixed replies, every request recorded."""

from __future__ import annotations

import copy
import inspect
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeGuard

from pydantic import BaseModel

from .client import ChatResult, ClientStats, LLMError, Message

__all__ = ["FakeChatClient", "Reply"]

ReplyFn: TypeAlias = Callable[[list[Message], type[BaseModel] | None], Any]
Reply: TypeAlias = str | dict[str, Any] | BaseModel | BaseException | type[BaseException] | ReplyFn
"""A scripted reply: text; a dict or model instance (sent as JSON); an exception to raise; or
a callable ``(messages, response_format) -> reply`` (sync or async) computing one of those."""


class FakeChatClient:
    """Answer chat calls from a script, in order, and record what was asked.

    Args:
        replies: A list of replies consumed one per call, or one callable used for every call.
            A reply is a string; a dict or pydantic instance (dumped as JSON); an exception
            instance or class (raised, so tests can exercise error paths); or a callable
            ``(messages, response_format) -> reply`` (sync or async).
        model: Name reported as ``model``.
        context_tokens: The context length it claims to serve (players fit their budgets to a
            small one); None, like a hosted endpoint, by default.
        truncate: Cut a reply longer than the call's ``max_tokens`` (counted in words) there,
            with finish reason ``"length"``, as a server does; off by default, so a script's
            replies come back whole.

    Attributes:
        requests: One dict per call, in order, with ``messages`` (a deep copy),
            ``response_format``, ``temperature``, ``max_tokens`` and the ``model`` asked for.

    Example:
        >>> import asyncio
        >>> fake = FakeChatClient(["hello", ValueError("boom")])
        >>> asyncio.run(fake.chat([{"role": "user", "content": "hi"}])).text
        'hello'
        >>> fake.requests[0]["messages"][0]["content"]
        'hi'
    """

    def __init__(
        self,
        replies: Sequence[Reply] | ReplyFn,
        *,
        model: str = "fake-model",
        context_tokens: int | None = None,
        truncate: bool = False,
    ) -> None:
        self.model = model
        self.context_tokens = context_tokens
        self.truncate = truncate
        self.stats = ClientStats()
        self.requests: list[dict[str, Any]] = []
        self._every: ReplyFn | None = replies if callable(replies) else None
        self._script: list[Reply] = [] if callable(replies) else list(replies)

    def with_model(self, model: str) -> FakeChatClient:
        """A view asking for another model, sharing this script and request log."""
        view = copy.copy(self)  # the script and the request list are shared, not copied
        view.model, view.stats = model, ClientStats(parent=self.stats)
        return view

    @property
    def remaining(self) -> int:
        """Scripted replies not used yet (0 for a single callable)."""
        return len(self._script)

    async def chat(
        self,
        messages: list[Message],
        *,
        response_format: type[BaseModel] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Record the request and return (or raise) the next scripted reply.

        Raises:
            LLMError: When the script has run out, or a reply is an :class:`LLMError`.
            Exception: Whatever exception the script holds for this call.
        """
        self.requests.append(
            {
                "model": self.model,
                "messages": copy.deepcopy(messages),
                "response_format": response_format,
                "temperature": temperature,
                "max_tokens": max_tokens,
            }
        )
        try:
            text = await self._next_text(messages, response_format)
        except BaseException:
            self.stats.record_failure()
            raise
        text, finish = _within(text, max_tokens if self.truncate else None)
        result = ChatResult(
            text=text,
            prompt_tokens=sum(len(m.get("content", "").split()) for m in messages),
            completion_tokens=len(text.split()),
            latency_s=0.0,
            finish_reason=finish,
        )
        self.stats.record(result)
        return result

    async def _next_text(
        self, messages: list[Message], response_format: type[BaseModel] | None
    ) -> str:
        """Resolve the next reply to text, raising scripted exceptions."""
        reply = self._every if self._every is not None else self._pop()
        if callable(reply) and not _is_exception_class(reply):
            reply = reply(messages, response_format)
            if inspect.isawaitable(reply):
                reply = await reply
        if isinstance(reply, BaseException):
            raise reply
        if _is_exception_class(reply):
            raise reply()
        return _as_text(reply)

    def _pop(self) -> Reply:
        """Take the next scripted reply."""
        if not self._script:
            raise LLMError(
                "other",
                model=self.model,
                endpoint="FakeChatClient",
                attempts=1,
                detail=f"the script ran out of replies at request #{len(self.requests)}",
            )
        return self._script.pop(0)


def _within(text: str, max_tokens: int | None) -> tuple[str, str]:
    """The text cut after ``max_tokens`` words, and the finish reason a server would give."""
    words = list(re.finditer(r"\S+", text))
    if max_tokens is None or len(words) <= max_tokens:
        return text, "stop"
    return (text[: words[max_tokens - 1].end()] if max_tokens > 0 else ""), "length"


def _is_exception_class(value: object) -> TypeGuard[type[BaseException]]:
    return isinstance(value, type) and issubclass(value, BaseException)


def _as_text(reply: object) -> str:
    """Render a resolved reply as the text a model would send."""
    if isinstance(reply, str):
        return reply
    if isinstance(reply, BaseModel):
        return reply.model_dump_json()
    if isinstance(reply, dict | list):
        return json.dumps(reply)
    raise TypeError(f"FakeChatClient reply must be str, dict, model or exception, got {reply!r}")
