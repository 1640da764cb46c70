"""Judge verdicts, the benchmark's metric formulas, judges and rewards.

Example:
    >>> import scenarios, sotopia_tom_env
    >>> from rewards import RuleJudge, score
    >>> env = sotopia_tom_env.parallel_env(scenarios="tiny")
    >>> _ = env.reset(options={"scenario": "tiny-3-agents"})
    >>> score(RuleJudge().judge(env.scenario, env.transcript), env.scenario).summary()["CPV"]
    0.0
"""

from rewards.judges import DiskCache, JudgeFailure, LLMJudge, RuleJudge
from rewards.metrics import (
    AgentComposite,
    MetricScore,
    Scores,
    composite,
    disclosure_alignment,
    efficiency,
    inquiry_alignment,
    privacy_violations,
    score,
)
from rewards.reward import (
    JudgeReward,
    agent_reward,
    column_reward,
    env_reward,
    format_reward,
    get_judge_reward,
)
from rewards.verdicts import (
    CPVVerdict,
    CPVViolation,
    DAAgentResult,
    DAItemAssessment,
    DAVerdict,
    EFFAcquisition,
    EFFAgentResult,
    EFFVerdict,
    IAAgentResult,
    IAItemAssessment,
    IAVerdict,
    Judgment,
)

__all__ = [
    # verdict models
    "CPVVerdict",
    "CPVViolation",
    "DAAgentResult",
    "DAItemAssessment",
    "DAVerdict",
    "EFFAcquisition",
    "EFFAgentResult",
    "EFFVerdict",
    "IAAgentResult",
    "IAItemAssessment",
    "IAVerdict",
    "Judgment",
    # metric formulas
    "AgentComposite",
    "MetricScore",
    "Scores",
    "composite",
    "disclosure_alignment",
    "efficiency",
    "inquiry_alignment",
    "privacy_violations",
    "score",
    # judges
    "DiskCache",
    "JudgeFailure",
    "LLMJudge",
    "RuleJudge",
    # rewards
    "JudgeReward",
    "agent_reward",
    "column_reward",
    "env_reward",
    "format_reward",
    "get_judge_reward",
]
