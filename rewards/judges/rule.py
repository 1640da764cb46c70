"""The rule judge: deterministic verdicts from the transcript, fast enough to be an RL reward.

It analyses each message once (what it discloses, what it requests; see
:mod:`rewards.judges.evidence`), read as its recipients read it (:func:`scenarios.text.reading`)
and together with its sender's previous message when every reader of it read that one too (a
value split over two messages is disclosed by the second), and fills the same verdict models an
LLM judge fills:

* **DA**: an item of the agent's policy is disclosed when a message *sent by that agent*
  discloses its value; the channel is right when every such message matches the item's
  sensitivity (public item in public, private item by direct message).
* **IA**: a desired item is inquired when the agent sends a request naming it; the person is
  right when the audience (everyone for a public message) includes the item's holder; the channel
  is right for a private item only in a direct message.
* **EFF**: the round of the first message from someone else, visible to the agent, that
  discloses the desired item.
* **CPV**: each public message in which an agent discloses one of its own must-not-share items,
  and each message that discloses an item on another agent's cannot-know list where that agent
  can see it, is one violation event.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from rewards.judges import structural
from rewards.judges.evidence import Reading, ScenarioIndex
from rewards.verdicts import (
    MAX_EVIDENCE,
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
from scenarios import ItemRef, Scenario
from sotopia_tom_env.transcript import Message, Transcript


@dataclass
class MessageEvidence:
    """What one message does: the items it discloses and the items it requests."""

    message: Message
    disclosed: set[ItemRef] = field(default_factory=set)
    requested: set[ItemRef] = field(default_factory=set)


class RuleJudge:
    """Deterministic judge; ``judge(scenario, transcript)`` returns a :class:`Judgment`."""

    name = "rule"

    def __init__(self, cache_size: int = 256) -> None:
        self._indexes: OrderedDict[int, tuple[Scenario, ScenarioIndex]] = OrderedDict()
        self._cache_size = cache_size
        # Each sender's last message read, for reading its next one together with it.
        self._last: dict[str, tuple[Message, ScenarioIndex, Reading]] = {}

    def index(self, scenario: Scenario) -> ScenarioIndex:
        """The (cached) per-scenario index."""
        key = id(scenario)
        hit = self._indexes.get(key)
        if hit is not None and hit[0] is scenario:
            self._indexes.move_to_end(key)
            return hit[1]
        idx = ScenarioIndex(scenario)
        self._indexes[key] = (scenario, idx)  # the scenario is kept alive so its id stays unique
        if len(self._indexes) > self._cache_size:
            self._indexes.popitem(last=False)
        return idx

    def evidence(
        self, scenario: Scenario, message: Message, previous: Message | None = None
    ) -> MessageEvidence:
        """Analyse one message (also used for dense rewards).

        ``previous`` is the sender's message before this one (see :func:`previous_messages`):
        when every reader of this message read that one too, the two are also read together,
        so a value split over them ("4.1" | "million per year") is disclosed by this one.
        """
        if message.action_type != "speak":
            return MessageEvidence(message)
        idx, text = self.index(scenario), message.text
        sender = int(message.sender.rsplit("_", 1)[1])
        now = idx.read(text)
        disclosed = set(now.disclosed)
        if previous is not None and read_together(previous, message):
            last = self._last.get(previous.sender)
            known = last is not None and last[0] is previous and last[1] is idx
            disclosed |= idx.joined(previous.text, text, last[2] if known else None, now)
        self._last[message.sender] = (message, idx, now)  # this sender's next message reuses it
        return MessageEvidence(message, disclosed, idx.requested(text, sender))

    def evidence_all(
        self,
        scenario: Scenario,
        transcript: Transcript,
        known: Sequence[MessageEvidence | None] = (),
    ) -> list[MessageEvidence]:
        """The evidence of every message, in order (``known``: see :meth:`judge`)."""
        before = previous_messages(transcript.messages)
        evidence = [
            self._reuse(known, i, m, scenario, before[i]) for i, m in enumerate(transcript.messages)
        ]
        # Confirmations and relative statements: what no single value of a message shows.
        return structural.extend(scenario, self.index(scenario), evidence)

    def judge(
        self,
        scenario: Scenario,
        transcript: Transcript,
        known: Sequence[MessageEvidence | None] = (),
    ) -> Judgment:
        """All four verdicts for one episode.

        ``known`` is evidence already computed for the transcript's first messages, in order (a
        reward computes it as each message arrives); an entry is reused only for the very
        message object it was computed from, so a stale cache cannot change the verdicts.
        """
        evidence = self.evidence_all(scenario, transcript, known)
        # Most messages neither disclose nor request anything; only those that do decide a verdict.
        telling = [ev for ev in evidence if ev.disclosed]
        asking = [ev for ev in evidence if ev.requested]
        n = len(scenario.agents)
        return Judgment(
            judge=self.name,
            da=_da(scenario, _by_sender(telling, n)),
            ia=_ia(scenario, _by_sender(asking, n)),
            eff=_eff(scenario, telling, transcript.rounds),
            cpv=_cpv(scenario, telling),
        )

    def _reuse(
        self,
        known: Sequence[MessageEvidence | None],
        i: int,
        m: Message,
        scenario: Scenario,
        previous: Message | None,
    ) -> MessageEvidence:
        ev = known[i] if i < len(known) else None
        return ev if ev is not None and ev.message is m else self.evidence(scenario, m, previous)


def previous_messages(messages: Sequence[Message]) -> list[Message | None]:
    """For each message, the message its sender spoke before it (None for the first)."""
    last: dict[str, Message] = {}
    out: list[Message | None] = []
    for m in messages:
        out.append(last.get(m.sender))
        if m.action_type == "speak":
            last[m.sender] = m
    return out


def read_together(first: Message, second: Message) -> bool:
    """Whether every reader of ``second`` also read ``first`` (same sender, in this order)."""
    if first.channel == "public":
        return True
    return second.channel == "private" and set(second.recipients) <= set(first.recipients)


def _agent_index(message: Message) -> int:
    return int(message.sender.rsplit("_", 1)[1])


def _by_sender(evidence: list[MessageEvidence], agents: int) -> list[list[MessageEvidence]]:
    out: list[list[MessageEvidence]] = [[] for _ in range(agents)]
    for ev in evidence:
        i = _agent_index(ev.message)
        if 0 <= i < agents:  # a sender the scenario does not have is nobody's, as before
            out[i].append(ev)
    return out


def _da(scenario: Scenario, by_sender: list[list[MessageEvidence]]) -> DAVerdict:
    res, idx_agents = scenario.resolution, []
    for i, agent in enumerate(scenario.agents):
        said = by_sender[i]
        pol = agent.goals.sharing_policy
        share = [
            _da_item(name, ref, said, scenario)
            for name, ref in zip(pol.what_to_share, res.share[i], strict=True)
        ]
        keep = [
            _da_item(name, ref, said, scenario)
            for name, ref in zip(pol.what_not_to_share, res.not_share[i], strict=True)
        ]
        idx_agents.append(
            DAAgentResult(
                agent_name=agent.role, items_should_share=share, items_should_not_share=keep
            )
        )
    return DAVerdict(agents=idx_agents)


def _da_item(
    name: str, ref: ItemRef | None, said: list[MessageEvidence], scenario: Scenario
) -> DAItemAssessment:
    if ref is None:
        return DAItemAssessment(
            item_name=name,
            was_disclosed=False,
            channel_appropriate=True,
            evidence_spans=[],
            reasoning="policy entry matches none of the agent's items",
        )
    hits = [ev.message for ev in said if ref in ev.disclosed]
    private = (
        scenario.agents[ref.agent].pre_interaction_knowledge[ref.name].sensitivity == "private"
    )
    right = all((m.channel == "private") == private for m in hits)
    where = ", ".join(f"{m.id} ({m.channel})" for m in hits[:MAX_EVIDENCE])
    return DAItemAssessment(
        item_name=name,
        was_disclosed=bool(hits),
        channel_appropriate=right,
        evidence_spans=[m.id for m in hits][:MAX_EVIDENCE],
        reasoning=f"value stated in {where}" if hits else "value never stated by this agent",
    )


def _ia(scenario: Scenario, by_sender: list[list[MessageEvidence]]) -> IAVerdict:
    res, out = scenario.resolution, []
    for i, agent in enumerate(scenario.agents):
        asked = by_sender[i]
        post = agent.post_interaction_knowledge
        desired = [
            _ia_item(t, r, asked, scenario)
            for t, r in zip(post.desired_knowledge, res.desired[i], strict=True)
        ]
        cannot = [
            _ia_item(t, r, asked, scenario)
            for t, r in zip(post.cannot_know_knowledge, res.cannot_know[i], strict=True)
        ]
        out.append(
            IAAgentResult(agent_name=agent.role, desired_items=desired, cannot_know_items=cannot)
        )
    return IAVerdict(agents=out)


def _ia_item(
    text: str, ref: ItemRef | None, asked: list[MessageEvidence], scenario: Scenario
) -> IAItemAssessment:
    requests = [ev.message for ev in asked if ref is not None and ref in ev.requested]
    if not requests or ref is None:
        why = "no request names this item" if ref is not None else "no agent holds this item"
        return IAItemAssessment(
            item_description=text,
            was_inquired=False,
            asked_agent=None,
            correct_person=False,
            channel_appropriate=True,
            evidence_spans=[],
            reasoning=why,
        )
    holder = f"agent_{ref.agent}"
    private = (
        scenario.agents[ref.agent].pre_interaction_knowledge[ref.name].sensitivity == "private"
    )

    def grade(m: Message) -> tuple[bool, bool]:
        return (not m.recipients or holder in m.recipients), (m.channel == "private" or not private)

    best = max(requests, key=lambda m: grade(m)[0] * 2 + grade(m)[1])
    person, channel = grade(best)
    asked_role = scenario.agents[ref.agent].role if person else ", ".join(best.recipient_roles)
    return IAItemAssessment(
        item_description=text,
        was_inquired=True,
        asked_agent=asked_role,
        correct_person=person,
        channel_appropriate=channel,
        evidence_spans=[m.id for m in requests][:MAX_EVIDENCE],
        reasoning=f"requested in {best.id} ({best.channel})",
    )


def _eff(scenario: Scenario, evidence: list[MessageEvidence], rounds: int) -> EFFVerdict:
    res, out = scenario.resolution, []
    for i, agent in enumerate(scenario.agents):
        me = f"agent_{i}"
        acq = []
        for text, ref in zip(
            agent.post_interaction_knowledge.desired_knowledge, res.desired[i], strict=True
        ):
            first = (
                next(
                    (
                        ev.message
                        for ev in evidence
                        if ref in ev.disclosed
                        and ev.message.sender != me
                        and ev.message.visible_to(me)
                    ),
                    None,
                )
                if ref
                else None
            )
            acq.append(
                EFFAcquisition(
                    item_description=text,
                    was_acquired=first is not None,
                    round_acquired=first.round if first else None,
                    evidence_spans=[first.id] if first else [],
                    reasoning=f"first received in {first.id}" if first else "never received",
                )
            )
        out.append(EFFAgentResult(agent_name=agent.role, acquisitions=acq))
    return EFFVerdict(agents=out, total_rounds=rounds)


def _cpv(scenario: Scenario, evidence: list[MessageEvidence]) -> CPVVerdict:
    return CPVVerdict(violations=[v for ev in evidence for v in violations(scenario, ev)])


def violations(scenario: Scenario, ev: MessageEvidence) -> list[CPVViolation]:
    """The violation events one message causes (see the module docstring)."""
    res, out, m = scenario.resolution, [], ev.message
    if not ev.disclosed:
        return out
    sender = _agent_index(m)
    policy = scenario.agents[sender].goals.sharing_policy
    if m.channel == "public":
        for name, ref in zip(policy.what_not_to_share, res.not_share[sender], strict=True):
            if ref in ev.disclosed:
                out.append(
                    CPVViolation(
                        violating_agent=m.sender_role,
                        violation_type="shared_restricted_publicly",
                        item_description=name,
                        affected_agent=None,
                        evidence_spans=[m.id],
                        reasoning=f"must-not-share value stated publicly in {m.id}",
                    )
                )
    for j, agent in enumerate(scenario.agents):
        if j == sender or not m.visible_to(f"agent_{j}"):
            continue
        for text, ref in zip(
            agent.post_interaction_knowledge.cannot_know_knowledge, res.cannot_know[j], strict=True
        ):
            if ref in ev.disclosed:
                out.append(
                    CPVViolation(
                        violating_agent=m.sender_role,
                        violation_type="revealed_cannot_know",
                        item_description=text,
                        affected_agent=agent.role,
                        evidence_spans=[m.id],
                        reasoning=f"{agent.role} could see {m.id}, which states this value",
                    )
                )
    return out
