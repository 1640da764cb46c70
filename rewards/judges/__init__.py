"""Judges: the deterministic rule judge and the LLM judge, both filling the verdict models."""

from rewards.judges.cache import DiskCache
from rewards.judges.llm import JudgeFailure, LLMJudge
from rewards.judges.rule import RuleJudge

__all__ = ["DiskCache", "JudgeFailure", "LLMJudge", "RuleJudge"]
