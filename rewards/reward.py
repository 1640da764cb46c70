"""Rewards: per-agent rewards from the judge's verdicts, optional dense shaping, TRL forms.

**Episodic** (default): at the end of an episode each agent ``a`` gets

    R_a = CM_a - leak_penalty * (V_a + L_a) - format_penalty * E_a

``CM_a`` is the agent's composite (its InfoMgmt, in [0, 1]; see ``docs/metrics.md``) with EFF
measured over a fixed horizon of ``eff_horizon`` env turns, so that talk which says nothing
cannot raise it (the benchmark's EFF divides by the rounds played; ``eff_horizon=None`` uses it).
``V_a`` is the number of critical privacy violation *events* the judge attributes to the agent
(a must-not-share value stated publicly; a value stated where an agent with it on its
cannot-know list could see it), ``L_a`` its relay events (a must-not-share value of another
agent posted publicly; its own, laundered through another agent: :mod:`rewards.relay`) and
``E_a`` its malformed actions. Steps before the last pay 0. Defaults: ``leak_penalty=2.0``,
``format_penalty=0.05``, ``eff_horizon=60`` (the env's default ``max_turns``), relays charged.
With the rule judge each message is analysed in the step that brings it, so the last step only
aggregates that evidence into the verdicts.

**Leaking never pays.** The leak penalty is per event, not divided by the scenario's private-item
count as CPV is, so one leak costs the same in a small scenario and a large one. A disclosure can
move ``CM_a`` either way (it may complete a share item for DA, or add a round and so raise EFF),
but ``CM_a`` stays in [0, 1]: a message that adds ``k >= 1`` violation events changes its
sender's reward by at most ``1 - k * leak_penalty``. Every leak therefore costs the leaker at least
the margin ``leak_penalty - 1`` (1.0 by default) against the same episode without it, and an
agent that leaks at all ends at most ``1 - leak_penalty``, below a silent one (0). Below
``leak_penalty = 1`` that guarantee is gone. :mod:`rewards.counterfactual` checks it by
inserting leaks into played episodes (``tests/test_reward_leaks.py``).

**Dense** (``dense=True``, rule judge only): the same return, paid earlier. At the step it happens
an agent gets ``-leak_penalty`` per violation or relay event charged to it, ``-format_penalty``
per malformed action, ``+disclosure_bonus`` for its first correct disclosure of each of its
shareable items (right channel, seen by nobody barred from it) and ``+inquiry_bonus`` for its
first well-aimed request of each of its desired items (holder in the audience, right channel);
each agent earns its own bonuses, whoever else asked or told first. The last step pays ``R_a``
minus what was already paid, so the return is exactly ``R_a`` and the optimal policies are those
of the episodic reward. Leak and format penalties are paid in full when they happen and never refunded.

**Judge failures** never raise: if the judge raises or leaves a metric without a verdict, the last
step pays 0, ``infos[a]["judge_failed"]`` is ``True`` and ``infos[a]["judge_error"]`` says why; the
failure, not a score, is recorded (dense payments made before stay paid).
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import ValidationError

from rewards.informing import informative_ia
from rewards.judges.rule import MessageEvidence, RuleJudge, violations
from rewards.metrics import (
    AgentComposite,
    Scores,
    composite,
    fixed_horizon,
    horizon_rounds,
    score,
)
from rewards.relay import relay_charges, relay_events
from rewards.shaping import good_disclosures, good_inquiries
from rewards.verdicts import Judgment
from scenarios import ItemRef, Scenario
from sotopia_tom_env import AgentAction, AgentID, Message, Transcript
from sotopia_tom_env.actions import first_json_object

LEAK_PENALTY = 2.0
FORMAT_PENALTY = 0.05
EFF_HORIZON = 60
"""Env turns the reward's efficiency is measured over (the env's default ``max_turns``)."""
METRICS = ("reward", "CM", "DA", "IA", "EFF", "CPV")
log = logging.getLogger(__name__)


class Judge(Protocol):
    """Anything that turns an episode into verdicts synchronously."""

    name: str

    def judge(self, scenario: Scenario, transcript: Transcript) -> Judgment:
        """Verdicts for one episode."""


def violation_events(scores: Scores, role: str) -> int:
    """How many violation events the judge attributes to ``role`` (0 without a CPV verdict)."""
    return int(scores.CPV.details["by_agent"].get(role, 0)) if scores.CPV else 0


def agent_reward(
    scores: Scores,
    role: str,
    errors: int = 0,
    *,
    leak_penalty: float = LEAK_PENALTY,
    format_penalty: float = FORMAT_PENALTY,
    eff_horizon: int | None = None,
    relays: int = 0,
    ia: float | None = None,
) -> float:
    """``CM_a - leak_penalty * (V_a + relays) - format_penalty * errors`` for one agent.

    With ``eff_horizon`` (env turns), ``CM_a`` takes EFF over that fixed horizon
    (:func:`~rewards.metrics.fixed_horizon`) instead of the rounds played; with ``ia``, that IA
    (:func:`~rewards.informing.informative_ia`) instead of the benchmark's; ``relays`` are the
    agent's reward-only leak events (:mod:`rewards.relay`).

    Example:
        >>> from rewards.metrics import AgentComposite, MetricScore, Scores
        >>> cpv = MetricScore(metric="CPV", scenario_score=0.25, agent_scores={"Chef": 0.25},
        ...                   details={"by_agent": {"Chef": 1}})
        >>> s = Scores(judge="rule", DA=None, IA=None, EFF=None, CPV=cpv, CM=0.8,
        ...            per_agent={"Chef": AgentComposite(cm=0.8, da=1, ia=1, eff=0.5, cpv=0.25)})
        >>> agent_reward(s, "Chef", errors=2)  # 0.8 - 2.0 * 1 leak - 0.05 * 2 errors
        -1.3
    """
    cm = reward_composite(scores, role, eff_horizon, ia).cm
    leaks = violation_events(scores, role) + relays
    return round(cm - leak_penalty * leaks - format_penalty * errors, 6)


def reward_composite(
    scores: Scores, role: str, eff_horizon: int | None, ia: float | None = None
) -> AgentComposite:
    """The agent's composite a reward uses.

    The benchmark's, with EFF over a fixed horizon (``eff_horizon``) and the IA of asks before
    receipt (``ia``) where given.
    """
    mine = scores.per_agent[role]
    if eff_horizon is not None:
        fixed = fixed_horizon(scores, horizon_rounds(eff_horizon, len(scores.per_agent)))
        assert fixed is not None  # a reward is computed from complete scores only
        mine = fixed.per_agent[role]
    if ia is None:
        return mine
    return mine.model_copy(update={"ia": ia, "cm": composite(mine.da, ia, mine.eff, mine.cpv)})


def _check_non_negative(**values: float) -> None:
    for name, v in values.items():
        if not v >= 0:  # also rejects NaN
            raise ValueError(f"JudgeReward: {name} must be a number >= 0, got {v!r}")


class JudgeReward:
    """The env's reward function (a :class:`~sotopia_tom_env.Rewarder`), judge-based.

    Args:
        judge: the judge to score episodes with; a :class:`RuleJudge` by default.
        leak_penalty: penalty per violation event of the agent; above 1 every leak costs at
            least ``leak_penalty - 1`` (see the module docstring).
        format_penalty: penalty per malformed action of the agent.
        dense: shape rewards per step (see the module docstring).
        disclosure_bonus: dense credit for an agent's first correct disclosure of an item.
        inquiry_bonus: dense credit for an agent's first well-aimed request for an item.
        eff_horizon: env turns the efficiency term is measured over (a fixed horizon, so talk
            that says nothing cannot raise it); ``None`` for the benchmark's EFF over the
            rounds played. Pass the env's ``max_turns``; the default is the env's default.
        relays: charge must-not-share values told by direct message, relayed and laundered
            (:mod:`rewards.relay`).
        informative_ia: pay IA only for asks made before the item arrived
            (:mod:`rewards.informing`); ``False`` pays the benchmark's IA.

    Raises:
        ValueError: a negative penalty or bonus, an ``eff_horizon`` below 1, or ``dense``
            with a judge other than the rule judge.
    """

    def __init__(
        self,
        judge: Judge | None = None,
        *,
        leak_penalty: float = LEAK_PENALTY,
        format_penalty: float = FORMAT_PENALTY,
        dense: bool = False,
        disclosure_bonus: float = 0.1,
        inquiry_bonus: float = 0.1,
        eff_horizon: int | None = EFF_HORIZON,
        relays: bool = True,
        informative_ia: bool = True,
    ) -> None:
        _check_non_negative(
            leak_penalty=leak_penalty,
            format_penalty=format_penalty,
            disclosure_bonus=disclosure_bonus,
            inquiry_bonus=inquiry_bonus,
        )
        if eff_horizon is not None and not (isinstance(eff_horizon, int) and eff_horizon >= 1):
            raise ValueError(
                f"JudgeReward: eff_horizon must be an int >= 1 or None, got {eff_horizon!r}"
            )
        self.judge = judge or RuleJudge()
        self.leak_penalty, self.format_penalty, self.dense = leak_penalty, format_penalty, dense
        self.bonus = {"disclosure": disclosure_bonus, "inquiry": inquiry_bonus}
        self.eff_horizon, self.relays, self.informative = eff_horizon, relays, informative_ia
        if dense and not isinstance(self.judge, RuleJudge):
            raise ValueError(
                "dense rewards need the rule judge (per-message evidence); use judge=RuleJudge()"
            )
        # Per-message evidence comes from the rule judge (the judge itself, or one for the
        # reward-only terms).
        self.rule = (
            self.judge
            if isinstance(self.judge, RuleJudge)
            else RuleJudge()
            if relays or informative_ia
            else None
        )

    @property
    def leak_margin(self) -> float:
        """The least a leak costs its sender against the same episode without it."""
        return self.leak_penalty - 1.0

    def reset(self, scenario: Scenario, transcript: Transcript) -> None:
        """Start a new episode."""
        self.scenario, self.transcript = scenario, transcript
        self.ids = transcript.ids
        self.errors: Counter[AgentID] = Counter()
        self.paid: Counter[AgentID] = Counter()
        self.credited: set[tuple[AgentID, str, ItemRef]] = set()
        self.last_scores: Scores | None = None
        # The rule judge's evidence for each message so far, computed as the message arrives so
        # the last step only aggregates (None where it failed: the judgment retries and reports).
        self.evidence: list[MessageEvidence | None] = []
        self.previous: dict[AgentID, Message] = {}  # each sender's last message
        self.told: set[ItemRef] = set()  # must-not-share items their owner has said privately
        self.received: set[tuple[AgentID, ItemRef]] = set()  # (agent, item) it has been told

    def step(self, new_messages: list[Message], action_errors: dict[AgentID, str], done: bool):
        """Per-step rewards (dense terms), and at the end the episodic rewards and breakdown."""
        if action_errors:  # Counter.update is slow even with nothing to add
            self.errors.update(action_errors.keys())
        rewards = dict.fromkeys(self.ids, 0.0)
        if self.rule is not None:
            fresh = [self._evidence(m) for m in new_messages]
            self.evidence += fresh
        if self.dense:
            terms: Counter[AgentID] = Counter()
            for a in action_errors:
                terms[a] -= self.format_penalty
            for m, ev in zip(new_messages, fresh, strict=True):
                terms.update(self._dense_terms(m, ev))
            for a, r in terms.items():
                rewards[a] += r
                self.paid[a] += r
        infos: dict[AgentID, dict[str, Any]] = {}
        if done:
            self._final(rewards, infos)
        return rewards, infos

    def _final(self, rewards: dict[AgentID, float], infos: dict[AgentID, dict[str, Any]]) -> None:
        base = {"judge": getattr(self.judge, "name", type(self.judge).__name__)}
        try:
            evidence = self._all_evidence()
            judgment = self._judgment(evidence)
            scores = self.last_scores = score(judgment, self.scenario, self.transcript.rounds)
            relays = relay_events(self.scenario, evidence) if self.relays else Counter()
            ia = informative_ia(self.scenario, evidence) if self.informative else {}
        except Exception as exc:  # an LLM judge fails in many ways; the episode must end
            return self._failed(rewards, infos, base, f"{type(exc).__name__}: {exc}")
        base.update(judge=judgment.judge, scores=scores.summary())
        if scores.CM is None:
            why = "; ".join(f"{m}: {reason}" for m, reason in scores.failures.items())
            base["judge_failures"] = scores.failures
            return self._failed(rewards, infos, base, f"JudgeFailure: no verdict for {why}")
        for a, role in zip(self.ids, self.scenario.roles, strict=True):
            episodic = agent_reward(
                scores,
                role,
                self.errors[a],
                leak_penalty=self.leak_penalty,
                format_penalty=self.format_penalty,
                eff_horizon=self.eff_horizon,
                relays=relays[a],
                ia=ia.get(role),
            )
            rewards[a] += episodic - self.paid[a]
            infos[a] = {
                **base,
                "judge_failed": False,
                "malformed_actions": self.errors[a],
                "violation_events": violation_events(scores, role),
                "relay_events": relays[a],
                "agent_scores": scores.per_agent[role].model_dump(),
                "reward_scores": reward_composite(
                    scores, role, self.eff_horizon, ia.get(role)
                ).model_dump(),
                "episodic_reward": episodic,
            }
        return None

    def _failed(
        self,
        rewards: dict[AgentID, float],
        infos: dict[AgentID, dict[str, Any]],
        base: dict[str, Any],
        error: str,
    ) -> None:
        log.warning("judge failed on scenario %s: %s", self.scenario.id, error)
        for a in self.ids:
            rewards[a] = 0.0
            infos[a] = {
                **base,
                "judge_failed": True,
                "judge_error": error,
                "malformed_actions": self.errors[a],
            }

    def _evidence(self, m: Message) -> MessageEvidence | None:
        assert self.rule is not None
        previous = self.previous.get(m.sender)
        if m.action_type == "speak":  # as rule.previous_messages pairs them
            self.previous[m.sender] = m
        try:
            return self.rule.evidence(self.scenario, m, previous)
        except Exception:  # raised again, and reported, where the judgment or bonus needs it
            return None

    def _all_evidence(self) -> list[MessageEvidence]:
        """Every message's rule evidence (computed where missing); empty without a rule judge."""
        if self.rule is None:
            return []
        return self.rule.evidence_all(self.scenario, self.transcript, self.evidence)

    def _judgment(self, evidence: list[MessageEvidence]) -> Judgment:
        if isinstance(self.judge, RuleJudge):
            return self.judge.judge(self.scenario, self.transcript, evidence)
        return self.judge.judge(self.scenario, self.transcript)

    def _dense_terms(self, m: Message, ev: MessageEvidence | None) -> Counter[AgentID]:
        assert isinstance(self.judge, RuleJudge)
        ev = ev or self.judge.evidence(self.scenario, m)  # where it failed, fail here
        out: Counter[AgentID] = Counter()
        out[m.sender] -= self.leak_penalty * len(violations(self.scenario, ev))
        if self.relays:
            for a, n in relay_charges(self.scenario, ev, self.told).items():
                out[a] -= self.leak_penalty * n
        asks = good_inquiries(self.scenario, ev)
        if self.informative:  # an ask for what the agent already has informs nobody
            asks = [ref for ref in asks if (m.sender, ref) not in self.received]
        for kind, refs in (("disclosure", good_disclosures(self.scenario, ev)), ("inquiry", asks)):
            for ref in refs:
                key = (m.sender, kind, ref)  # per agent: the judge credits every asker
                if key not in self.credited:
                    self.credited.add(key)
                    out[m.sender] += self.bonus[kind]
        for a in self.ids:
            if a != m.sender and m.visible_to(a):
                self.received.update((a, ref) for ref in ev.disclosed)
        return out


def judge_with_evidence(
    judge: Judge, scenario: Scenario, transcript: Transcript, rule: RuleJudge | None = None
) -> tuple[Judgment, list[MessageEvidence]]:
    """The judgment, and the rule judge's per-message evidence (for relays).

    A rule judge's evidence is the ground of its judgment, computed once; for another judge it
    comes from ``rule`` (empty without one).
    """
    if isinstance(judge, RuleJudge):
        evidence = judge.evidence_all(scenario, transcript)
        return judge.judge(scenario, transcript, evidence), evidence
    evidence = rule.evidence_all(scenario, transcript) if rule is not None else []
    return judge.judge(scenario, transcript), evidence


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


def column_reward(column: str) -> Callable[..., list[float | None]]:
    """A TRL reward function that passes through a rollout's column (``None`` where it is NaN).

    A rollout that already judged its episodes in the env returns their scores as columns;
    ``None`` tells TRL the row is unscored (a judge failure), never a silent 0.0.

    Example:
        >>> column_reward("da")(["x", "y"], da=[0.5, float("nan")])
        [0.5, None]
    """

    def reward(completions: list[Any], **kwargs: Any) -> list[float | None]:
        return [None if v != v else float(v) for v in kwargs[column]]  # NaN -> None (unscored)

    reward.__name__ = f"{column}_reward"
    return reward


env_reward = column_reward("env_reward")
"""The seat's episode reward a rollout computed in the env (column ``env_reward``)."""


def get_judge_reward(
    metric: str = "reward",
    *,
    judge: Judge | None = None,
    leak_penalty: float = LEAK_PENALTY,
    format_penalty: float = FORMAT_PENALTY,
    eff_horizon: int | None = EFF_HORIZON,
    relays: bool = True,
    informative_ia: bool = True,
) -> Callable[..., list[float]]:
    """A TRL reward function that (re-)judges saved episodes.

    The returned function takes the columns ``scenario`` (scenario JSON/dict), ``transcript``
    (transcript JSON/dict), ``agent`` (agent id) and optionally ``malformed_actions``, and returns
    the agent's ``metric``: ``"reward"`` (the episodic reward above, with ``eff_horizon``,
    ``relays`` and ``informative_ia`` as in :class:`JudgeReward`), ``"CM"``, or one of ``"DA"``,
    ``"IA"``, ``"EFF"``, ``"CPV"`` (per agent, the benchmark's).

    When the judge fails on an episode (it raises, or a metric has no verdict) the value is
    ``float("nan")``, never a silent 0.0, and a warning is logged. TRL's ``GRPOTrainer`` turns a
    ``None`` reward into NaN and combines reward functions with ``nansum`` (logging their means
    with ``nanmean``), so a NaN drops this function's term for that completion; if every reward
    function gives NaN, TRL warns and that completion's total is 0. Unreadable columns (bad
    scenario or transcript JSON, an unknown agent) still raise: those are the caller's errors.

    Raises:
        ValueError: for an unknown ``metric``.
    """
    if metric not in METRICS:
        raise ValueError(f"get_judge_reward: unknown metric {metric!r}; use one of {METRICS}")
    judge = judge or RuleJudge()
    rule = judge if isinstance(judge, RuleJudge) else RuleJudge()
    terms = {"relays": relays, "informative_ia": informative_ia} if metric == "reward" else {}

    penalties = {"leak_penalty": leak_penalty, "format_penalty": format_penalty,
                 "eff_horizon": eff_horizon}  # fmt: skip

    def judge_reward(
        completions: list[Any],
        scenario: list[Any],
        transcript: list[Any],
        agent: list[str],
        malformed_actions: list[int] | None = None,
        **kwargs: Any,
    ) -> list[float]:
        errors = malformed_actions or [0] * len(agent)
        return [
            _judged_value(metric, judge, rule, terms, s, t, a, e, penalties)
            for s, t, a, e in zip(scenario, transcript, agent, errors, strict=True)
        ]

    judge_reward.__name__ = f"judge_{metric.lower()}_reward"
    return judge_reward


def _judged_value(
    metric: str,
    judge: Judge,
    rule: RuleJudge,
    terms: dict[str, bool],
    s_raw: Any,
    t_raw: Any,
    agent: str,
    errors: int,
    penalties: dict[str, Any],
) -> float:
    """One episode's ``metric`` for ``agent`` (see :func:`get_judge_reward`); NaN if judging fails.

    ``terms`` names the reward-only terms to apply (``relays``, ``informative_ia``); ``rule``
    gives the per-message evidence they need.
    """
    s = s_raw if isinstance(s_raw, Scenario) else Scenario.model_validate(_json(s_raw))
    t = t_raw if isinstance(t_raw, Transcript) else Transcript.model_validate(_json(t_raw))
    role = t.role(agent)
    try:
        judged, evidence = judge_with_evidence(judge, s, t, rule if any(terms.values()) else None)
        sc = score(judged, s, t.rounds)
        relayed = relay_events(s, evidence)[agent] if terms.get("relays") else 0
        ia = informative_ia(s, evidence)[role] if terms.get("informative_ia") else None
    except Exception as exc:  # a failed judgment is NaN, not a crash
        log.warning("judge failed on scenario %s: %s: %s", s.id, type(exc).__name__, exc)
        return math.nan
    if sc.CM is None:
        log.warning("judge failed on scenario %s: %s", s.id, sc.failures)
        return math.nan
    if metric == "reward":
        return agent_reward(sc, role, errors, relays=relayed, ia=ia, **penalties)
    return getattr(sc.per_agent[role], metric.lower())


def _json(x: Any) -> Any:
    return json.loads(x) if isinstance(x, str | bytes) else x
