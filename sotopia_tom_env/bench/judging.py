"""Judging played episodes with the rule judge or an LLM judge."""

from __future__ import annotations

from typing import Any

from rewards import LLMJudge, RuleJudge, Scores, score
from rewards.verdicts import Judgment
from scenarios import Scenario
from sotopia_tom_env.transcript import Transcript


async def judge_episode(
    judge: Any, scenario: Scenario, transcript: Transcript
) -> tuple[Judgment, Scores]:
    """Verdicts and scores of one episode (async for LLM judges, direct for the rule judge)."""
    if isinstance(judge, LLMJudge):
        judgment = await judge.ajudge(scenario, transcript)
    else:
        judgment = judge.judge(scenario, transcript)
    return judgment, score(judgment, scenario, transcript.rounds)


def make_judge(kind: str, client: Any = None) -> Any:
    """``"rule"`` -> :class:`RuleJudge`; ``"llm"`` -> :class:`LLMJudge` over ``client``."""
    if kind == "rule":
        return RuleJudge()
    if kind == "llm":
        if client is None:
            raise ValueError("the LLM judge needs a chat client")
        return LLMJudge(client)
    raise ValueError(f"unknown judge {kind!r}; use 'rule' or 'llm'")
