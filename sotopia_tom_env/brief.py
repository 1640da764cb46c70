"""What an agent is told: the shared scenario context and its own private brief.

The brief holds only the agent's own knowledge, objective and sharing policy. Other agents'
briefs and every agent's ``post_interaction_knowledge`` (the evaluation targets) are never
rendered here; the privacy tests check this with canaries.
"""

from __future__ import annotations

from scenarios import AgentSpec, Scenario
from sotopia_tom_env.routing import Roster


def scenario_context(scenario: Scenario, roster: Roster) -> str:
    """The part every participant sees: goal, participants and who owns which domain."""
    lines = [
        "## Scenario (shared with everyone)",
        f"Goal: {scenario.scenario_goal or '(none given)'}",
        f"Participants: {roster.describe()}",
    ]
    owners = scenario.domain_owners()
    if owners:
        lines.append("Knowledge domains and who owns them:")
        lines += [f"  - {domain}: {', '.join(who)}" for domain, who in owners.items()]
    return "\n".join(lines)


def private_brief(agent: AgentSpec) -> str:
    """The agent's own brief: role, objective, knowledge with sensitivity, sharing policy."""
    policy = agent.goals.sharing_policy
    lines = [
        "## Your brief (only you can see this)",
        f"ROLE: {agent.role}",
        f"PRIMARY OBJECTIVE: {agent.goals.primary_objective or '(none given)'}",
        "WHAT YOU KNOW:",
        *(
            f"  - {name} [{item.sensitivity}]: {item.text}"
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
    return [f"    - {x}" for x in items] or ["    - (nothing listed)"]


CONVERSATION_HEADING = "## Conversation (what you have seen)"
STATUS_HEADING = "## Now"


def observation_header(scenario: Scenario, roster: Roster, index: int) -> str:
    """Everything agent ``index`` sees before the conversation starts."""
    agent = scenario.agents[index]
    intro = f"You are {agent.role} ({roster.ids[index]}) in a workplace conversation."
    parts = [intro, scenario_context(scenario, roster), private_brief(agent), CONVERSATION_HEADING]
    return "\n\n".join(parts)


def split_observation(text: str) -> tuple[str, list[str], str]:
    """Split an observation text into (brief, visible messages, status).

    Each visible message is one ``[Rr.u] …`` entry (continuation lines of a multi-line message
    stay with it), so a policy can tell which messages are new since its last turn.
    """
    head, _, rest = text.partition(CONVERSATION_HEADING)
    convo, _, status = rest.rpartition(STATUS_HEADING)
    messages: list[str] = []
    for line in convo.strip("\n").splitlines():
        if line.startswith("[R"):
            messages.append(line)
        elif messages:
            messages[-1] += "\n" + line
    return head.strip(), messages, status.strip()
