"""Which model the application talks to: a hosted or already-running endpoint, or a local server."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def chat_client(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    log_path: str | Path | None = None,
    max_concurrency: int = 16,
    server_args: Sequence[str] = (),
    served_name: str | None = None,
    episodes: int | None = None,
) -> Iterator[Any]:
    """A chat client for the duration of the block.

    With ``base_url`` the client talks to that OpenAI-compatible endpoint (``model`` is the
    served name; the key comes from ``api_key`` or ``$OPENAI_API_KEY``). Without it a local vLLM
    server is started for ``model`` (the embedded SmolLM2-135M-Instruct when ``None``) and
    stopped when the block ends; ``server_args`` go to that server (e.g. LoRA adapters to load),
    which serves the model as ``served_name`` (default: the folder's name), with a KV cache
    sized for ``episodes`` in flight (default: ``max_concurrency``; one episode needs the
    smallest cache, which a CPU server sets up several times faster: docs/performance.md).
    """
    from sotopia_tom_env.llm import OpenAIChatClient, VLLMServer

    if base_url:
        if not model:
            raise ValueError("--base-url needs --model (the name the endpoint serves)")
        key = api_key or os.environ.get("OPENAI_API_KEY", "EMPTY")
        yield OpenAIChatClient(model, base_url, api_key=key, max_concurrency=max_concurrency)
        return
    with VLLMServer(
        model=model,
        log_path=log_path,
        extra_args=server_args,
        episodes=episodes or max_concurrency,
        served_name=served_name,
    ) as server:
        yield server.client(max_concurrency=max_concurrency)
