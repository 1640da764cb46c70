"""LLM scenario generation: generate, judge and correct, validate, de-duplicate, audit.

Each attempt makes two structured-output calls. The generator (its own model and sampling)
writes a :class:`~scenarios.generate.wire.ScenarioDraft` for a sector and agent count, shown
good and bad examples sampled afresh from a :class:`~scenarios.generate.seeds.SeedPool`. The
judge (its own model, usually colder) answers a :class:`~scenarios.generate.wire.JudgeVerdict`:
``is_logically_correct``, ``anomalies_reason`` and a ``corrected_scenario_json`` with minimal
edits. The corrected scenario is parsed and run through our validator; accepted scenarios go to
the output. Originals the judge had to correct, and corrected scenarios the validator still
rejects, go to the audit with their reason *and back into the pool as bad seeds*, so later
prompts show the model its own mistakes; cleanly accepted scenarios may join the good seeds.

Malformed replies never stop a run: they are counted, recorded in ``errors`` with the reason
and the start of the reply, and the attempt is retried after a pause. Candidates are
de-duplicated by a stable hash. All sampling uses a random generator seeded by ``seed``, the
sector and the agent count, so a run with the same replies picks the same examples.

The clients are any objects with an async ``chat(messages, *, response_format, temperature,
max_tokens)`` returning an object with ``.text`` (see ``sotopia_tom_env.llm``); this module
imports nothing else from the project.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from scenarios.generate.seeds import Seed, SeedPool
from scenarios.generate.wire import (
    JudgeVerdict,
    ScenarioDraft,
    first_json_object,
    parse_draft,
    parse_verdict,
    render,
    to_record,
)
from scenarios.io import ScenarioFormatError, parse_scenario
from scenarios.schema import Scenario
from scenarios.validate import check

__all__ = ["GenerationResult", "Sampling", "ScenarioPipeline", "first_json_object", "stable_hash"]

GENERATOR_SYSTEM = (
    "You design realistic corporate knowledge-sharing scenarios for the {sector} sector."
)

GENERATOR = """Write ONE new scenario with exactly {agents} agents who must reach a shared decision.
- Each agent holds 4-6 short facts, each with 1-2 concrete, checkable details (amounts, rates, dates, names, codes), marked public or private as a professional would.
- what_to_share and what_not_to_share name the agent's OWN facts exactly, never overlap, and what_not_to_share holds private facts; some facts may be in neither list.
- desired_knowledge names facts OTHER agents hold AND may share; cannot_know_knowledge names facts other agents hold and must not share. Both are for evaluation only: the agents never see them.
- primary_objective paraphrases the agent's needs in 1-2 sentences with a hint for every desired fact, but no numbers, codes or names from any fact.
- knowledge_domain_map names the exact roles owning each domain.
- Pick a decision, roles and facts unlike the examples; they show the format and the rules only.

Good examples:
{good}

Bad examples (never do this):
{bad}"""

JUDGE_SYSTEM = "You audit generated workplace scenarios for logical correctness and fix them with minimal edits."

JUDGE = """Check the scenario against these rules, matching items by meaning:
1. Sourced: every desired_knowledge item is held by ANOTHER agent.
2. Reachable: at least one holder may share it (in its what_to_share, not in its what_not_to_share).
3. Policies: what_to_share and what_not_to_share do not overlap, name the agent's own facts, and what_not_to_share facts are private.
4. cannot_know_knowledge items are held by others and not obtainable under their policies.
5. No primary_objective states the value of a desired item.
Set is_logically_correct to false if any rule is broken, say which in anomalies_reason, and return the whole scenario, corrected with the fewest edits, as corrected_scenario_json.

Scenario:
{scenario}"""


@dataclass(frozen=True)
class Sampling:
    """One call's model settings (``None`` leaves the server's default)."""

    temperature: float | None = None
    max_tokens: int | None = None


@dataclass
class GenerationResult:
    """What a pipeline run produced."""

    accepted: list[Scenario] = field(default_factory=list)
    audit: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    counters: dict[str, Counter[str]] = field(default_factory=dict)

    def summary(self) -> dict[str, dict[str, int]]:
        """Counters per sector as plain dicts."""
        return {s: dict(c) for s, c in self.counters.items()}


def stable_hash(obj: Any) -> str:
    """A hash independent of key order (sha256 of sorted-key JSON).

    Example:
        >>> stable_hash({"a": 1, "b": 2}) == stable_hash({"b": 2, "a": 1})
        True
    """
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def generator_messages(sector: str, agents: int, good: list[Seed], bad: list[Seed]) -> list[dict[str, str]]:  # fmt: skip
    """The generator's chat: the rules, then the sampled examples (bad ones with their reason)."""
    goods = "\n".join(render(s.record) for s in good)
    bads = "\n".join(f"Why it is bad: {s.reason}\n{render(s.record)}" for s in bad)
    user = GENERATOR.format(agents=agents, good=goods, bad=bads)
    return [{"role": "system", "content": GENERATOR_SYSTEM.format(sector=sector)},
            {"role": "user", "content": user}]  # fmt: skip


def judge_messages(candidate: dict[str, Any]) -> list[dict[str, str]]:
    """The judge's chat about one candidate."""
    user = JUDGE.format(scenario=render(candidate))
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


class ScenarioPipeline:
    """Generate scenarios with an LLM (see the module docstring).

    Args:
        client: the generator's chat client.
        judge_client: the judge's chat client; default: ``client``.
        pool: the seed pool; default: curated seeds from Gold. It grows during the run.
        seed: seeds the example sampling.
        generation: the generator's sampling settings.
        judging: the judge's sampling settings.
        examples: how many good and bad examples each generator call shows.
        learn_good: whether scenarios accepted without corrections or warnings become good seeds.
        max_attempts: attempts per requested scenario before giving up on it.
        backoff_s: first wait after a failed call; doubles on each further failure.
    """

    def __init__(self, client: Any, *, judge_client: Any = None, pool: SeedPool | None = None,
                 seed: int = 7, generation: Sampling = Sampling(0.9, 4000),
                 judging: Sampling = Sampling(0.0, 6000), examples: tuple[int, int] = (1, 2),
                 learn_good: bool = True, max_attempts: int = 4, backoff_s: float = 1.0) -> None:  # fmt: skip
        self.client, self.judge_client = client, judge_client or client
        self.pool = pool if pool is not None else SeedPool.curated()
        self.seed, self.examples = seed, examples
        self.generation, self.judging = generation, judging
        self.learn_good, self.max_attempts, self.backoff_s = learn_good, max_attempts, backoff_s

    async def run(
        self, sector: str, agents: int, number: int, result: GenerationResult | None = None
    ) -> GenerationResult:
        """Try to produce ``number`` accepted scenarios for one sector."""
        result = result or GenerationResult()
        rng = random.Random(f"{self.seed}:{sector}:{agents}")  # str seeds hash stably
        attempt = _Attempt(self, sector, agents, result, rng)
        failures = 0
        while attempt.counters["accepted"] < number and attempt.counters["attempts"] < number * self.max_attempts:  # fmt: skip
            attempt.counters["attempts"] += 1
            failures = 0 if await attempt.once() else failures + 1
            if failures:
                await asyncio.sleep(min(self.backoff_s * 2 ** (failures - 1), 30))
        return result


class _Attempt:
    """The state one sector's attempts share: counters, seen hashes, the sampling RNG."""

    def __init__(self, p: ScenarioPipeline, sector: str, agents: int, result: GenerationResult,
                 rng: random.Random) -> None:  # fmt: skip
        self.p, self.sector, self.agents, self.result, self.rng = p, sector, agents, result, rng
        self.counters = result.counters.setdefault(sector, Counter())
        self.seen: set[str] = set()

    async def once(self) -> bool:
        """One generate-judge-validate round; False when a call or a reply failed."""
        good, bad = self.p.pool.sample(self.sector, self.agents, self.rng, *self.p.examples)
        messages = generator_messages(self.sector, self.agents, good, bad)
        draft = await self._ask("generate", self.p.client, messages, ScenarioDraft, self.p.generation)  # fmt: skip
        candidate = self._record(draft) if draft is not None else None
        if candidate is None:
            return False
        original = stable_hash(candidate)
        if original in self.seen:
            self.counters["dupes"] += 1
            return True
        verdict = await self._ask("judge", self.p.judge_client, judge_messages(candidate), JudgeVerdict, self.p.judging)  # fmt: skip
        corrected = self._record(verdict.corrected_scenario_json, "judge") if verdict else None
        if verdict is None or corrected is None:
            return False
        fixed = stable_hash(corrected)
        if fixed != original and fixed in self.seen:
            self.counters["dupes"] += 1
            return True
        self.seen.update({original, fixed})
        if not verdict.is_logically_correct:
            self._audit(candidate, f"Bad seed: {verdict.anomalies_reason}")
        return self._accept(corrected, clean=verdict.is_logically_correct and fixed == original)

    async def _ask(self, stage: str, client: Any, messages: list[dict[str, str]],
                   fmt: type[BaseModel], sampling: Sampling) -> Any:  # fmt: skip
        """One structured call, parsed; None (counted and recorded) when it fails."""
        parse = parse_draft if fmt is ScenarioDraft else parse_verdict
        text = ""
        try:
            reply = await client.chat(messages, response_format=fmt,
                                      temperature=sampling.temperature, max_tokens=sampling.max_tokens)  # fmt: skip
            text = reply.text
            return parse(text)
        except Exception as e:  # a bad call or reply is data: count it and try again later
            return self._error(stage, f"{type(e).__name__}: {e}", text)

    def _record(self, draft: ScenarioDraft, stage: str = "generate") -> dict[str, Any] | None:
        # An empty shell (a server's minimal schema instance) is not worth judging.
        if not draft.agents:
            return self._error(stage, "no agents", draft.model_dump_json())
        try:
            return {"sector": self.sector, **to_record(draft)}
        except ValueError as e:
            return self._error(stage, str(e), draft.model_dump_json())

    def _error(self, stage: str, reason: str, text: str) -> None:
        self.counters[f"{'gen' if stage == 'generate' else 'judge'}_errors"] += 1
        self.result.errors.append({"sector": self.sector, "stage": stage, "reason": reason[:500], "reply": text[:2000]})  # fmt: skip

    def _audit(self, record: dict[str, Any], reason: str) -> None:
        self.result.audit.append({"scenario": record, "reason": reason})
        self.p.pool.add_bad(record, reason)

    def _accept(self, corrected: dict[str, Any], clean: bool) -> bool:
        n = self.counters["accepted"] + 1
        record = {"scenario_id": f"gen-{self.sector}-{n:03d}", **corrected}
        try:
            scenario = parse_scenario(record, where="generated scenario")
        except ScenarioFormatError as e:
            return self._reject(record, f"format: {e}")
        if len(scenario.agents) != self.agents:
            return self._reject(record, f"has {len(scenario.agents)} agents, wanted {self.agents}")
        findings = check(scenario)
        errors = [f for f in findings if f.severity == "error"]
        if errors:
            return self._reject(record, "validator: " + "; ".join(f"{f.rule} at {f.path}: {f.message}" for f in errors[:5]))  # fmt: skip
        self.result.accepted.append(scenario)
        self.counters["accepted"] += 1
        if clean and not findings and self.p.learn_good:
            self.p.pool.add_good(record)
        return True

    def _reject(self, record: dict[str, Any], reason: str) -> bool:
        self._audit(record, reason)
        self.counters["rejected"] += 1
        return True
