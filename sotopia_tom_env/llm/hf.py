"""In-process chat client on transformers, with automatic request batching.

For machines without vLLM, and for TRL, which needs the model in-process. Concurrent
``chat()`` calls (e.g. from ``asyncio.gather``) are queued and generated together in one
left-padded ``generate`` call of up to ``max_batch_size`` prompts, which is several times
faster per token than one at a time on CPU.

``response_format`` is *not* enforced here: the JSON schema is appended to the last message as
an instruction, and the model may still reply with invalid JSON (a 135M model often does).
Callers parse ``result.text`` leniently, as with any client. Use a vLLM server for
constrained decoding.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .client import ChatResult, ClientStats, LLMError, Message, strict_json_schema
from .models import resolve_model, served_model_name

__all__ = ["TransformersChatClient", "schema_instruction"]

_INSTALL_HINT = 'pip install torch==2.13.0 "transformers>=5.16.1,<5.20" gguf accelerate'


def schema_instruction(response_format: type[BaseModel]) -> str:
    """The text appended to the prompt to ask for JSON matching a model's schema.

    Example:
        >>> class Vote(BaseModel):
        ...     choice: str
        >>> schema_instruction(Vote).splitlines()[0]
        'Reply with only a JSON object that matches this JSON schema:'
    """
    schema = json.dumps(strict_json_schema(response_format), separators=(",", ":"))
    return f"Reply with only a JSON object that matches this JSON schema:\n{schema}"


@dataclass
class _Pending:
    """One queued request."""

    prompt: str
    temperature: float
    max_tokens: int
    future: asyncio.Future[ChatResult]
    start: float = field(default_factory=time.perf_counter)


class TransformersChatClient:
    """Chat with a local causal LM through transformers, batching concurrent calls.

    Args:
        model: None for the embedded default model, a model folder, or a Hugging Face id.
        device: Torch device, e.g. ``"cpu"`` or ``"cuda"``.
        max_batch_size: Most prompts generated together.
        batch_window_s: How long the first queued request waits for others to join its batch.
        dtype: Torch dtype name; default float32 on CPU, bfloat16 elsewhere.
        default_max_tokens: Token cap when a call gives no ``max_tokens``.
        default_temperature: Temperature when a call gives none (1.0 as the OpenAI API;
            0 means greedy decoding).

    Attributes:
        hf_model: The loaded transformers model (e.g. for TRL).
        tokenizer: Its tokenizer, set to left padding.

    Example:
        >>> client = TransformersChatClient()  # doctest: +SKIP
        >>> asyncio.run(client.chat([{"role": "user", "content": "Hi"}])).text  # doctest: +SKIP
        'Hello! How can I help you today?'
    """

    def __init__(
        self,
        model: str | None = None,
        device: str = "cpu",
        max_batch_size: int = 8,
        batch_window_s: float = 0.02,
        *,
        dtype: str | None = None,
        default_max_tokens: int = 512,
        default_temperature: float = 1.0,
    ) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size}")
        path = resolve_model(model)
        self.model = served_model_name(path)
        self.device = device
        self.max_batch_size = max_batch_size
        self.batch_window_s = batch_window_s
        self.default_max_tokens = default_max_tokens
        self.default_temperature = default_temperature
        self.stats = ClientStats()
        self.tokenizer, self.hf_model = _load(path, device, dtype)
        self._eos_ids = _eos_ids(self.hf_model, self.tokenizer)
        self._queue: asyncio.Queue[_Pending] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._worker: asyncio.Task[None] | None = None

    @property
    def endpoint(self) -> str:
        """A description of the backend, for error messages."""
        return f"transformers[{self.device}]"

    async def chat(
        self,
        messages: list[Message],
        *,
        response_format: type[BaseModel] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Queue one request and wait for its batch to be generated.

        Args:
            messages: The conversation, oldest first.
            response_format: A pydantic model class; its schema is appended to the prompt
                (not enforced).
            temperature: Sampling temperature; 0 for greedy.
            max_tokens: Cap on generated tokens.

        Returns:
            The reply with token counts; latency includes time waiting for the batch.

        Raises:
            LLMError: When generation fails (``kind="other"``).
        """
        pending = _Pending(
            prompt=self.format_prompt(messages, response_format),
            temperature=self.default_temperature if temperature is None else temperature,
            max_tokens=max_tokens or self.default_max_tokens,
            future=asyncio.get_running_loop().create_future(),
        )
        self._enqueue(pending)
        try:
            result = await pending.future
        except LLMError:
            self.stats.record_failure()
            raise
        self.stats.record(result)
        return result

    def format_prompt(
        self, messages: list[Message], response_format: type[BaseModel] | None = None
    ) -> str:
        """Render messages with the model's chat template, ready for generation."""
        if response_format is not None:
            last = dict(messages[-1])
            last["content"] = f"{last['content']}\n\n{schema_instruction(response_format)}"
            messages = [*messages[:-1], last]
        return self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )

    def _enqueue(self, pending: _Pending) -> None:
        """Add a request and make sure a worker task is draining the queue."""
        loop = asyncio.get_running_loop()
        if self._queue is None or self._loop is not loop:
            # Queues and tasks belong to one event loop; a new asyncio.run gets new ones.
            self._queue, self._loop, self._worker = asyncio.Queue(), loop, None
        self._queue.put_nowait(pending)
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._drain())

    async def _drain(self) -> None:
        """Generate batches until the queue is empty, then end (no idle task left behind)."""
        assert self._queue is not None
        while not self._queue.empty():
            if self._queue.qsize() < self.max_batch_size:
                await asyncio.sleep(self.batch_window_s)  # let concurrent callers join
            batch = [self._queue.get_nowait()]
            while len(batch) < self.max_batch_size and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            for temperature in sorted({p.temperature for p in batch}):
                await self._run([p for p in batch if p.temperature == temperature])

    async def _run(self, group: list[_Pending]) -> None:
        """Generate one batch (same temperature) in a thread and resolve its futures."""
        try:
            outputs = await asyncio.to_thread(
                self._generate,
                [p.prompt for p in group],
                group[0].temperature,
                max(p.max_tokens for p in group),
            )
        except Exception as exc:
            error = LLMError("other", model=self.model, endpoint=self.endpoint, cause=exc)
            for pending in group:
                if not pending.future.done():
                    pending.future.set_exception(error)
            return
        for pending, (prompt_tokens, new_ids) in zip(group, outputs, strict=True):
            if not pending.future.done():
                pending.future.set_result(self._result(pending, prompt_tokens, new_ids))

    def _generate(
        self, prompts: list[str], temperature: float, max_new_tokens: int
    ) -> list[tuple[int, list[int]]]:
        """Run one left-padded ``generate``; per prompt, its token count and the new ids."""
        import torch

        batch = self.tokenizer(
            prompts, return_tensors="pt", padding=True, add_special_tokens=False
        ).to(self.device)
        sampling: dict[str, Any] = (
            {"do_sample": True, "temperature": temperature}
            if temperature > 0
            else {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        )
        with torch.inference_mode():
            output = self.hf_model.generate(
                **batch,
                max_new_tokens=max_new_tokens,
                pad_token_id=self.tokenizer.pad_token_id,
                **sampling,
            )
        width = batch["input_ids"].shape[1]
        prompt_lengths = batch["attention_mask"].sum(dim=1).tolist()
        return [
            (int(n), row[width:].tolist()) for n, row in zip(prompt_lengths, output, strict=True)
        ]

    def _result(self, pending: _Pending, prompt_tokens: int, new_ids: list[int]) -> ChatResult:
        """Cut one row at its first end-of-sequence token (or its own cap) and decode it."""
        stop = next((i for i, t in enumerate(new_ids) if t in self._eos_ids), None)
        if stop is not None and stop < pending.max_tokens:
            kept, completion, reason = new_ids[:stop], stop + 1, "stop"
        else:
            kept = new_ids[: pending.max_tokens]
            completion, reason = len(kept), "length"
        return ChatResult(
            text=self.tokenizer.decode(kept, skip_special_tokens=True),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion,
            latency_s=time.perf_counter() - pending.start,
            finish_reason=reason,
        )


def _load(path: str, device: str, dtype: str | None) -> tuple[Any, Any]:
    """Load tokenizer (left padding) and model (eval mode) onto a device."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise ImportError(
            f"TransformersChatClient needs torch and transformers: {_INSTALL_HINT}"
        ) from exc
    torch_dtype = getattr(torch, dtype or ("float32" if device == "cpu" else "bfloat16"))
    tokenizer = AutoTokenizer.from_pretrained(path, padding_side="left")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model: Any = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype)
    model.to(device)
    model.eval()
    return tokenizer, model


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    """Token ids that end a reply: the generation config's EOS ids and the tokenizer's."""
    configured = getattr(model.generation_config, "eos_token_id", None)
    ids = set(configured if isinstance(configured, list) else [configured])
    ids.add(tokenizer.eos_token_id)
    return {i for i in ids if i is not None}
