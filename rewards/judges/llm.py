"""The LLM judge: one structured-output call per metric against any OpenAI-compatible endpoint.

Each metric (DA, IA, EFF, CPV) is one call whose ``response_format`` is the verdict model, sent
through a :class:`~sotopia_tom_env.llm.ChatClient` (a local vLLM server by default). Calls run
concurrently under a bound, are retried with exponential backoff, and unparseable answers go
through a repair step (local JSON repair, then one "rewrite as valid JSON" call). Valid verdicts
are cached on disk by model and prompt hash. A metric that still fails is recorded in
``Judgment.failures`` with the reason; it is never scored as 0.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from pydantic import BaseModel, ValidationError

from rewards.judges.cache import DiskCache
from rewards.judges.prompts import judge_prompt, repair_prompt
from rewards.verdicts import METRICS, VERDICT_MODELS, Judgment
from scenarios import Scenario
from sotopia_tom_env.transcript import Transcript


class JudgeFailure(RuntimeError):
    """A metric's verdict could not be obtained."""


class LLMJudge:
    """Judge episodes with an LLM.

    Args:
        client: any chat client (``OpenAIChatClient``, ``VLLMServer.client()``, a fake).
        max_concurrency: metric calls in flight at once, across episodes.
        max_attempts: tries per metric for failed calls (errors or unusable output).
        backoff_s: first retry delay; doubles each time.
        cache: a :class:`DiskCache`, ``None`` for the default location, or ``False`` for none.
        max_tokens: generation budget per call.
    """

    def __init__(
        self,
        client: Any,
        *,
        max_concurrency: int = 4,
        max_attempts: int = 3,
        backoff_s: float = 2.0,
        cache: DiskCache | bool | None = None,
        max_tokens: int = 4096,
    ) -> None:
        self.client = client
        self.name = f"llm:{client.model}"
        self.max_attempts, self.backoff_s, self.max_tokens = max_attempts, backoff_s, max_tokens
        self.cache = DiskCache() if cache is None or cache is True else (cache or None)
        self._sem = asyncio.Semaphore(max_concurrency)

    async def ajudge(self, scenario: Scenario, transcript: Transcript) -> Judgment:
        """All four verdicts for one episode (failed metrics go to ``failures``)."""
        results = await asyncio.gather(
            *(self.verdict(scenario, transcript, m) for m in METRICS), return_exceptions=True
        )
        judgment = Judgment(judge=self.name)
        for metric, res in zip(METRICS, results, strict=True):
            if isinstance(res, BaseException):
                judgment.failures[metric] = f"{type(res).__name__}: {res}"
            else:
                setattr(judgment, metric.lower(), res)
        return judgment

    def judge(self, scenario: Scenario, transcript: Transcript) -> Judgment:
        """Synchronous :meth:`ajudge` (runs in its own event loop, in a thread if one is running)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ajudge(scenario, transcript))
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self.ajudge(scenario, transcript)).result()

    async def verdict(self, scenario: Scenario, transcript: Transcript, metric: str) -> BaseModel:
        """One metric's verdict, from the cache or the model."""
        model = VERDICT_MODELS[metric]
        prompt = judge_prompt(scenario, transcript, metric)
        key = DiskCache.key(self.client.model, metric, prompt)
        if self.cache and (hit := self.cache.get(key)) is not None:
            return model.model_validate_json(hit)
        async with self._sem:
            result = await self._ask(model, prompt, metric)
        if self.cache:
            self.cache.put(key, result.model_dump_json())
        return result

    async def _ask(self, model: type[BaseModel], prompt: str, metric: str) -> BaseModel:
        last = "no attempt made"
        for attempt in range(self.max_attempts):
            if attempt:
                await asyncio.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                reply = await self._chat(prompt, model)
                return await self._parse(reply, model)
            except Exception as e:  # any failure is retried, then recorded
                last = f"{type(e).__name__}: {e}"
        raise JudgeFailure(
            f"{metric} failed after {self.max_attempts} attempts; last error: {last}"
        )

    async def _chat(self, prompt: str, model: type[BaseModel]) -> str:
        result = await self.client.chat(
            [{"role": "user", "content": prompt}],
            response_format=model,
            temperature=0.0,
            max_tokens=self.max_tokens,
        )
        return result.text

    async def _parse(self, text: str, model: type[BaseModel]) -> BaseModel:
        try:
            return model.model_validate_json(text)
        except ValidationError as first:
            repaired = _local_repair(text, model)
            if repaired is not None:
                return repaired
            fixed = await self._chat(repair_prompt(text, _short(first)), model)
            return model.model_validate_json(fixed)


def _local_repair(text: str, model: type[BaseModel]) -> BaseModel | None:
    """Salvage almost-JSON (prose around it, trailing commas, cut-off endings) without a call."""
    import json_repair

    try:
        return model.model_validate(json_repair.loads(text))
    except (ValidationError, ValueError, TypeError):
        return None


def _short(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()[:5])
