"""Why agents lose Inquiry Alignment: each desired item without IA credit, by kind of failure.

IA credits a desired item when the agent asked for it, of an audience that holds it, on a
fitting channel (a private item only by direct message). Every item without that credit fails
in exactly one way, read from the judge's IA verdict in the order the conditions apply:

* ``never_asked``: no message of the agent asked for the item;
* ``wrong_person``: it was asked, but no holder of the item was in the audience (a direct
  message to others only);
* ``wrong_channel``: a holder heard the request, but the item is private and was asked in
  public;
* ``not_judged``: the judge's verdict left the item out (IA scores it 0 too).

The rule judge grades an item by its best request (holder reached first, then channel), so an
item asked once of the wrong person and once of the holder in public is a wrong-channel failure.
Episodes without an IA verdict (a failed judgment) are not counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from rewards.metrics import _align  # the IA metric's own item matching, so counts agree with it
from rewards.verdicts import IAItemAssessment
from sotopia_tom_app.bench.records import EpisodeRecord

FAILURES = ("never_asked", "wrong_person", "wrong_channel", "not_judged")


def classify(item: IAItemAssessment | None) -> str | None:
    """The failure kind of one desired item's assessment; ``None`` when it earned IA credit.

    Example:
        >>> from rewards.verdicts import IAItemAssessment
        >>> asked = dict(item_description="x", was_inquired=True, asked_agent="CFO",
        ...              evidence_spans=["R0.0"], reasoning="")
        >>> classify(IAItemAssessment(**asked, correct_person=True, channel_appropriate=False))
        'wrong_channel'
        >>> classify(IAItemAssessment(**asked, correct_person=True, channel_appropriate=True)) is None
        True
    """
    if item is None:
        return "not_judged"
    if not item.was_inquired:
        return "never_asked"
    if not item.correct_person:
        return "wrong_person"
    if not item.channel_appropriate:
        return "wrong_channel"
    return None


def episode_failures(record: EpisodeRecord) -> dict[str, int] | None:
    """Counts of one episode: ``desired``, ``credited`` and each failure kind (``None``: no IA verdict)."""
    verdict = record.judgment.ia if record.judgment is not None else None
    if verdict is None:
        return None
    counts = dict.fromkeys(("desired", "credited", *FAILURES), 0)
    roles = [a.role for a in record.scenario.agents]
    judged_agents, _ = _align(roles, verdict.agents, lambda a: a.agent_name)
    for spec, got in zip(record.scenario.agents, judged_agents, strict=True):
        names = spec.post_interaction_knowledge.desired_knowledge
        items, _ = _align(names, got.desired_items if got else [], lambda x: x.item_description)
        for item in items:
            counts["desired"] += 1
            counts[classify(item) or "credited"] += 1
    return counts


def inquiry_failures(
    records: Iterable[EpisodeRecord], key: Callable[[EpisodeRecord], str]
) -> dict[str, dict[str, Any]]:
    """Per group (``key`` of a record, e.g. its policy label): IA-judged episodes and item counts.

    Each row holds ``episodes``, ``desired``, ``credited`` and a count per failure kind, so
    ``credited`` plus the failures is ``desired``.

    Example:
        >>> inquiry_failures([], key=lambda r: r.policy)
        {}
    """
    out: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"episodes": 0, **dict.fromkeys(("desired", "credited", *FAILURES), 0)}
    )
    for r in records:
        counts = episode_failures(r)
        if counts is None:
            continue
        row = out[key(r)]
        row["episodes"] += 1
        for k, v in counts.items():
            row[k] += v
    return dict(out)
