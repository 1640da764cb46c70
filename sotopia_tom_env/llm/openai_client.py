"""Chat client for any OpenAI-compatible endpoint (OpenAI, a local vLLM server, …).

Requests run concurrently up to ``max_concurrency``; each attempt has a deadline; timeouts,
connection errors, cut-off response bodies, HTTP 5xx, 408 and 429 are retried with exponential
backoff and jitter (a server's ``Retry-After`` is honoured up to 30 s); other 4xx errors fail at
once. A call that fails for good raises :class:`LLMError`. Credentials in the endpoint URL
(``user:password@``, ``?api_key=``) never reach an error message or an ``httpx``/``openai`` log
line: both go through :func:`~.client.redact`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from pydantic import BaseModel

from .client import (
    ChatResult,
    ClientStats,
    ErrorKind,
    LLMError,
    Message,
    install_log_redaction,
    redact,
    response_format_payload,
)

__all__ = ["OpenAIChatClient"]

# 5xx, plus these: 408 is a timeout, 429 a rate limit; any other 4xx would fail again.
_RETRY_STATUS = frozenset({408, 429})
_MAX_WAIT_S = 30.0  # cap of the exponential backoff and of a server's Retry-After
# The loggers that print request URLs (httpx, or httpx2 for openai>=3, at INFO; the SDK at DEBUG).
_URL_LOGGERS = ("httpx", "httpx2", "openai", "openai._base_client")

_INSTALL_HINT = (
    'pip install "sotopia-tom-env[llm]"  (or: pip install "openai>=1.40" "tenacity>=8.2")'
)


class OpenAIChatClient:
    """Async chat client on ``openai.AsyncOpenAI`` with bounded concurrency and retries.

    Args:
        model: Model name as the endpoint knows it (vLLM: its ``--served-model-name``).
        base_url: Endpoint root, e.g. ``http://127.0.0.1:8000/v1``; None for api.openai.com.
            A query string (``?api-version=…``) is sent with every request.
        api_key: API key; vLLM accepts any value unless started with ``--api-key``.
        max_concurrency: Most requests in flight at once from this client.
        timeout_s: Deadline of one attempt, in seconds.
        max_retries: Retries after the first attempt (so ``max_retries + 1`` attempts at most).
        backoff_s: First backoff wait; it doubles each retry (capped at 30 s), plus jitter;
            a longer ``Retry-After`` (or ``retry-after-ms``) from the server wins, up to 30 s.
        extra_body: Extra JSON fields sent with every request (e.g. vLLM's ``top_k``).
        http_client: An ``httpx.AsyncClient`` (``httpx2`` for openai>=3) to send through;
            tests pass one with a mock transport.
        context_tokens: The context length the endpoint serves the model with, when known (a
            local :class:`~.server.VLLMServer` says); players fit their budgets to a small one.

    Example:
        >>> client = OpenAIChatClient("SmolLM2-135M-Instruct", "http://127.0.0.1:8000/v1")
        >>> client.stats.calls
        0
    """

    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key: str = "EMPTY",
        max_concurrency: int = 16,
        timeout_s: float = 120,
        max_retries: int = 3,
        *,
        backoff_s: float = 0.5,
        extra_body: dict[str, Any] | None = None,
        http_client: Any = None,
        context_tokens: int | None = None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.max_concurrency = max_concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.extra_body = dict(extra_body or {})
        self.route: str | None = None  # the served name requests go to when not ``model``
        self.context_tokens = context_tokens
        self.stats = ClientStats()
        self._http_client = http_client
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._semaphore: asyncio.Semaphore | None = None
        install_log_redaction(_URL_LOGGERS)

    @property
    def endpoint(self) -> str:
        """The base URL requests go to, with any credentials in it replaced by ``***``."""
        return redact(self.base_url or "https://api.openai.com/v1", (self.api_key,))

    def __repr__(self) -> str:
        return f"OpenAIChatClient(model={self.model!r}, base_url={self.endpoint!r})"

    def with_model(self, model: str) -> OpenAIChatClient:
        """The same endpoint, connection and concurrency limit, asking for another served model.

        A LoRA adapter served next to its base model is such a model.
        """
        view = copy.copy(self)  # shares the HTTP client and the semaphore: one limit for both
        view.model, view.route, view.stats = model, None, ClientStats(parent=self.stats)
        return view

    def routed(self, served: str) -> OpenAIChatClient:
        """The same client, still named ``model``, sending its requests to ``served``.

        A local server with LoRA adapters serves its base model through a zero adapter
        (``policies.trained`` says why), while records keep the base model's name.
        """
        view = copy.copy(self)
        view.route = served
        return view

    async def chat(
        self,
        messages: list[Message],
        *,
        response_format: type[BaseModel] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Send one chat request, retrying transient failures.

        Args:
            messages: The conversation, oldest first.
            response_format: A pydantic model class; sent as a strict ``json_schema``.
            temperature: Sampling temperature; None leaves the server's default.
            max_tokens: Cap on generated tokens; None leaves the server's default.

        Returns:
            The reply text with token usage and latency (retries included).

        Raises:
            LLMError: After the last attempt fails, or at once on a non-retryable error.
            ValueError: When ``response_format`` cannot be expressed in strict mode.
        """
        request = self._request(messages, response_format, temperature, max_tokens)
        start = time.perf_counter()
        try:
            result = await self._with_retries(request, start)
        except LLMError:
            self.stats.record_failure()
            raise
        self.stats.record(result)
        return result

    def _request(
        self,
        messages: list[Message],
        response_format: type[BaseModel] | None,
        temperature: float | None,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        """Build the keyword arguments of ``chat.completions.create``."""
        request: dict[str, Any] = {"model": self.route or self.model, "messages": messages}
        if response_format is not None:
            request["response_format"] = response_format_payload(response_format)
        if temperature is not None:
            request["temperature"] = temperature
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        if self.extra_body:
            request["extra_body"] = self.extra_body
        return request

    async def _with_retries(self, request: dict[str, Any], start: float) -> ChatResult:
        """Run attempts under tenacity until one succeeds or retries run out."""
        try:
            import tenacity
        except ImportError as exc:
            raise ImportError(f"OpenAIChatClient needs tenacity: {_INSTALL_HINT}") from exc
        retrying = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            wait=_RetryAfterOr(
                tenacity.wait_exponential(multiplier=self.backoff_s, max=_MAX_WAIT_S)
                + tenacity.wait_random(0, self.backoff_s)
            ),
            retry=tenacity.retry_if_exception(self._is_retryable),
            before_sleep=lambda _state: self.stats.record_retry(),
            reraise=True,
        )
        attempts = 0
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    return await self._attempt(request, start)
        except Exception as exc:
            error = self._error(exc, attempts)
            # The cause's own text can hold an echoed URL or header: chain it only when clean.
            clean = redact(str(exc), (self.api_key,)) == str(exc)
            raise error from (exc if clean else None)
        raise AssertionError("unreachable: tenacity either returns or raises")

    async def _attempt(self, request: dict[str, Any], start: float) -> ChatResult:
        """One request under the concurrency bound and the per-attempt deadline."""
        client, semaphore = self._bind_loop()
        async with semaphore:
            response = await asyncio.wait_for(
                client.chat.completions.create(**request, timeout=self.timeout_s),
                timeout=self.timeout_s,
            )
        return self._result(response, start)

    def _result(self, response: Any, start: float) -> ChatResult:
        """Turn an OpenAI chat completion into a :class:`ChatResult`."""
        choices = getattr(response, "choices", None)
        if not choices or choices[0].message is None or choices[0].message.content is None:
            raise _InvalidResponse(f"no message content in response: {response!r:.300}")
        usage = getattr(response, "usage", None)
        return ChatResult(
            text=choices[0].message.content,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            latency_s=time.perf_counter() - start,
            finish_reason=choices[0].finish_reason,
        )

    def _bind_loop(self) -> tuple[Any, asyncio.Semaphore]:
        """Create the SDK client and semaphore for the running event loop.

        Both hold loop-bound state (connection pool, waiters), so a client reused under a new
        ``asyncio.run`` gets fresh ones instead of failing with "attached to a different loop".
        """
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            try:
                import openai
            except ImportError as exc:
                raise ImportError(f"OpenAIChatClient needs openai: {_INSTALL_HINT}") from exc
            # The SDK's own default client closes itself from __del__ on whatever loop runs
            # then, which fails noisily ("Event loop is closed") for a pool of a finished
            # loop; a plain one with the same defaults is simply dropped.
            http_client = self._http_client or openai.DefaultAsyncHttpxClient()
            base_url, query = _split_query(self.base_url)
            self._client = openai.AsyncOpenAI(
                api_key=self.api_key,
                base_url=base_url,
                default_query=query or None,
                max_retries=0,  # retries are ours, with our backoff and our accounting
                timeout=self.timeout_s,
                http_client=http_client,
            )
            self._semaphore = asyncio.Semaphore(self.max_concurrency)
            self._loop = loop
        assert self._semaphore is not None
        return self._client, self._semaphore

    @staticmethod
    def _is_retryable(exc: BaseException) -> bool:
        """Whether a failed attempt is worth another try."""
        kind, status = _classify(exc)
        if kind == "http":
            return status is not None and (status >= 500 or status in _RETRY_STATUS)
        # A cut-off body is a broken transfer; an empty but complete reply would come again.
        return kind in ("timeout", "connection") or isinstance(exc, json.JSONDecodeError)

    def _error(self, exc: BaseException, attempts: int) -> LLMError:
        """Wrap the last exception of a call into an :class:`LLMError`."""
        if isinstance(exc, LLMError):
            return exc
        kind, status = _classify(exc)
        detail = f"no reply within {self.timeout_s} s" if kind == "timeout" else None
        return LLMError(
            kind,
            model=self.model,
            endpoint=self.endpoint,
            cause=exc,
            status_code=status,
            attempts=attempts,
            detail=detail,
            secrets=(self.api_key,),
        )

    async def aclose(self) -> None:
        """Close the underlying HTTP connections."""
        if self._client is not None:
            await self._client.close()
            self._client = None


class _InvalidResponse(ValueError):
    """The server answered 200 but without usable content."""


def _classify(exc: BaseException) -> tuple[ErrorKind, int | None]:
    """Map an exception from the SDK (or asyncio) to an error kind and HTTP status."""
    if isinstance(exc, _InvalidResponse):
        return "invalid_response", None
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "timeout", None
    try:
        import openai
    except ImportError:
        return "other", None
    if isinstance(exc, openai.APITimeoutError):
        return "timeout", None
    if isinstance(exc, openai.APIConnectionError):
        return "connection", None
    if isinstance(exc, openai.APIStatusError):
        return "http", exc.status_code
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return "invalid_response", None
    return "other", None


class _RetryAfterOr:
    """A tenacity wait: the backoff, or the server's ``Retry-After`` if longer (capped)."""

    def __init__(self, backoff: Any) -> None:
        self.backoff = backoff

    def __call__(self, retry_state: Any) -> float:
        wait = float(self.backoff(retry_state))
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        return max(wait, min(_retry_after_s(exc), _MAX_WAIT_S))


def _retry_after_s(exc: BaseException | None) -> float:
    """Seconds the server asked to wait (``retry-after-ms`` or ``Retry-After``), else 0."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return 0.0
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers.get(name, "")) * scale)
        except ValueError:  # absent, or an HTTP date: fall back to the backoff
            continue
    return 0.0


def _split_query(base_url: str | None) -> tuple[str | None, dict[str, str]]:
    """Move a base URL's query string into parameters the SDK adds to every request.

    The SDK appends paths to the base URL as text, which would put them after the query.
    """
    if not base_url or "?" not in base_url:
        return base_url, {}
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(query="", fragment="")), dict(parse_qsl(parts.query))
