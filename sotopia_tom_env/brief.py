"""What an agent is told: the shared scenario context and its own private brief.

The brief holds only the agent's own knowledge, objective and sharing policy. Other agents'
briefs and every agent's ``post_interaction_knowledge`` (the evaluation targets) are never
rendered here; the privacy tests check this with canaries.

Scenario text is rendered with :func:`~sotopia_tom_env.render.one_line` too, so a field of a
scenario file can no more fake a heading than a message can: every heading of an observation
is one the env wrote, and :func:`split_observation` relies on that.
"""

from __future__ import annotations

import re

from scenarios import AgentSpec, Scenario
from sotopia_tom_env.render import one_line as _s
from sotopia_tom_env.routing import Roster


def scenario_context(scenario: Scenario, roster: Roster) -> str:
    """The part every participant sees: goal, participants and who owns which domain."""
    lines = [
        "## Scenario (shared with everyone)",
        f"Goal: {_s(scenario.scenario_goal) or '(none given)'}",
        f"Participants: {_s(roster.describe())}",
    ]
    owners = scenario.domain_owners()
    if owners:
        lines.append("Knowledge domains and who owns them:")
        lines += [f"  - {_s(domain)}: {_s(', '.join(who))}" for domain, who in owners.items()]
    return "\n".join(lines)


def private_brief(agent: AgentSpec) -> str:
    """The agent's own brief: role, objective, knowledge with sensitivity, sharing policy."""
    policy = agent.goals.sharing_policy
    lines = [
        "## Your brief (only you can see this)",
        f"ROLE: {_s(agent.role)}",
        f"PRIMARY OBJECTIVE: {_s(agent.goals.primary_objective) or '(none given)'}",
        "WHAT YOU KNOW:",
        *(
            f"  - {_s(name)} [{_s(item.sensitivity)}]: {_s(item.text)}"
            for name, item in agent.pre_interaction_knowledge.items()
        ),
        "SHARING POLICY:",
        "  You may share:",
        *_bullets(policy.what_to_share),
        "  You must NOT share:",
        *_bullets(policy.what_not_to_share),
        "HOW TO TALK: leave 'to' empty to speak to everyone; put role names in 'to' to message "
        "only them. Private facts belong in private messages to the people who need them. "
        "Never reveal what you must not share, in any channel.",
    ]
    return "\n".join(lines)


def _bullets(items: list[str]) -> list[str]:
    return [f"    - {_s(x)}" for x in items] or ["    - (nothing listed)"]


CONVERSATION_HEADING = "## Conversation (what you have seen)"
STATUS_HEADING = "## Now"
MESSAGE_LINE = re.compile(r"\[R\d+\.\d+\] ")
"""How a message line of an observation starts (``match`` it against a line)."""


def observation_header(scenario: Scenario, roster: Roster, index: int) -> str:
    """Everything agent ``index`` sees before the conversation starts."""
    agent = scenario.agents[index]
    intro = f"You are {_s(agent.role)} ({roster.ids[index]}) in a workplace conversation."
    parts = [intro, scenario_context(scenario, roster), private_brief(agent), CONVERSATION_HEADING]
    return "\n\n".join(parts)


def split_observation(text: str) -> tuple[str, list[str], str]:
    """Split an observation text into (brief, visible messages, status).

    Parsed by the env's own structure: the first line that *is* the conversation heading, the
    last line that *is* the status heading, and between them one line per visible message
    (starting with its ``[Rr.u]`` id). Message and scenario text are rendered on one line and
    cannot fake either heading or an id at the start of a line, so what an agent writes never
    changes the split. A text without the conversation heading is all brief.
    """
    lines = text.split("\n")
    try:
        start = lines.index(CONVERSATION_HEADING)
    except ValueError:
        return text.strip(), [], ""
    end = len(lines) - 1
    while end > start and lines[end] != STATUS_HEADING:
        end -= 1
    if end == start:  # no status section
        end = len(lines)
    messages = [line for line in lines[start + 1 : end] if MESSAGE_LINE.match(line)]
    head = "\n".join(lines[:start]).strip()
    return head, messages, "\n".join(lines[end + 1 :]).strip()
