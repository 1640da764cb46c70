"""Sampling backends for the rollout: the trainer's own model in process, or a vLLM server.

The server samples as the benchmark plays: constrained by the reply schema (the env's action
JSON), so the policy learns what it does when it is evaluated; its completions come back as the
token ids it chose, so the policy-gradient terms are computed on exactly those tokens. In
process (no server: tests, tiny runs) samples unconstrained. The server batches many
episodes' turns at once and is what longer runs use.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sotopia_tom_env.actions import action_model
from sotopia_tom_env.llm.client import response_format_payload
from training.rollout import Sample

log = logging.getLogger(__name__)


class InProcessGenerator:
    """Samples one reply per prompt with the model being trained (batched ``generate``).

    Args:
        max_new_tokens: longest reply; a cut-off reply is malformed JSON and pays its penalty.
        temperature: sampling temperature (GRPO needs diverse samples within a group).
        top_p: nucleus sampling.
    """

    def __init__(
        self, max_new_tokens: int = 160, temperature: float = 1.0, top_p: float = 1.0
    ) -> None:
        self.max_new_tokens, self.temperature, self.top_p = max_new_tokens, temperature, top_p

    def __call__(self, prompts: list[list[dict[str, Any]]], trainer: Any,
                 seeds: list[int] | None = None) -> list[Sample]:  # fmt: skip
        """One sample per prompt, in order (``seeds`` is not honoured: one batched draw)."""
        import torch
        from trl.models.utils import unwrap_model_for_generation

        tok = trainer.processing_class
        texts = [
            tok.apply_chat_template(p, add_generation_prompt=True, tokenize=False) for p in prompts
        ]
        enc = tok(
            texts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False
        )
        enc = enc.to(trainer.accelerator.device)
        with (
            unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator) as model,
            torch.no_grad(),
        ):
            out = model.generate(**enc, do_sample=True, temperature=self.temperature, top_p=self.top_p,
                                 max_new_tokens=self.max_new_tokens, pad_token_id=tok.pad_token_id)  # fmt: skip
        width = enc["input_ids"].shape[1]
        return [self._sample(tok, enc, out, i, width) for i in range(len(prompts))]

    @staticmethod
    def _sample(tok: Any, enc: Any, out: Any, i: int, width: int) -> Sample:
        prompt_ids = enc["input_ids"][i][enc["attention_mask"][i].bool()].tolist()
        completion = out[i, width:].tolist()
        if (
            tok.eos_token_id in completion
        ):  # keep the EOS (the model must learn to stop), drop padding
            completion = completion[: completion.index(tok.eos_token_id) + 1]
        text = tok.decode(completion, skip_special_tokens=True)
        return Sample(prompt_ids=prompt_ids, completion_ids=completion, logprobs=None, text=text)


ADAPTER = "policy"
"""The name under which the server serves the adapter being trained."""

REPLY_SCHEMA = response_format_payload(action_model(None))
"""The structured-output schema the benchmark's players reply under (the paper's free ``to``)."""


class ServerGenerator:
    """Samples through a local vLLM server that serves the base model and the current adapter.

    The server is started on first use with LoRA enabled. Whenever the trainer has taken an
    optimiser step since the last sync, the adapter is saved and reloaded into the server in
    place (vLLM's ``/v1/load_lora_adapter``), so samples always come from the current policy.
    Prompts go in as token ids and completions come back as token ids (``return_token_ids``),
    so what the trainer scores is exactly what the server sampled. Use it as a context manager
    (or call :meth:`close`) to stop the server.

    The server's model worker has been seen to grow by about 0.5 GB a step over a GRPO run on
    CPU (3.7 to 12.7 GB in 19 steps, beside a 10 GB trainer: the machine ran out of memory), so
    after each batch its resident memory is checked, and above ``max_worker_gib`` the server is
    restarted; the next batch starts a fresh one with the current adapter.

    Args:
        max_new_tokens: longest reply; a cut-off reply is malformed JSON and pays its penalty.
        temperature: sampling temperature.
        top_p: nucleus sampling.
        lora_rank: the adapter's rank (vLLM reserves room for it at start).
        concurrency: requests in flight at once (the server batches them).
        model: the base model (default: the embedded one).
        max_worker_gib: the worker's resident memory above which the server is restarted.
    """

    def __init__(self, max_new_tokens: int = 160, temperature: float = 1.0, top_p: float = 1.0,
                 lora_rank: int = 16, concurrency: int = 32, model: str | None = None,
                 max_worker_gib: float = 6.0) -> None:  # fmt: skip
        self.max_new_tokens, self.temperature, self.top_p = max_new_tokens, temperature, top_p
        self.lora_rank, self.concurrency, self.model = lora_rank, concurrency, model
        self.max_worker_gib, self.restarts = max_worker_gib, 0
        self.server: Any = None
        self.synced_step: int | None = None
        self.adapter_dir: Path | None = None

    def __enter__(self) -> ServerGenerator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server (if it was started)."""
        if self.server is not None:
            self.server.stop()
            self.server = None
            self.synced_step = None  # a new server has no adapter loaded yet

    def __call__(self, prompts: list[list[dict[str, Any]]], trainer: Any,
                 seeds: list[int] | None = None) -> list[Sample]:  # fmt: skip
        """One sample per prompt, in order, from the current adapter; seeded where given."""
        self._start()
        self._sync(trainer)
        tok = trainer.processing_class
        texts = [
            tok.apply_chat_template(p, add_generation_prompt=True, tokenize=False) for p in prompts
        ]
        ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
        choices = asyncio.run(self._complete_all(ids, seeds or [None] * len(ids)))
        self._bound_memory()
        return [Sample(prompt_ids=i, completion_ids=list(c["token_ids"]), logprobs=None,
                       text=c["text"]) for i, c in zip(ids, choices, strict=True)]  # fmt: skip

    def _start(self) -> None:
        if self.server is not None:
            return
        from policies.trained import LORA_RANKS
        from sotopia_tom_env.llm import VLLMServer

        os.environ["VLLM_ALLOW_RUNTIME_LORA_UPDATING"] = "True"  # the server inherits it
        rank = next(r for r in LORA_RANKS if r >= self.lora_rank)
        self.server = VLLMServer(model=self.model, extra_args=[
            "--enable-lora", "--max-lora-rank", str(rank), "--max-loras", "1"]).start()  # fmt: skip
        self.adapter_dir = Path(tempfile.mkdtemp(prefix="sotopia-tom-adapter-"))

    def _bound_memory(self) -> None:
        rss = self.server.worker_rss() / 2**30
        if rss > self.max_worker_gib:
            self.restarts += 1
            log.warning("vLLM worker at %.1f GiB (bound %.1f): restarting the server (restart %d)",
                        rss, self.max_worker_gib, self.restarts)  # fmt: skip
            self.close()

    def _sync(self, trainer: Any) -> None:
        step = trainer.state.global_step
        if step == self.synced_step:
            return
        assert self.adapter_dir is not None
        model = trainer.accelerator.unwrap_model(trainer.model)
        if not hasattr(model, "peft_config"):
            raise ValueError("generator 'server' samples from a LoRA adapter: set use_peft: true")
        model.save_pretrained(str(self.adapter_dir))
        body = {"lora_name": ADAPTER, "lora_path": str(self.adapter_dir), "load_inplace": True}
        _post(f"{self.server.base_url.removesuffix('/v1')}/v1/load_lora_adapter", body)
        self.synced_step = step

    async def _complete_all(self, ids: list[list[int]],
                            seeds: list[int | None]) -> list[dict[str, Any]]:  # fmt: skip
        import httpx

        limit = asyncio.Semaphore(self.concurrency)
        async with httpx.AsyncClient(timeout=600) as http:

            async def one(prompt_ids: list[int], seed: int | None) -> dict[str, Any]:
                body = {"model": ADAPTER, "prompt": prompt_ids, "max_tokens": self.max_new_tokens,
                        "temperature": self.temperature, "top_p": self.top_p, "seed": seed,
                        "return_token_ids": True, "response_format": REPLY_SCHEMA}  # fmt: skip
                async with limit:
                    r = await http.post(f"{self.server.base_url}/completions", json=body)
                r.raise_for_status()
                return r.json()["choices"][0]

            return await asyncio.gather(*(one(i, s) for i, s in zip(ids, seeds, strict=True)))


def _post(url: str, body: dict[str, Any]) -> None:
    import httpx

    r = httpx.post(url, json=body, timeout=120)
    if r.status_code >= 400:
        raise RuntimeError(f"{url} answered {r.status_code}: {r.text[:300]}")


class TRLVLLMGenerator:
    """Samples with TRL's own vLLM engine (``use_vllm: true``, colocate or server mode).

    TRL syncs the policy's weights into its engine before each rollout, so this backend only
    tokenises the prompts the same way as the others and asks the engine for one sample each
    (the prompts already repeat each turn state ``num_generations`` times). Made for a GPU;
    colocated on a CPU it runs too, with :func:`colocated_on_cpu` and :func:`sync_by_reload`.
    """

    def __call__(self, prompts: list[list[dict[str, Any]]], trainer: Any,
                 seeds: list[int] | None = None) -> list[Sample]:  # fmt: skip
        """One sample per prompt, in order, with the sampled tokens' logprobs (unseeded)."""
        tok = trainer.processing_class
        texts = [
            tok.apply_chat_template(p, add_generation_prompt=True, tokenize=False) for p in prompts
        ]
        ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
        _, completions, logprobs, _ = trainer.vllm_generation.generate(
            prompts=ids, images=None, num_generations=1
        )
        texts = tok.batch_decode(completions, skip_special_tokens=True)
        return [Sample(i, list(c), [lp[0] for lp in lps], t)
                for i, c, lps, t in zip(ids, completions, logprobs, texts, strict=True)]  # fmt: skip


CPU_KVCACHE_GIB = "2"
"""The colocated engine's KV cache on CPU, in GiB (vLLM's CPU build sizes it from
``VLLM_CPU_KVCACHE_SPACE``, not from ``vllm_gpu_memory_utilization``)."""


@contextmanager
def colocated_on_cpu(training_args: Any) -> Iterator[bool]:
    """Around building a ``GRPOTrainer``: whether TRL's engine is colocated on a CPU.

    If it is, the engine starts as the project's CPU server does: eager (TRL passes no
    ``enforce_eager``, and vLLM's CPU build otherwise traces and compiles the model on its first
    batch, minutes on 2 busy cores), with a KV cache of :data:`CPU_KVCACHE_GIB` and OpenMP
    threads bound as a server's would be. The settings hold while the engine starts, and only
    then: a server started later in the process does not inherit them. Values already in the
    environment win.
    """
    from unittest import mock

    import trl.generation.vllm_generation as trl_vllm

    from sotopia_tom_env.llm.server_config import is_cpu_backend, omp_binding

    colocated = training_args.use_vllm and training_args.vllm_mode == "colocate"
    if not (colocated and is_cpu_backend()):
        yield False
        return
    wanted = {"VLLM_CPU_KVCACHE_SPACE": CPU_KVCACHE_GIB, "VLLM_CPU_OMP_THREADS_BIND": omp_binding()}
    added = [k for k in wanted if k not in os.environ]
    os.environ.update({k: wanted[k] for k in added})
    eager = functools.partial(trl_vllm.LLM, enforce_eager=True)
    try:
        with mock.patch.object(trl_vllm, "LLM", eager):
            yield True
    finally:
        for k in added:
            os.environ.pop(k, None)


def sync_by_reload(generation: Any) -> None:
    """Make TRL's colocated engine take the policy's weights through vLLM's in-place reload.

    TRL loads each tensor into the engine's model (``model.load_weights``), which on a GPU writes
    into the engine's weights. vLLM's CPU build packs each linear layer's weight for its GEMM
    kernels once loaded and drops the parameter, so that load fails (``AttributeError:
    'Parameter' object has no attribute 'weight_loader'``). Its model runner's
    ``reload_weights`` loads the same tensors and packs them again. The tied LM head shares the
    embedding's weight but is not a layer the reload loads, so it is packed again here. The
    tensors are copied first: with a LoRA adapter TRL merges it while they are read and unmerges
    it after.
    """
    from vllm.model_executor.layers.vocab_parallel_embedding import UnquantizedEmbeddingMethod

    runner = generation.llm.llm_engine.model_executor.driver_worker.model_runner

    def sync_weights() -> None:
        weights = [(name, p.detach().clone()) for name, p in generation._iter_named_params()]
        runner.reload_weights(weights_iterator=weights)
        for layer in runner.get_model().modules():
            method = getattr(layer, "quant_method", None)
            if isinstance(method, UnquantizedEmbeddingMethod):
                method.process_weights_after_loading(layer)
        generation.llm.reset_prefix_cache()

    generation.sync_weights = sync_weights
