"""The scenario shape the LLM writes under structured output, and its conversion to ours.

Strict structured output (OpenAI, vLLM ``response_format``) cannot express free-form mappings,
and the benchmark format keys facts by name (``pre_interaction_knowledge: {name: item}``). So
the generator and the judge are asked for :class:`ScenarioDraft`, where facts and domains are
lists of named entries, and the pipeline converts drafts to benchmark records and back (seeds
are shown to the model in the same shape it must answer in). The field descriptions are part
of the contract: they are sent to the model inside the JSON schema.

Replies from servers that ignore the response format are still accepted when they hold a
scenario in either shape, possibly wrapped in prose; anything else raises ``ValueError`` with a
short reason, which the pipeline records.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scenarios.io import ScenarioFormatError, parse_scenario
from scenarios.schema import Scenario


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FactDraft(_Wire):
    """One fact an agent holds before the interaction."""

    name: str = Field(description="Short item name, unique within the agent.")
    value: str = Field(
        description="The fact with 1-2 concrete, checkable details (amounts, dates, codes, names)."
    )
    sensitivity: Literal["public", "private"] = Field(
        description="'private' if a professional would not say it openly in this meeting."
    )


class DomainDraft(_Wire):
    """A knowledge domain and the roles that own it."""

    domain: str = Field(description="snake_case domain name, e.g. contract_management.")
    owners: list[str] = Field(description="Exact role names of the agents owning the domain.")


class AgentDraft(_Wire):
    """One participant."""

    role: str = Field(description="Job title; unique in the scenario.")
    primary_objective: str = Field(
        description="1-2 sentences hinting at every desired item, with no numbers, codes or names."
    )
    pre_interaction_knowledge: list[FactDraft] = Field(description="4-6 facts the agent holds.")
    what_to_share: list[str] = Field(description="Names of OWN facts the agent may share.")
    what_not_to_share: list[str] = Field(
        description="Names of OWN private facts the agent must never disclose."
    )
    desired_knowledge: list[str] = Field(
        description="Names of facts OTHER agents hold and may share (evaluation only)."
    )
    cannot_know_knowledge: list[str] = Field(
        description="Names of facts other agents hold and must not share (evaluation only)."
    )


class ScenarioDraft(_Wire):
    """A workplace decision and the agents who must reach it."""

    scenario_goal: str = Field(description="The decision the agents must reach together.")
    knowledge_domain_map: list[DomainDraft] = Field(description="3-6 domains and their owners.")
    agents: list[AgentDraft]


class JudgeVerdict(_Wire):
    """The judge's reading of a candidate scenario."""

    is_logically_correct: bool = Field(description="True when no rule is broken.")
    anomalies_reason: str = Field(description="Which rules are broken and where; short.")
    corrected_scenario_json: ScenarioDraft = Field(
        description="The full scenario with minimal edits that fix every anomaly."
    )


def to_record(draft: ScenarioDraft) -> dict[str, Any]:
    """A benchmark-format record (no id or sector yet); agent ids are 1..n.

    Raises:
        ValueError: when an agent names two facts alike (the benchmark keys facts by name).
    """
    return {
        "scenario_goal": draft.scenario_goal,
        "knowledge_domain_map": {
            d.domain: d.owners[0] if len(d.owners) == 1 else d.owners
            for d in draft.knowledge_domain_map
        },
        "agents": [_agent_record(i, a) for i, a in enumerate(draft.agents, 1)],
    }


def _agent_record(agent_id: int, a: AgentDraft) -> dict[str, Any]:
    facts = {f.name: {"value": f.value, "sensitivity": f.sensitivity} for f in a.pre_interaction_knowledge}  # fmt: skip
    if len(facts) != len(a.pre_interaction_knowledge):
        raise ValueError(f"{a.role!r} names two facts alike")
    return {
        "agent_id": agent_id,
        "role": a.role,
        "pre_interaction_knowledge": facts,
        "post_interaction_knowledge": {
            "desired_knowledge": a.desired_knowledge,
            "cannot_know_knowledge": a.cannot_know_knowledge,
        },
        "goals": {
            "primary_objective": a.primary_objective,
            "sharing_policy": {
                "what_to_share": a.what_to_share,
                "what_not_to_share": a.what_not_to_share,
            },
        },
    }


def from_scenario(s: Scenario) -> ScenarioDraft:
    """The draft shape of a benchmark scenario (to show it to the model)."""
    return ScenarioDraft(
        scenario_goal=s.scenario_goal,
        knowledge_domain_map=[
            DomainDraft(domain=d, owners=o) for d, o in s.domain_owners().items()
        ],
        agents=[
            AgentDraft(
                role=a.role,
                primary_objective=a.goals.primary_objective,
                pre_interaction_knowledge=[
                    FactDraft(name=k, value=v.text, sensitivity=v.sensitivity)
                    for k, v in a.pre_interaction_knowledge.items()
                ],
                what_to_share=a.policy.what_to_share,
                what_not_to_share=a.policy.what_not_to_share,
                desired_knowledge=a.post_interaction_knowledge.desired_knowledge,
                cannot_know_knowledge=a.post_interaction_knowledge.cannot_know_knowledge,
            )
            for a in s.agents
        ],
    )


def render(record: dict[str, Any]) -> str:
    """Compact JSON of a record in the draft shape; a record that does not parse goes as is."""
    try:
        shown: Any = from_scenario(parse_scenario({"scenario_id": 0, **record})).model_dump()
    except (ScenarioFormatError, ValueError):
        shown = {k: v for k, v in record.items() if k not in {"reason", "scenario_id", "sector"}}
    return json.dumps(shown, ensure_ascii=False)


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


def parse_draft(text: str) -> ScenarioDraft:
    """The scenario in a generator reply.

    Raises:
        ValueError: no scenario in either shape; the message says what was wrong.
    """
    try:
        return ScenarioDraft.model_validate_json(text)
    except ValidationError:
        pass  # not a clean structured reply: look for a scenario inside it
    obj = first_json_object(text)
    if obj is None:
        raise ValueError("no JSON object in the reply")
    return coerce_draft(obj)


def coerce_draft(obj: Any) -> ScenarioDraft:
    """A draft from a JSON value in the draft shape or the benchmark shape."""
    try:
        return ScenarioDraft.model_validate(obj)
    except ValidationError as e:
        draft_error = _short(e)
    if isinstance(obj, dict) and obj.get("agents"):
        try:
            return from_scenario(parse_scenario({"scenario_id": 0, **obj}))
        except (ScenarioFormatError, ValueError):
            pass  # report the draft-shape error: that is the shape we asked for
    raise ValueError(f"not a scenario: {draft_error}")


def parse_verdict(text: str) -> JudgeVerdict:
    """The judge's verdict in a reply (its corrected scenario in either shape).

    Raises:
        ValueError: a missing key or a corrected scenario that is not one.
    """
    try:
        return JudgeVerdict.model_validate_json(text)
    except ValidationError:
        pass  # not a clean structured reply: look for a verdict inside it
    obj = first_json_object(text) or {}
    missing = {"is_logically_correct", "anomalies_reason", "corrected_scenario_json"} - set(obj)
    if missing:
        raise ValueError(f"verdict lacks {', '.join(sorted(missing))}")
    corrected = coerce_draft(obj["corrected_scenario_json"])
    try:
        return JudgeVerdict(
            is_logically_correct=obj["is_logically_correct"],
            anomalies_reason=obj["anomalies_reason"],
            corrected_scenario_json=corrected,
        )
    except ValidationError as e:
        raise ValueError(f"bad verdict: {_short(e)}") from None


def _short(e: ValidationError) -> str:
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "reply"
    return f"{where}: {first['msg']} ({e.error_count()} errors)"
