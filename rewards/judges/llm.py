"""The LLM judge: one structured-output call per metric against any OpenAI-compatible endpoint.

Each metric (DA, IA, EFF, CPV) is one call through a :class:`~sotopia_tom_env.llm.ChatClient`
(a local vLLM server by default). Its ``response_format`` is a copy of the verdict model bounded
to the episode (:func:`output_bounds`: names as long as the scenario's longest, lists as long as
its longest, short reasoning), so a small model cannot ramble; the reply is then read into the
uncapped verdict model, which accepts every name a scenario has. Calls run concurrently under
a bound (per event loop), are retried with exponential backoff, and unparseable answers go
through a repair step (local JSON repair, then one "rewrite as valid JSON" call). Valid verdicts
are cached on disk by model and prompt hash. A metric that still fails is recorded in
``Judgment.failures`` with the reason; it is never scored as 0.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import weakref
from typing import Any

from pydantic import BaseModel, ValidationError

from rewards.judges.cache import DiskCache
from rewards.judges.prompts import judge_prompt, repair_prompt
from rewards.verdicts import METRICS, VERDICT_MODELS, Judgment, OutputBounds, bounded_model
from scenarios import Scenario
from sotopia_tom_env.transcript import Transcript


class JudgeFailure(RuntimeError):
    """A metric's verdict could not be obtained."""


class LLMJudge:
    """Judge episodes with an LLM.

    Args:
        client: any chat client (``OpenAIChatClient``, ``VLLMServer.client()``, a fake).
        max_concurrency: metric calls in flight at once, across the episodes judged in one event
            loop (each loop gets its own bound, so ``judge()`` can be called any number of times).
        max_attempts: tries per metric for failed calls (errors or unusable output).
        backoff_s: first retry delay; doubles each time.
        cache: a :class:`DiskCache`, ``None`` for the default location, or ``False`` for none.
        max_tokens: generation budget per call; a verdict for a 5-agent scenario with full
            reasoning needs a few thousand tokens.
        reasoning_chars: length cap of each ``reasoning`` string the model writes; lower it
            (with ``max_tokens``) for a fast, terse judge.
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
        reasoning_chars: int = 300,
    ) -> None:
        for name, value in (("max_concurrency", max_concurrency), ("max_attempts", max_attempts),
                            ("max_tokens", max_tokens)):  # fmt: skip
            if value < 1:
                raise ValueError(f"LLMJudge: {name} must be at least 1, got {value}")
        self.client = client
        self.name = f"llm:{client.model}"
        self.max_attempts, self.backoff_s, self.max_tokens = max_attempts, backoff_s, max_tokens
        self.max_concurrency, self.reasoning_chars = max_concurrency, reasoning_chars
        self.cache = DiskCache() if cache is None or cache is True else (cache or None)
        # asyncio primitives bind to the loop that first waits on them, and every synchronous
        # judge() call runs a fresh loop: one semaphore per loop, dropped with its loop.
        self._sems: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._sems.get(loop)
        if sem is None:
            sem = self._sems[loop] = asyncio.Semaphore(self.max_concurrency)
        return sem

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
            try:
                return model.model_validate_json(hit)
            except ValidationError:
                pass  # written for another version of the verdict models: ask again, overwrite
        schema = bounded_model(model, output_bounds(scenario, transcript, self.reasoning_chars))
        async with self._semaphore():
            result = await self._ask(model, schema, prompt, metric)
        if self.cache:
            self.cache.put(key, result.model_dump_json())
        return result

    async def _ask(
        self, model: type[BaseModel], schema: type[BaseModel], prompt: str, metric: str
    ) -> BaseModel:
        last = "no attempt made"
        for attempt in range(self.max_attempts):
            if attempt:
                await asyncio.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                reply = await self._chat(prompt, schema)
                return await self._parse(reply, model, schema)
            except Exception as e:  # any failure is retried, then recorded
                last = f"{type(e).__name__}: {e}"
        raise JudgeFailure(
            f"{metric} failed after {self.max_attempts} attempts; last error: {last}"
        )

    async def _chat(self, prompt: str, schema: type[BaseModel]) -> str:
        result = await self.client.chat(
            [{"role": "user", "content": prompt}],
            response_format=schema,
            temperature=0.0,
            max_tokens=self.max_tokens,
        )
        return result.text

    async def _parse(self, text: str, model: type[BaseModel], schema: type[BaseModel]) -> BaseModel:
        """Validate against the uncapped ``model``: the caps of ``schema`` only steer generation."""
        try:
            return model.model_validate_json(text)
        except ValidationError as first:
            repaired = _local_repair(text, model)
            if repaired is not None:
                return repaired
            fixed = await self._chat(repair_prompt(text, _short(first)), schema)
            return model.model_validate_json(fixed)


def output_bounds(
    scenario: Scenario, transcript: Transcript, reasoning_chars: int = 300
) -> OutputBounds:
    """The caps of the LLM's output for one episode, fitted to its scenario and transcript.

    Names may be as long as the scenario's longest role or item name (never shorter than 64
    characters), each per-agent list as long as the scenario's longest, round numbers up to the
    transcript's round count.
    """
    lists = [
        items
        for a in scenario.agents
        for items in (
            a.goals.sharing_policy.what_to_share,
            a.goals.sharing_policy.what_not_to_share,
            a.post_interaction_knowledge.desired_knowledge,
            a.post_interaction_knowledge.cannot_know_knowledge,
        )
    ]
    names = [a.role for a in scenario.agents] + [x for items in lists for x in items]
    return OutputBounds(
        name_chars=max(64, *map(len, names)),
        reasoning_chars=reasoning_chars,
        agents=len(scenario.agents),
        items=max(1, *map(len, lists)),
        max_round=max(0, transcript.rounds),
    )


def _local_repair(text: str, model: type[BaseModel]) -> BaseModel | None:
    """Salvage almost-JSON (prose around it, trailing commas, cut-off endings) without a call."""
    import json_repair

    try:
        return model.model_validate(json_repair.loads(text))
    except (ValidationError, ValueError, TypeError):
        return None


def _short(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()[:5])
