"""The chat-client protocol shared by every player and judge.

A client turns a list of chat messages into a :class:`ChatResult`. Concrete clients live in
sibling modules: :mod:`.openai_client` (any OpenAI-compatible endpoint, including a local vLLM
server), :mod:`.hf` (in-process transformers) and :mod:`.fake` (scripted replies for tests).
Structured output is requested with a pydantic model class; the caller parses ``result.text``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from .schema import strict_json_schema

__all__ = [
    "ChatClient",
    "ChatResult",
    "ClientStats",
    "ErrorKind",
    "LLMError",
    "Message",
    "install_log_redaction",
    "redact",
    "response_format_payload",
    "strict_json_schema",
]

Message = dict[str, str]
"""One chat message, e.g. ``{"role": "user", "content": "Hi"}``."""

ErrorKind = Literal["timeout", "http", "connection", "invalid_response", "other"]

REDACTED = "***"
_SECRET_PARAM = r"(?:api[_-]?key|key|token|access[_-]?token|secret|client[_-]?secret|password|passwd|pwd|sig|signature|auth|code)"
_SECRET_PATTERNS = (
    # scheme://user:password@host -> scheme://***@host (the user name can be a key too).
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@'\"<>]+@", re.I), rf"\1{REDACTED}@"),
    # ?api_key=...&token=... -> the values only.
    (re.compile(rf"([?&;]{_SECRET_PARAM}=)[^&#\s'\"<>]+", re.I), rf"\1{REDACTED}"),
    # Authorization: Bearer x / 'authorization': 'Basic x' / api-key=x (headers, dict reprs).
    (
        re.compile(
            r"((?:proxy-)?authorization|x-api-key|api-key)(['\"]?\s*[:=]\s*['\"]?)"
            r"(?:(?:bearer|basic|token)\s+)?[^\s'\",;}]+",
            re.I,
        ),
        rf"\1\2{REDACTED}",
    ),
    (re.compile(r"\b(bearer|basic)\s+[a-z0-9._~+/=-]{8,}", re.I), rf"\1 {REDACTED}"),
)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Remove credentials from a URL, an error message or a log line.

    Hides the password (and user name) of ``scheme://user:password@host`` URLs, the values of
    query parameters that usually hold keys (``api_key``, ``key``, ``token``, ``sig``…), the
    values of ``Authorization``/``api-key`` headers and bearer or basic tokens, and any of
    ``secrets`` (e.g. the client's API key) wherever it appears. Everything else is kept, so
    the text still says which host and path failed.

    Args:
        text: The text to clean.
        secrets: Exact strings to hide too; empty values and placeholders shorter than 8
            characters (``"EMPTY"``) are ignored.

    Returns:
        The text with every credential replaced by ``***``.

    Example:
        >>> redact("https://bob:hunter2@api.example.com/v1?api_key=abc123&x=1")
        'https://***@api.example.com/v1?api_key=***&x=1'
        >>> redact("header Authorization: Bearer sk-0123456789")
        'header Authorization: ***'
    """
    for secret in secrets:
        if secret and len(secret) >= 8:
            text = text.replace(secret, REDACTED)
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class _RedactingFilter(logging.Filter):
    """Rewrites a log record's message with credentials removed (see :func:`redact`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def install_log_redaction(loggers: Iterable[str]) -> None:
    """Pass every record of the named loggers through :func:`redact` (idempotent).

    A logger's filters do not apply to its children, so name the loggers that emit.
    """
    for name in loggers:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _RedactingFilter) for f in logger.filters):
            logger.addFilter(_RedactingFilter())


class ChatResult(BaseModel):
    """One completed chat call.

    Attributes:
        text: The assistant's reply (JSON text when a ``response_format`` was given).
        prompt_tokens: Tokens in the prompt, as reported by the backend.
        completion_tokens: Tokens generated.
        latency_s: Wall-clock seconds the call took, retries included.
        finish_reason: ``"stop"``, ``"length"``… as reported by the backend, if known.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    finish_reason: str | None = None


@dataclass
class ClientStats:
    """Running totals of one client's calls.

    A client's view for another model (``with_model``) keeps its own totals with the client's
    as ``parent``, which counts the view's calls too: a run's totals (and its progress display)
    then include the calls of every model it asked.

    Example:
        >>> stats = ClientStats()
        >>> stats.record(ChatResult(text="hi", prompt_tokens=5, completion_tokens=1, latency_s=0.1))
        >>> stats.as_dict()["completion_tokens"]
        1
    """

    calls: int = 0
    failures: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    parent: ClientStats | None = field(default=None, repr=False, compare=False)

    def record(self, result: ChatResult) -> None:
        """Add one successful call."""
        self.calls += 1
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens
        self.latency_s += result.latency_s
        if self.parent is not None:
            self.parent.record(result)

    def record_failure(self) -> None:
        """Add one call that failed for good (after its retries)."""
        self.failures += 1
        if self.parent is not None:
            self.parent.record_failure()

    def record_retry(self) -> None:
        """Add one retried attempt."""
        self.retries += 1
        if self.parent is not None:
            self.parent.record_retry()

    def as_dict(self) -> dict[str, float]:
        """Return the totals as a plain dict (for logs and reports)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "parent"}


class LLMError(RuntimeError):
    """A chat call that failed for good.

    Attributes:
        kind: ``"timeout"``, ``"http"``, ``"connection"``, ``"invalid_response"`` or ``"other"``.
        model: The model the call was for.
        endpoint: Where it was sent (a base URL, or a description of an in-process backend).
        cause: The last underlying exception, if any (also set as ``__cause__`` when raised
            with ``raise ... from``).
        status_code: The HTTP status of the last attempt, for ``kind="http"``.
        attempts: How many attempts were made.

    The message and ``endpoint`` pass through :func:`redact` (plus ``secrets``), so an error
    can be printed, logged or saved without leaking the credentials of an endpoint URL.
    """

    def __init__(
        self,
        kind: ErrorKind,
        *,
        model: str,
        endpoint: str,
        cause: BaseException | None = None,
        status_code: int | None = None,
        attempts: int = 1,
        detail: str | None = None,
        secrets: Iterable[str | None] = (),
    ) -> None:
        secrets = tuple(secrets)
        self.kind = kind
        self.model = model
        self.endpoint = redact(endpoint, secrets)
        self.cause = cause
        self.status_code = status_code
        self.attempts = attempts
        reason = detail or (f"{type(cause).__name__}: {cause}" if cause else "no detail")
        status = f" (HTTP {status_code})" if status_code is not None else ""
        message = (
            f"{kind}{status} calling model {model!r} at {endpoint} "
            f"after {attempts} attempt(s): {reason}"
        )
        super().__init__(redact(message, secrets))


@runtime_checkable
class ChatClient(Protocol):
    """What players and judges need from an LLM backend.

    Attributes:
        model: The model name sent to (or loaded by) the backend.
        stats: Running call and token totals.
    """

    model: str
    stats: ClientStats

    async def chat(
        self,
        messages: list[Message],
        *,
        response_format: type[BaseModel] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Send one chat request.

        Args:
            messages: The conversation, oldest first.
            response_format: A pydantic model class the reply must be JSON for, or None for
                free text.
            temperature: Sampling temperature; None leaves the backend's default.
            max_tokens: Cap on generated tokens; None leaves the backend's default.

        Returns:
            The reply with token counts and latency.

        Raises:
            LLMError: When the call fails for good.
        """
        ...


def response_format_payload(model: type[BaseModel]) -> dict[str, Any]:
    """Build the OpenAI ``response_format`` value for a pydantic model.

    vLLM honours this form; its legacy ``guided_json`` request field is silently ignored by
    recent versions, so it is never sent.

    Args:
        model: The pydantic model class the reply must match.

    Returns:
        ``{"type": "json_schema", "json_schema": {"name", "schema", "strict": True}}``.

    Raises:
        ValueError: When the model cannot be expressed in strict mode (see
            :func:`strict_json_schema`).

    Example:
        >>> class Vote(BaseModel):
        ...     choice: str
        >>> response_format_payload(Vote)["json_schema"]["name"]
        'Vote'
    """
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in model.__name__)[:64]
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": strict_json_schema(model), "strict": True},
    }
