"""The chat-client protocol shared by every player and judge.

A client turns a list of chat messages into a :class:`ChatResult`. Concrete clients live in
sibling modules: :mod:`.openai_client` (any OpenAI-compatible endpoint, including a local vLLM
server), :mod:`.hf` (in-process transformers) and :mod:`.fake` (scripted replies for tests).
Structured output is requested with a pydantic model class; the caller parses ``result.text``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
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
    "response_format_payload",
    "strict_json_schema",
]

Message = dict[str, str]
"""One chat message, e.g. ``{"role": "user", "content": "Hi"}``."""

ErrorKind = Literal["timeout", "http", "connection", "invalid_response", "other"]


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

    def record(self, result: ChatResult) -> None:
        """Add one successful call."""
        self.calls += 1
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens
        self.latency_s += result.latency_s

    def record_failure(self) -> None:
        """Add one call that failed for good (after its retries)."""
        self.failures += 1

    def record_retry(self) -> None:
        """Add one retried attempt."""
        self.retries += 1

    def as_dict(self) -> dict[str, float]:
        """Return the totals as a plain dict (for logs and reports)."""
        return asdict(self)


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
    ) -> None:
        self.kind = kind
        self.model = model
        self.endpoint = endpoint
        self.cause = cause
        self.status_code = status_code
        self.attempts = attempts
        reason = detail or (f"{type(cause).__name__}: {cause}" if cause else "no detail")
        status = f" (HTTP {status_code})" if status_code is not None else ""
        super().__init__(
            f"{kind}{status} calling model {model!r} at {endpoint} "
            f"after {attempts} attempt(s): {reason}"
        )


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
