"""Which single messages earn dense credit: good disclosures and well-aimed requests.

Both mirror the rule judge's item-level verdicts for one message, so the dense bonuses of
:class:`~rewards.reward.JudgeReward` go to exactly the moves that DA and IA reward later.
"""

from __future__ import annotations

from rewards.judges.rule import MessageEvidence
from scenarios import ItemRef, Scenario


def _private(scenario: Scenario, ref: ItemRef) -> bool:
    return scenario.agents[ref.agent].pre_interaction_knowledge[ref.name].sensitivity == "private"


def good_disclosures(scenario: Scenario, ev: MessageEvidence) -> list[ItemRef]:
    """The sender's shareable items the message discloses well.

    Well means on the item's channel (public item in public, private item by direct message)
    and seen by nobody who has the item, or any other item the message discloses, on its
    cannot-know list.
    """
    m = ev.message
    i = int(m.sender.rsplit("_", 1)[1])
    blocked = {
        f"agent_{j}"
        for j, refs in enumerate(scenario.resolution.cannot_know)
        for r in refs
        if r in ev.disclosed
    }
    everyone = {f"agent_{j}" for j in range(len(scenario.agents))}
    audience = set(m.recipients) if m.recipients else everyone - {m.sender}
    if audience & blocked:
        return []
    return [
        ref
        for ref in scenario.resolution.share[i]
        if ref is not None
        and ref in ev.disclosed
        and _private(scenario, ref) == (m.channel == "private")
    ]


def good_inquiries(scenario: Scenario, ev: MessageEvidence) -> list[ItemRef]:
    """The sender's desired items the message asks for well.

    Well means the item's holder is in the audience (everyone, for a public message) and a
    private item is asked for by direct message.
    """
    m = ev.message
    i = int(m.sender.rsplit("_", 1)[1])
    return [
        ref
        for ref in scenario.resolution.desired[i]
        if ref is not None
        and ref in ev.requested
        and (not m.recipients or f"agent_{ref.agent}" in m.recipients)
        and (m.channel == "private" or not _private(scenario, ref))
    ]
