"""Rewards: the judge's per-agent composite as an episodic reward, optional dense shaping, TRL forms.

**Episodic** (default): at the end of an episode each agent ``a`` gets

    R_a = CM_a - cpv_weight * CPV_a - format_penalty * (malformed actions of a)

where ``CM_a`` is the agent's composite and ``CPV_a`` its violation events over the scenario's
private items (see ``docs/metrics.md``). Intermediate steps give 0.

**Dense** (``dense=True``): credit moves to the step where it is earned, and the episode's total
is unchanged. At the step it happens an agent gets ``+disclosure_bonus`` for the first correct
disclosure of each of its shareable items (right channel, seen by nobody barred from it),
``+inquiry_bonus`` for the first well-aimed request of each desired item (holder in the audience,
right channel), and ``-violation_penalty`` for each violation event it causes. The terminal
reward is then ``R_a`` minus what was already paid, so the sum over the episode is exactly
``R_a`` and the optimal policies are those of the episodic reward.

If the judge fails (an LLM judge that never returned a valid verdict), the terminal reward is 0
and ``infos[a]["judge_failed"]`` is ``True``; the failure, not a score, is recorded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import ValidationError

from rewards.judges.rule import MessageEvidence, RuleJudge, violations
from rewards.metrics import Scores, score
from rewards.verdicts import Judgment
from scenarios import ItemRef, Scenario
from sotopia_tom_env import AgentAction, AgentID, Message, Transcript
from sotopia_tom_env.actions import first_json_object


class Judge(Protocol):
    """Anything that turns an episode into verdicts synchronously."""

    name: str

    def judge(self, scenario: Scenario, transcript: Transcript) -> Judgment:
        """Verdicts for one episode."""


def agent_reward(
    scores: Scores, role: str, errors: int, cpv_weight: float, format_penalty: float
) -> float:
    """``CM_a - cpv_weight * CPV_a - format_penalty * errors`` for one agent.

    Example:
        >>> from rewards.metrics import AgentComposite, Scores
        >>> s = Scores(judge="rule", DA=None, IA=None, EFF=None, CPV=None, CM=0.8,
        ...            per_agent={"Chef": AgentComposite(cm=0.8, da=1, ia=1, eff=0.5, cpv=0.25)})
        >>> agent_reward(s, "Chef", errors=2, cpv_weight=1.0, format_penalty=0.05)
        0.45
    """
    parts = scores.per_agent[role]
    return round(parts.cm - cpv_weight * parts.cpv - format_penalty * errors, 6)


class JudgeReward:
    """The env's reward function (a :class:`~sotopia_tom_env.Rewarder`), judge-based.

    Args:
        judge: the judge to score episodes with; a :class:`RuleJudge` by default.
        cpv_weight: weight of the per-agent CPV penalty on top of the composite.
        format_penalty: penalty per malformed action of the agent.
        dense: shape rewards per step (see the module docstring).
        disclosure_bonus / inquiry_bonus / violation_penalty: dense step rewards.
    """

    def __init__(
        self,
        judge: Judge | None = None,
        *,
        cpv_weight: float = 1.0,
        format_penalty: float = 0.05,
        dense: bool = False,
        disclosure_bonus: float = 0.1,
        inquiry_bonus: float = 0.1,
        violation_penalty: float = 0.25,
    ) -> None:
        self.judge = judge or RuleJudge()
        self.cpv_weight, self.format_penalty, self.dense = cpv_weight, format_penalty, dense
        self.bonus = {
            "disclosure": disclosure_bonus,
            "inquiry": inquiry_bonus,
            "violation": -violation_penalty,
        }
        if dense and not isinstance(self.judge, RuleJudge):
            raise ValueError(
                "dense rewards need the rule judge (per-message evidence); use judge=RuleJudge()"
            )

    def reset(self, scenario: Scenario, transcript: Transcript) -> None:
        """Start a new episode."""
        self.scenario, self.transcript = scenario, transcript
        self.ids = transcript.ids
        self.errors: Counter[AgentID] = Counter()
        self.paid: Counter[AgentID] = Counter()
        self.credited: set[tuple[str, ItemRef]] = set()
        self.last_scores: Scores | None = None

    def step(self, new_messages: list[Message], action_errors: dict[AgentID, str], done: bool):
        """Per-step rewards (dense terms), and at the end the episodic rewards and breakdown."""
        self.errors.update(action_errors.keys())
        rewards = dict.fromkeys(self.ids, 0.0)
        if self.dense:
            for m in new_messages:
                for a, r in self._dense_terms(m).items():
                    rewards[a] += r
                    self.paid[a] += r
        infos: dict[AgentID, dict[str, Any]] = {}
        if done:
            self._final(rewards, infos)
        return rewards, infos

    def _final(self, rewards: dict[AgentID, float], infos: dict[AgentID, dict[str, Any]]) -> None:
        judgment = self.judge.judge(self.scenario, self.transcript)
        scores = self.last_scores = score(judgment, self.scenario, self.transcript.rounds)
        for a, role in zip(self.ids, self.scenario.roles, strict=True):
            info: dict[str, Any] = {
                "scores": scores.summary(),
                "judge": judgment.judge,
                "malformed_actions": self.errors[a],
            }
            if scores.CM is None:
                info.update(judge_failed=True, judge_failures=scores.failures)
                rewards[a] = 0.0
            else:
                episodic = agent_reward(
                    scores, role, self.errors[a], self.cpv_weight, self.format_penalty
                )
                rewards[a] += episodic - self.paid[a]
                info.update(
                    judge_failed=False,
                    agent_scores=scores.per_agent[role].model_dump(),
                    episodic_reward=episodic,
                )
            infos[a] = info

    def _dense_terms(self, m: Message) -> dict[AgentID, float]:
        assert isinstance(self.judge, RuleJudge)
        ev = self.judge.evidence(self.scenario, m)
        out: Counter[AgentID] = Counter()
        out[m.sender] += self.bonus["violation"] * len(violations(self.scenario, ev))
        for kind, refs in (
            ("disclosure", self._good_disclosures(ev)),
            ("inquiry", self._good_inquiries(ev)),
        ):
            for ref in refs:
                if (kind, ref) not in self.credited:
                    self.credited.add((kind, ref))
                    out[m.sender] += self.bonus[kind]
        return dict(out)

    def _good_disclosures(self, ev: MessageEvidence) -> list[ItemRef]:
        s, m = self.scenario, ev.message
        i = int(m.sender.rsplit("_", 1)[1])
        blocked = {
            f"agent_{j}"
            for j in range(len(s.agents))
            for r in s.resolution.cannot_know[j]
            if r in ev.disclosed
        }
        audience = set(m.recipients) if m.recipients else set(self.ids) - {m.sender}
        out = []
        for ref in s.resolution.share[i]:
            if ref is None or ref not in ev.disclosed or audience & blocked:
                continue
            private = s.agents[i].pre_interaction_knowledge[ref.name].sensitivity == "private"
            if private == (m.channel == "private"):
                out.append(ref)
        return out

    def _good_inquiries(self, ev: MessageEvidence) -> list[ItemRef]:
        s, m = self.scenario, ev.message
        i = int(m.sender.rsplit("_", 1)[1])
        out = []
        for ref in s.resolution.desired[i]:
            if ref is None or ref not in ev.requested:
                continue
            holder_in = not m.recipients or f"agent_{ref.agent}" in m.recipients
            private = (
                s.agents[ref.agent].pre_interaction_knowledge[ref.name].sensitivity == "private"
            )
            if holder_in and (m.channel == "private" or not private):
                out.append(ref)
        return out


# -- TRL reward functions: (completions, **dataset_columns) -> list[float] ---------------------


def _text(completion: Any) -> str:
    return completion if isinstance(completion, str) else completion[-1]["content"]


def format_reward(completions: list[Any], **kwargs: Any) -> list[float]:
    """0.0 when a completion holds a well-formed action JSON, -1.0 otherwise.

    Example:
        >>> format_reward(['{"action_type": "none", "argument": "", "to": []}', "hello"])
        [0.0, -1.0]
    """
    out = []
    for c in completions:
        obj = first_json_object(_text(c))
        try:
            ok = obj is not None and AgentAction.model_validate(obj) is not None
        except ValidationError:
            ok = False
        out.append(0.0 if ok else -1.0)
    return out


def env_reward(completions: list[Any], env_reward: list[float], **kwargs: Any) -> list[float]:
    """Pass through the reward a rollout already computed in the env (column ``env_reward``).

    Example:
        >>> env_reward(["a", "b"], env_reward=[0.5, -0.2])
        [0.5, -0.2]
    """
    return [float(r) for r in env_reward]


def get_judge_reward(
    metric: str = "reward",
    *,
    judge: Judge | None = None,
    cpv_weight: float = 1.0,
    format_penalty: float = 0.05,
) -> Callable[..., list[float]]:
    """A TRL reward function that (re-)judges saved episodes.

    The returned function takes the columns ``scenario`` (scenario JSON/dict), ``transcript``
    (transcript JSON/dict), ``agent`` (agent id) and optionally ``malformed_actions``, and returns
    the agent's ``metric``: ``"reward"`` (the episodic reward above), ``"CM"``, or one of
    ``"DA"``, ``"IA"``, ``"EFF"``, ``"CPV"`` (per agent).
    """
    judge = judge or RuleJudge()

    def judge_reward(
        completions: list[Any],
        scenario: list[Any],
        transcript: list[Any],
        agent: list[str],
        malformed_actions: list[int] | None = None,
        **kwargs: Any,
    ) -> list[float]:
        out = []
        for k, (s_raw, t_raw, a) in enumerate(zip(scenario, transcript, agent, strict=True)):
            s = s_raw if isinstance(s_raw, Scenario) else Scenario.model_validate(_json(s_raw))
            t = t_raw if isinstance(t_raw, Transcript) else Transcript.model_validate(_json(t_raw))
            sc = score(judge.judge(s, t), s, t.rounds)
            role = t.role(a)
            if sc.CM is None:
                out.append(0.0)
            elif metric == "reward":
                errors = malformed_actions[k] if malformed_actions else 0
                out.append(agent_reward(sc, role, errors, cpv_weight, format_penalty))
            else:
                out.append(getattr(sc.per_agent[role], metric.lower()))
        return out

    judge_reward.__name__ = f"judge_{metric.lower()}_reward"
    return judge_reward


def _json(x: Any) -> Any:
    import json

    return json.loads(x) if isinstance(x, str | bytes) else x
