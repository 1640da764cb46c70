"""Prompt templates of the prompted strategies (our wording of the structure in spec §4).

Every template is filled only from the acting agent's own observation (its brief and the
messages it can see) and from state the policy built from that observation. The reply format
at the end of the action prompt comes from the env core (``sotopia_tom_env.instructions``).

By default the prompts follow the paper's players. Our refinements are named options
(:data:`PLAYER_OPTIONS`), off unless asked for, because each one moves scores: a result is only
comparable with the paper's when none is on.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from policies import compact
from sotopia_tom_env.instructions import REPLY_FORMAT, reply_format
from sotopia_tom_env.seat import read_seat

PLAYER_OPTIONS: dict[str, str] = {
    "recipient_enum": "list the valid recipients in the prompt and allow only them in the "
    "reply schema's 'to' (the paper lets the model write names and the env resolve them)",
    "short_messages": "ask for concise messages and cap them at 400 characters; every call "
    "gets the budget fitted to its purpose (policies.budgets) whatever the model; the paper "
    "sets no budget",
    "capped_beliefs": "bound the ToM-Belief / Self-Focused state: at most 2 short notes per "
    "belief or plan list, 5 short items per progress list, beliefs only about participants",
    "ask_nudge": "Basic also tells the player to ask for what it needs (the paper's Basic only "
    "says to answer questions)",
    "reply_ceiling": "cap every call at 1024 tokens (policies.budgets: the fitted budgets of a "
    "small model are lower already), so a small model's runaway loop (a state "
    "that repeats one word until the context is full) ends as an invalid reply instead of "
    "running into the client's timeout; no valid action reply comes near it",
    "compact": "render the observation in the compact layout (policies.compact): the same "
    "facts and rules in about half the tokens, others named by agent id; the layout trained "
    "players learn on (the paper's layout is the default)",
    "guard": "cut from each message the pieces that state a fact on the seat's must-not-share "
    "list, read as the rule judge reads messages but over the seat's own brief "
    "(policies.guard); the paper's players send what the model wrote",
    "channel": "keep the seat's public facts off its direct messages (policies.guard): the "
    "pieces of a direct message that state only public facts of its brief are cut, and a "
    "message of nothing else goes in public with the ones not posted yet; the paper's players "
    "send what the model wrote on the channel it chose",
    "aux_last": "put the coach note or tracked state after the conversation, not between the "
    "guidance and the conversation as the paper does, so each action prompt extends the "
    "agent's previous one and a server's prefix cache can reuse it",
}
"""Our refinements of the paper's players, by name, with what each one changes."""


def check_options(options: Iterable[str]) -> tuple[str, ...]:
    """The player options, validated, sorted and without duplicates.

    Raises:
        ValueError: naming the unknown options and listing the known ones.

    Example:
        >>> check_options(["short_messages", "recipient_enum", "short_messages"])
        ('recipient_enum', 'short_messages')
    """
    chosen = {o.strip() for o in options if o.strip()}
    unknown = sorted(chosen - PLAYER_OPTIONS.keys())
    if unknown:
        raise ValueError(
            f"unknown player option(s) {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(PLAYER_OPTIONS)}"
        )
    return tuple(sorted(chosen))


SHORT_MESSAGE_CHARS = 400
"""Longest message under ``short_messages``."""

ACTION = """You are {role}. Act as {role} would in this workplace conversation, pursuing your own objective.
Your brief below is private to you. Be natural{concise}, and do not repeat what others already said.
You may leave once your objective is met, or when staying no longer serves it.

{guidance}{aux}

{observation}{aux_last}

{reply_format}"""

CONCISE = f" and concise (at most {SHORT_MESSAGE_CHARS} characters a message)"

# The paper's Basic only says to engage and answer; "ask for what you need" is our nudge.
BASIC = """Work toward your primary objective. Take part naturally and {engage}.
Use "to": [] to speak to everyone, or list role names to message only them. You may leave once you think the discussion is complete."""
ENGAGE = "answer the questions you are asked"
ENGAGE_AND_ASK = "answer the questions you are asked; ask for what you need"

GUIDANCE = {
    "basic": BASIC.format(engage=ENGAGE),
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

# Everything that changes from one update to the next (step, record, new messages) comes after
# the brief, so consecutive updates share a prefix the server can cache.
_UPDATE = """You keep a private {kind} record for {{role}} in a workplace conversation.
Update the record below with the new messages {{role}} has seen.
- {first}
- Move items {{role}} has shared from items_not_yet_shared to items_shared, and items it has learned from items_still_needed to items_acquired.
- Set objective_progress honestly: "Not started", "In progress", "Mostly complete" or "Complete - ready to leave".
- Add a memory entry for each notable event and a privacy_risks entry for each attempt to get restricted details; give each new entry the current step as its turn.
- Keep entries that did not change, avoid duplicates, one short sentence per entry; what matters most is progress toward the objective.

## {{role}}'s brief
{{brief}}

## Current step
It is step {{step}}.

## Current record
{{state}}

## New messages
{{new}}"""

BELIEF_UPDATE = _UPDATE.format(
    kind="belief",
    first="Revise what each participant knows, does not know, wants and thinks about {role}; "
    "drop does_not_know entries that the new messages answered.",
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

# The env's reply format without its last sentence, which lists the valid recipients: the
# paper's players get the names only from the participants line of their brief.
_FREE_REPLY_FORMAT = REPLY_FORMAT.rsplit(" Possible recipients:", 1)[0]


def action_prompt(
    strategy: str,
    role: str,
    observation: str,
    others: list[str],
    aux: str = "",
    *,
    options: Collection[str] = (),
) -> str:
    """The action call's prompt: what a prompted player (or a trained one) sees on its turn.

    Args:
        strategy: one of ``policies.prompted.STRATEGIES``.
        role: the acting agent's role name.
        observation: its observation text (brief, visible messages, status line).
        others: the other participants' role names.
        aux: the strategy's injected block (coach note, rendered state), if any: between the
            guidance and the observation, as in the paper, or after the observation with the
            ``aux_last`` option.
        options: player options (:data:`PLAYER_OPTIONS`) that change the words or their order.

    Example:
        >>> "Possible recipients" in action_prompt("basic", "A", "(brief)", ["B", "C"])
        False
        >>> opts = ["recipient_enum"]
        >>> "Possible recipients: B, C." in action_prompt("basic", "A", "(brief)", ["B", "C"], options=opts)
        True
    """
    guidance = GUIDANCE[strategy]
    if strategy == "basic" and "ask_nudge" in options:
        guidance = BASIC.format(engage=ENGAGE_AND_ASK)
    if "compact" in options:
        compact_guidance = compact.BASIC if guidance == GUIDANCE["basic"] else guidance
        return compact.compact_prompt(read_seat(observation), compact_guidance, aux)
    fmt = reply_format(others) if "recipient_enum" in options else _FREE_REPLY_FORMAT
    concise = CONCISE if "short_messages" in options else ""
    aux, aux_last = ("", aux) if "aux_last" in options else (aux, "")
    return ACTION.format(role=role, concise=concise, guidance=guidance, aux=aux,
                         observation=observation, aux_last=aux_last, reply_format=fmt)  # fmt: skip


RETRY = (
    "\n\nYour previous reply could not be used: {error}. Reply again with one valid JSON object."
)
