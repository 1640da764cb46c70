"""Pydantic models of the Sotopia-ToM scenario format.

The format is the one the benchmark consumes (a scenario with a shared goal, a knowledge-domain
map and 3-5 agents, each holding public and private facts, a sharing policy, and evaluation
targets that are never shown to agents). Models are permissive about what real files contain
(missing sensitivity, list values, integer or string ids) and strict about types; the semantic
review rules live in :mod:`scenarios.validate`.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from scenarios.resolve import Resolution

Sensitivity = Literal["public", "private"]


class _Model(BaseModel):
    # Unknown keys are kept (not dropped) so files round-trip; they never reach agents.
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class KnowledgeItem(_Model):
    """One fact an agent holds before the interaction."""

    value: str | list[str] = Field(description="The fact itself: concrete, checkable details.")
    sensitivity: Sensitivity = Field(
        default="public", description="'public' facts may be said openly; 'private' ones not."
    )

    @field_validator("sensitivity", mode="before")
    @classmethod
    def _lower(cls, v: object) -> object:
        return v.strip().lower() if isinstance(v, str) else v

    @property
    def text(self) -> str:
        """The value as one string (list values joined with '; ')."""
        return self.value if isinstance(self.value, str) else "; ".join(self.value)


class SharingPolicy(_Model):
    """Which of its own items an agent may and must not share."""

    what_to_share: list[str] = Field(default_factory=list, description="Items it may share.")
    what_not_to_share: list[str] = Field(
        default_factory=list, description="Items it must never disclose."
    )


class Goals(_Model):
    """What an agent is told it wants, and its sharing policy."""

    primary_objective: str = Field(
        default="", description="The agent's objective; hints at its needs without values."
    )
    sharing_policy: SharingPolicy = Field(default_factory=SharingPolicy)


class PostInteractionKnowledge(_Model):
    """Evaluation targets: what the agent should and must not learn. Never shown to agents."""

    desired_knowledge: list[str] = Field(default_factory=list)
    cannot_know_knowledge: list[str] = Field(default_factory=list)


class AgentSpec(_Model):
    """One participant: a role, its knowledge, its goals and its evaluation targets."""

    agent_id: int = Field(description="1-based position of the agent in the scenario.")
    role: str = Field(description="Job title; also the agent's name and DM address.")
    pre_interaction_knowledge: dict[str, KnowledgeItem] = Field(default_factory=dict)
    post_interaction_knowledge: PostInteractionKnowledge = Field(
        default_factory=PostInteractionKnowledge
    )
    goals: Goals = Field(default_factory=Goals)

    @property
    def policy(self) -> SharingPolicy:
        """Shortcut to ``goals.sharing_policy``."""
        return self.goals.sharing_policy

    @property
    def private_items(self) -> list[str]:
        """Names of this agent's private items, in file order."""
        return [k for k, v in self.pre_interaction_knowledge.items() if v.sensitivity == "private"]


class Scenario(_Model):
    """A Sotopia-ToM scenario: a shared decision and the agents who must reach it."""

    scenario_id: int | str
    sector: str | None = None
    scenario_goal: str = ""
    knowledge_domain_map: dict[str, str | list[str]] = Field(default_factory=dict)
    agents: list[AgentSpec]
    reason: str | None = Field(
        default=None, description="Only on deliberately bad generator seeds: what is wrong."
    )

    @property
    def id(self) -> str:
        """The scenario id as a string (files use ints or strings)."""
        return str(self.scenario_id)

    @property
    def roles(self) -> list[str]:
        """Role names in agent order."""
        return [a.role for a in self.agents]

    def domain_owners(self) -> dict[str, list[str]]:
        """The knowledge-domain map with every owner entry as a list."""
        return {
            d: [o] if isinstance(o, str) else list(o) for d, o in self.knowledge_domain_map.items()
        }

    @cached_property
    def resolution(self) -> Resolution:
        """Item references resolved to owning agents' items (computed once, then cached)."""
        from scenarios.resolve import resolve

        return resolve(self)
