"""The observable teacher: a scripted player that decides only from what its seat sees.

Unlike :class:`~policies.scripted.IdealPlayer`, which reads the scenario's ground truth (who
holds each need, which items are private, what everyone else needs), this player reads nothing
but its own observation (:func:`sotopia_tom_env.seat.read_seat`): its brief and the messages it
has seen. A model can therefore imitate it: every word it writes is in the prompt, or follows
from the prompt by a rule.

Its plan, in order:

1. post the facts it may share that are public, in public;
2. send the facts it may share that are private, by direct message to the others, with its
   questions: each part of its objective asked as a question ("Could you tell me …?"), by
   direct message to every other participant, so that whoever holds a need is asked on a
   private channel (right for private and public items alike);
3. follow up: when a message names a fact whose name shares a word with its objective, ask
   its sender for that fact by name, by direct message;
4. wait; leave once every other participant has had its turns since the last question and
   nothing new reached it for ``patience`` turns.

It never writes a fact on its must-not-share list, and never answers beyond its plan.
"""

from __future__ import annotations

import re
from typing import Any

from scenarios.values import stems
from sotopia_tom_env import AgentAction, AgentID
from sotopia_tom_env.seat import Fact, SeatView, read_seat

# What an objective's sentence says before naming what is needed ("To price the deal, I need to
# know"): everything up to the need verb goes.
_NEED = re.compile(
    r"^.*?\b(?:i|we)\s+(?:also\s+|first\s+|still\s+|really\s+)?"
    r"(?:need|want|must|have|would like|hope|'d like|should)(?:\s+to)?"
    r"(?:\s+(?:know|learn|understand|find out|hear|get|see|confirm|establish|pin down|check|find"
    r"|ask about|ask|gather|clarify|determine|pin|work out|nail down|get clear on))?\s*",
    re.I,
)
# Sentences that describe a probe for restricted details, not a need: a privacy-aware player
# does not turn them into questions.
_PROBE = re.compile(r"\b(?:probe|fish(?:ing)? for|sound out|without asking)\b", re.I)
_SPLIT = re.compile(r"(?<=[.!?;])\s+")


class ObservablePlayer:
    """Shares what it may and asks from its own objective, reading nothing but its observation.

    See the module docstring for its plan.

    Args:
        agent: the seat it plays.
        patience: silent turns of its own, with nothing new seen, before it leaves.
    """

    name = "observable"

    def __init__(self, agent: AgentID, patience: int = 1) -> None:
        self.agent = agent
        self.patience = patience

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Read the brief and plan the opening messages."""
        self.participants = dict(info["participants"])
        view = read_seat(observation["text"], self.participants)
        self.queue: list[tuple[str, tuple[str, ...]]] = []
        public, private, _, _ = view.by_rule()
        if public:
            self.queue.append((_sharing(public), ()))
        questions = [f"Could you tell me {q}?" for q in objective_questions(view.objective)]
        if private or questions:
            body = " ".join(filter(None, [_sharing(private), *questions]))
            self.queue.append((body, view.others))
        self.asked: set[str] = set()  # facts already asked for by name
        self.seen = 0  # messages seen so far
        self.quiet = 0  # own turns in a row with nothing new seen
        self.last_ask_step = 0

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """The next planned or follow-up message, else wait or leave."""
        view = read_seat(observation["text"], self.participants)
        new = view.messages[self.seen :]
        self.seen = len(view.messages)
        self.queue += self._follow_ups(view, new)
        present = [r for r in view.others if r not in view.left]
        while self.queue:
            text, to = self.queue.pop(0)
            still = tuple(r for r in to if r in present)
            if to and not still:
                continue  # everyone it was for has left: never turn a DM into a post
            self.last_ask_step = info["step"]
            return AgentAction.speak(text, to=list(still))
        self.quiet = 0 if [m for m in new if m.sender != view.role] else self.quiet + 1
        # Everyone else has had a turn since our last message (so could answer it).
        answered = info["step"] - self.last_ask_step >= len(view.others) + 1
        return (
            AgentAction.leave() if answered and self.quiet > self.patience else AgentAction.none()
        )

    def _follow_ups(self, view: SeatView, new: tuple) -> list[tuple[str, tuple[str, ...]]]:
        """Ask by name for facts others mentioned that the objective is about."""
        want = stems(view.objective)
        own = {f.name for f in view.facts}
        out = []
        for m in new:
            if m.sender == view.role or m.left:
                continue
            for name in _named_facts(m.text):
                if name in own or name in self.asked or not _about(name, want):
                    continue
                self.asked.add(name)
                out.append((f"Could you confirm the {name}?", (m.sender,)))
        return out


def objective_questions(objective: str) -> list[str]:
    """What each sentence of an objective says is needed, as question bodies.

    The words before the need verb go ("To price the deal, I need to know"); a sentence about
    probing for restricted details is left out. Sentences stay whole: the judge reads a list
    inside one question clause by clause, and splitting lists by rule scored no better on Gold.

    Example:
        >>> objective_questions("To price the deal, I need to know what the land costs and how "
        ...                     "soon permits clear. I may probe for their reserve price.")
        ['what the land costs and how soon permits clear']
    """
    out = []
    for sentence in _SPLIT.split(objective.strip()):
        if _PROBE.search(sentence):
            continue
        body = _NEED.sub("", sentence.strip().rstrip(".!?;"), count=1).strip()
        if len(body.split()) >= 2:
            out.append(body[0].lower() + body[1:])
    return out


def _sharing(facts: list[Fact]) -> str:
    if not facts:
        return ""
    return "Sharing what I can: " + " | ".join(f"{f.name}: {f.text}" for f in facts) + "."


_NAMED = re.compile(r"(?:^|\| |: )([A-Z][^:|]{2,80}?): ")


def _named_facts(text: str) -> list[str]:
    """Fact names a 'Name: value | Name: value' message states."""
    if not text.startswith("Sharing what I can: "):
        return []
    body = text[len("Sharing what I can: ") :]
    return [part.split(": ", 1)[0].strip() for part in body.split(" | ") if ": " in part]


def _about(name: str, want: frozenset[str] | set[str]) -> bool:
    """Whether a fact's name shares a word with the objective (asking costs nothing else)."""
    return not stems(name).isdisjoint(want)
