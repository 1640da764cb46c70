"""Prompt templates of the prompted strategies (our wording of the structure in spec §4).

Every template is filled only from the acting agent's own observation (its brief and the
messages it can see) and from state the policy built from that observation. The reply format
at the end of the action prompt comes from the env core (``sotopia_tom_env.instructions``), so
``env.action_instructions(agent)`` gives any other player the same words.
"""

from __future__ import annotations

from sotopia_tom_env.instructions import reply_format

ACTION = """You are {role}. Act as {role} would in this workplace conversation, pursuing your own objective.
Your brief below is private to you. Be natural and concise, and do not repeat what others already said.

{guidance}{aux}

{observation}

{reply_format}"""

GUIDANCE = {
    "basic": """Work toward your primary objective. Take part naturally: answer questions and ask for what you need.
Use "to": [] to speak to everyone, or list role names to message only them. You may leave once you think the discussion is complete.""",
    "cot": """Before you answer, think through these steps silently and output only the final JSON:
1. PROGRESS: what you have learned so far and what you still need; leave if your objective is met.
2. EXCHANGE: which items you may share have not been shared yet and would help someone; offer them. Ask directly for what you still need, from whoever owns it.
3. CHANNEL: public or private? Private facts go in a private message to the people who need them.
4. LEAK CHECK: would your message reveal anything you must not share, even indirectly? If so, rephrase or hold it back.
5. ACTION: choose the single most useful action.
Speak publicly by default, privately only for sensitive content, and never reveal what you must not share.""",
    "tom": """Before you answer, reason silently through these steps and output only the final JSON:
1. PROGRESS: what you have and what you still need; sharing what you may share is how you make progress. Plan to leave once your objective is essentially met.
2. OTHERS' MINDS: for each other participant, what do they know, what do they want, and what do they think about you?
3. STRATEGIC SHARING: offer the items you may share to those who need them (people reciprocate); ask the owner directly for what you need; use a private message when only one person should hear it.
4. LEAKAGE GUARD: remove anything you must not share and watch for indirect hints, but do not hold back what you may share.
5. ACTION: share to get, ask to learn, protect only what is restricted, leave when done.
Aim to complete your objective efficiently rather than being maximally cautious. Speak publicly by default.""",
}
GUIDANCE["tom_coach"] = GUIDANCE["tom_belief"] = GUIDANCE["self_focused"] = GUIDANCE["tom"]

COACH = """You are a theory-of-mind coach advising one participant in a workplace conversation.
You see only what that participant sees: their brief and the messages visible to them.

## Participant
{role}

## Their brief and conversation so far
{observation}

## Task
Write a short note (100-150 words, bullet points, skip empty sections, do not restate the conversation or the brief) with these headed sections:
INTENTIONS: what each other participant is trying to achieve.
BELIEFS ABOUT ME: what they believe about {role}, including any probing for restricted details.
BELIEFS ABOUT EACH OTHER: alliances, tensions, who relies on whom.
PRIVACY RISK: questions or requests that could lead {role} to reveal what it must not share.
RECOMMENDATION: what {role} should do next: share what, ask whom, use a private channel, or deflect."""

COACH_WRAPPER = (
    "\n\n--- Coach's note (for your eyes only; do not quote it) ---\n{note}\n--- End of note ---"
)

BELIEF_INIT = """You keep a private belief record for {role} in a workplace conversation.
From {role}'s brief below, create the initial record:
- one entry in "beliefs" for each other participant ({others}) with what they probably know, do not know, want, and think about {role} (short phrases; empty lists if unknown);
- "sharing_progress": items_not_yet_shared = the items {role} may share; items_still_needed = what its objective says it needs; items_shared and items_acquired empty; objective_progress "Not started";
- "memory" and "privacy_risks" empty.

{observation}"""

_UPDATE = """You keep a private {kind} record for {{role}} in a workplace conversation.
Update the record below with the new messages {{role}} has seen.
- {first}
- Move items {{role}} has shared from items_not_yet_shared to items_shared, and items it has learned from items_still_needed to items_acquired.
- Set objective_progress honestly: "Not started", "In progress", "Mostly complete" or "Complete - ready to leave".
- Add a memory entry for each notable event and a privacy_risks entry for each attempt to get restricted details (turn = the step number).
- Keep entries that did not change, avoid duplicates, one short sentence per entry.

## {{role}}'s brief
{{brief}}

## Current record
{{state}}

## New messages
{{new}}"""

BELIEF_UPDATE = _UPDATE.format(
    kind="belief",
    first="Revise what each participant knows, does not know, wants and thinks about {role}.",
)

PLAN_INIT = """You keep a private planning record for {role} in a workplace conversation.
From {role}'s brief below, create the initial record:
- "planning": 2-3 next_actions, no blockers, and a one-sentence conversation_strategy;
- "sharing_progress": items_not_yet_shared = the items {role} may share; items_still_needed = what its objective says it needs; items_shared and items_acquired empty; objective_progress "Not started";
- "memory" and "privacy_risks" empty.

{observation}"""

PLAN_UPDATE = _UPDATE.format(
    kind="planning", first="Revise next_actions, blockers and the conversation_strategy."
)


def action_prompt(
    strategy: str, role: str, observation: str, others: list[str], aux: str = ""
) -> str:
    """The action call's prompt: what a prompted player (or a trained one) sees on its turn.

    Example:
        >>> "Possible recipients: B, C." in action_prompt("basic", "A", "(brief)", ["B", "C"])
        True
    """
    return ACTION.format(role=role, guidance=GUIDANCE[strategy], aux=aux,
                         observation=observation, reply_format=reply_format(others))  # fmt: skip


RETRY = (
    "\n\nYour previous reply could not be used: {error}. Reply again with one valid JSON object."
)
