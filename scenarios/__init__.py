"""Sotopia-ToM scenarios: the schema, loading, reference resolution, validation and the shipped sets.

Example:
    >>> import scenarios
    >>> tiny = scenarios.load("tiny")
    >>> [len(s.agents) for s in tiny]
    [3, 4, 5]
"""

from scenarios import generate
from scenarios.io import ScenarioFormatError, adapt_old_format, dump, load, parse_scenario
from scenarios.resolve import ItemRef, Resolution, resolve
from scenarios.schema import (
    AgentSpec,
    Goals,
    KnowledgeItem,
    PostInteractionKnowledge,
    Scenario,
    SharingPolicy,
)
from scenarios.validate import Finding, InvalidScenario, Report, check, require_valid, validate_all

__all__ = [
    # schema
    "AgentSpec",
    "Goals",
    "KnowledgeItem",
    "PostInteractionKnowledge",
    "Scenario",
    "SharingPolicy",
    # loading and saving
    "ScenarioFormatError",
    "adapt_old_format",
    "dump",
    "load",
    "parse_scenario",
    # item references
    "ItemRef",
    "Resolution",
    "resolve",
    # validation
    "Finding",
    "InvalidScenario",
    "Report",
    "check",
    "require_valid",
    "validate_all",
    # generation
    "generate",
]
