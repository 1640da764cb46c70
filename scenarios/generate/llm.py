"""LLM scenario generation: generate, judge and correct, validate, de-duplicate, audit.

For each attempt a generator call writes a candidate scenario for a sector and agent count,
shown a good seed and a bad seed with the reason it is bad. A judge call checks it against the
benchmark's logic rules and returns ``is_logically_correct``, ``anomalies_reason`` and a
``corrected_scenario_json`` with minimal edits. The corrected scenario is parsed and run through
our validator; accepted scenarios go to the output, rejected ones (and the originals the judge
had to correct) go to an audit list with their reason, which can seed the next round.
Candidates are de-duplicated by a stable hash. Counters per sector record attempts, accepted,
generation and judge errors, validator rejections and duplicates.

The client is any object with an async ``chat(messages, *, response_format, temperature,
max_tokens)`` returning an object with ``.text`` (see ``sotopia_tom_env.llm``); this module
imports nothing else from the project.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from scenarios.generate.seeds import seed_pair
from scenarios.io import ScenarioFormatError, parse_scenario
from scenarios.schema import Scenario
from scenarios.validate import check

GENERATOR = """You write realistic workplace knowledge-sharing scenarios as JSON for the {sector} sector.

Write ONE new scenario with exactly {agents} agents, in the same JSON format as the good example.
Rules:
- Each agent holds 4-6 short facts (pre_interaction_knowledge), each with 1-2 concrete, checkable details (amounts, rates, dates, names, codes) and a realistic "public" or "private" sensitivity.
- sharing_policy.what_to_share and what_not_to_share name the agent's OWN items exactly, never overlap, and what_not_to_share items are private.
- desired_knowledge names items that OTHER agents hold AND list in what_to_share; cannot_know_knowledge names items other agents hold and list in what_not_to_share. These lists are for evaluation only.
- primary_objective paraphrases what the agent needs in 1-2 sentences, one hint per desired item, with no numbers, codes or names from any fact.
- knowledge_domain_map maps 3-6 domains to the exact roles that own them.
- A new decision, not a copy of the examples.

Good example:
{good}

Bad example (do NOT do this; {reason}):
{bad}

Output only the JSON object."""

JUDGE = """You check a generated workplace scenario for logical correctness and fix it with minimal edits.
Rules (match items by meaning):
1. Every desired_knowledge item is held by ANOTHER agent.
2. At least one holder is willing to share it: it is in the holder's what_to_share and not in its what_not_to_share. Otherwise the item is unreachable.
3. Sharing lists don't overlap, name the agent's own items, and what_not_to_share items are private.
4. cannot_know_knowledge items are held by others and not obtainable under their policies.
5. No primary_objective states the value of its own desired items.

Scenario:
{scenario}

Reply with one JSON object: {{"is_logically_correct": true|false, "anomalies_reason": "<short>", "corrected_scenario_json": {{...the full corrected scenario...}}}}"""


@dataclass
class GenerationResult:
    """What a pipeline run produced."""

    accepted: list[Scenario] = field(default_factory=list)
    audit: list[dict[str, Any]] = field(default_factory=list)
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


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (prose around it allowed), repaired if almost valid."""
    start = text.find("{")
    if start == -1:
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError:
        try:
            import json_repair
        except ImportError:  # pragma: no cover - json-repair comes with the [llm] extra
            return None
        obj = json_repair.loads(text[start:])
    return obj if isinstance(obj, dict) and obj else None


class ScenarioPipeline:
    """Generate scenarios with an LLM (see the module docstring).

    Args:
        client: a chat client.
        max_attempts: attempts per requested scenario before giving up on it.
        backoff_s: first wait after a failed call; doubles on each further failure.
        max_tokens: generation budget per call.
    """

    def __init__(
        self, client: Any, *, max_attempts: int = 4, backoff_s: float = 1.0, max_tokens: int = 3000
    ) -> None:
        self.client, self.max_attempts, self.backoff_s, self.max_tokens = (
            client,
            max_attempts,
            backoff_s,
            max_tokens,
        )

    async def run(
        self, sector: str, agents: int, number: int, result: GenerationResult | None = None
    ) -> GenerationResult:
        """Try to produce ``number`` accepted scenarios for one sector."""
        result = result or GenerationResult()
        counters = result.counters.setdefault(sector, Counter())
        seen: set[str] = set()
        good, bad, reason = seed_pair(sector, agents)
        failures = 0
        while counters["accepted"] < number and counters["attempts"] < number * self.max_attempts:
            counters["attempts"] += 1
            ok = await self._attempt(sector, agents, good, bad, reason, result, counters, seen)
            failures = 0 if ok else failures + 1
            if failures:
                await asyncio.sleep(min(self.backoff_s * 2 ** (failures - 1), 30))
        return result

    async def _attempt(self, sector: str, agents: int, good: str, bad: str, reason: str,
                       result: GenerationResult, counters: Counter[str], seen: set[str]) -> bool:  # fmt: skip
        candidate = await self._json(
            GENERATOR.format(sector=sector, agents=agents, good=good, bad=bad, reason=reason)
        )
        if candidate is None or not candidate.get("agents"):  # no scenario: not worth judging
            counters["gen_errors"] += 1
            return False
        original = stable_hash(candidate)
        if original in seen:
            counters["dupes"] += 1
            return True
        verdict = await self._json(JUDGE.format(scenario=json.dumps(candidate, ensure_ascii=False)))
        corrected = verdict.get("corrected_scenario_json") if verdict else None
        if (
            not verdict
            or not {"is_logically_correct", "anomalies_reason"} <= set(verdict)
            or not isinstance(corrected, dict)
        ):
            counters["judge_errors"] += 1
            return False
        fixed = stable_hash(corrected)
        if fixed != original and fixed in seen:
            counters["dupes"] += 1
            return True
        seen.update({original, fixed})
        if not verdict["is_logically_correct"]:
            result.audit.append(
                {"scenario": candidate, "reason": f"Bad seed: {verdict['anomalies_reason']}"}
            )
        return self._accept(sector, agents, corrected, result, counters)

    def _accept(self, sector: str, agents: int, corrected: dict[str, Any], result: GenerationResult,
                counters: Counter[str]) -> bool:  # fmt: skip
        n = counters["accepted"] + 1
        corrected = {**corrected, "scenario_id": f"gen-{sector}-{n:03d}", "sector": sector}
        try:
            scenario = parse_scenario(corrected, where="generated scenario")
        except ScenarioFormatError as e:
            return self._reject(corrected, f"format: {e}", result, counters)
        if len(scenario.agents) != agents:
            return self._reject(
                corrected, f"has {len(scenario.agents)} agents, wanted {agents}", result, counters
            )
        errors = [f for f in check(scenario) if f.severity == "error"]
        if errors:
            return self._reject(
                corrected,
                "validator: " + "; ".join(f"{f.rule} at {f.path}" for f in errors[:5]),
                result,
                counters,
            )
        result.accepted.append(scenario)
        counters["accepted"] += 1
        return True

    @staticmethod
    def _reject(
        scenario: dict[str, Any], reason: str, result: GenerationResult, counters: Counter[str]
    ) -> bool:
        result.audit.append({"scenario": scenario, "reason": reason})
        counters["rejected"] += 1
        return True

    async def _json(self, prompt: str) -> dict[str, Any] | None:
        try:
            reply = await self.client.chat([{"role": "user", "content": prompt}], response_format=None,
                                           temperature=0.7, max_tokens=self.max_tokens)  # fmt: skip
        except Exception:  # a failed call is counted by the caller and retried after a pause
            return None
        return first_json_object(reply.text)
