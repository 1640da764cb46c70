"""LLM clients: one small async protocol, several backends.

Every player and judge talks to a :class:`ChatClient`: ``await client.chat(messages,
response_format=Model)`` returns a :class:`ChatResult`. Backends: :class:`OpenAIChatClient`
(any OpenAI-compatible endpoint), :class:`VLLMServer` (a managed local vLLM server that hands
out such clients), :class:`TransformersChatClient` (in-process, batched) and
:class:`FakeChatClient` (scripted, for tests). Importing this package imports none of openai,
torch, transformers or vllm; each backend imports what it needs when used.
"""

from __future__ import annotations

from .client import ChatClient, ChatResult, ClientStats, LLMError, Message, response_format_payload
from .fake import FakeChatClient
from .hf import TransformersChatClient
from .models import DEFAULT_MODEL_NAME, default_model_dir, resolve_model
from .openai_client import OpenAIChatClient
from .schema import strict_json_schema
from .server import VLLMServer, serve

__all__ = [
    # The protocol
    "ChatClient",
    "ChatResult",
    "ClientStats",
    "LLMError",
    "Message",
    "response_format_payload",
    "strict_json_schema",
    # Backends
    "FakeChatClient",
    "OpenAIChatClient",
    "TransformersChatClient",
    "VLLMServer",
    "serve",
    # Models
    "DEFAULT_MODEL_NAME",
    "default_model_dir",
    "resolve_model",
]
