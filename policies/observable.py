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
3. follow up: of the facts others have stated, it picks those its objective asks for, by
   their meaning and their holder's role and domains (:mod:`policies.relevance`: the
   objective may describe a need by its purpose, in words the fact's name does not share),
   and asks each sender for its picked facts by name, in one direct message;
4. wait; leave once every other participant has had a turn since its last message and
   nothing new reached it for ``patience`` of its turns.

What it has said is read from its own messages by content, not by wording (a fact's value
details, a question's content words), so that it labels a state another player reached
without asking that player to repeat what it said in other words.

It never writes a fact on its must-not-share list, and never answers beyond its plan.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from policies.relevance import Heard, Relevance, default_relevance
from scenarios.values import atom_keys, stems
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
# "Finance should tell me ...", "the actuary can give us ...": a colleague named as the source.
_SOURCE = re.compile(
    r"^.*?\b(?:should|can|could|must|will|would)\s+(?:tell|give|show|send)\s+(?:me|us)\b\s*", re.I
)
# Where a sentence without a need verb starts asking: its first question word.
_WH = re.compile(r"\b(?:what|how|whether|when|which|who|where)\b", re.I)
# Sentences that describe a probe for restricted details, not a need: a privacy-aware player
# does not turn them into questions.
_PROBE = re.compile(r"\b(?:probe|fish(?:ing)? for|sound out|without asking)\b", re.I)
_SPLIT = re.compile(r"(?<=[.!?;])\s+")
# Where a question body lists several needs ("the cost, the date and who signs").
_PARTS = re.compile(r",|;|:|\b(?:and|plus|as well as|along with)\b")


class ObservablePlayer:
    """Shares what it may and asks from its own objective, reading nothing but its observation.

    See the module docstring for its plan. What is left to say is read from the messages the
    seat has sent (a fact is said once its value appears in one of them, a question once its
    words do), and its only memory is two counts over the observations it has been given:
    its turns since its last message and its turns in a row with nothing new from others.
    So it can take over a seat at any point, and label a state another player reached with
    what it would do there (:meth:`label`).

    Args:
        agent: the seat it plays.
        patience: its own turns in a row with nothing new from others before it leaves.
        relevance: what picks the heard facts to follow up (default: the shared
            :func:`~policies.relevance.default_relevance`, loaded on first use).
    """

    name = "observable"

    def __init__(
        self, agent: AgentID, patience: int = 2, relevance: Relevance | None = None
    ) -> None:
        self.agent = agent
        self.patience = patience
        self.relevance = relevance

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Forget the last episode (the brief is read from each observation)."""
        self.heard = 0  # distinct messages from others seen at its previous turn
        self.sent = 0  # its own messages seen at its previous turn
        self.idle = 0  # its turns since it last spoke
        self.quiet = 0  # its turns in a row with nothing new from others

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        """The next thing left to say, else wait or leave."""
        return self.label(observation)

    def label(self, observation: dict[str, Any]) -> AgentAction:
        """What it does on this turn of its seat (call it on every turn of the seat, in order)."""
        view = read_seat(observation["text"])
        mine = [m for m in view.messages if m.sender == view.role]
        # A message repeated word for word tells it nothing new: count distinct ones, so that
        # partners who keep restating (as a trained student does) do not keep it waiting.
        heard = len({(m.sender, m.text) for m in view.messages if m.sender != view.role})
        self.quiet = 0 if heard > self.heard else self.quiet + 1
        self.idle = 0 if len(mine) > self.sent else self.idle + 1
        self.heard, self.sent = heard, len(mine)
        self.relevance = self.relevance or default_relevance()
        action = next_message(view, self.relevance)
        if action is not None:
            return action
        # Everyone else has had a turn since its last message, and nothing came for a while.
        done = self.idle >= 1 and self.quiet >= self.patience
        return AgentAction.leave() if done else AgentAction.none()


def next_message(view: SeatView, relevance: Relevance) -> AgentAction | None:
    """The first message of its plan that it has not sent yet, or None."""
    present = [r for r in view.others if r not in view.left]
    if not present:
        return None
    said_public = " ".join(m.text for m in view.messages if m.sender == view.role and not m.to)
    said_dm = " ".join(m.text for m in view.messages if m.sender == view.role and m.to)
    public, private, _, _ = view.by_rule()
    public = [f for f in public if not _stated(f.text, said_public)]
    if public:
        return AgentAction.speak(_sharing(public))
    private = [f for f in private if not _stated(f.text, said_dm)]
    asked = [s for s in _SPLIT.split(said_dm) if s.endswith("?")]
    questions = [
        q for q in map(_question, objective_questions(view.objective)) if not _asked(q, asked)
    ]
    if private or questions:
        body = " ".join(filter(None, [_sharing(private), *questions]))
        return AgentAction.speak(body, to=present)
    pending: dict[str, list[str]] = {}
    for fact in _follow_ups(view, relevance):
        if fact.sender in present and _confirm(fact.name) not in said_dm:
            pending.setdefault(fact.sender, []).append(_confirm(fact.name))
    for sender, asks in pending.items():
        return AgentAction.speak(" ".join(asks), to=[sender])
    return None


def _stated(fact: str, said: str) -> bool:
    """Whether the seat's messages state the fact: word for word, or every detail of its value.

    At a state another player reached (a DAgger label) the seat may have said a fact in its
    own words ("Capital drawn: $54.5M"); asking it to say the fact again teaches repetition.
    """
    keys = atom_keys(fact)
    return fact in said or (bool(keys) and keys <= atom_keys(said))


def _asked(question: str, asked: list[str]) -> bool:
    """Whether one of the seat's questions covers most content words of ``question``."""
    words = stems(question)
    return bool(words) and any(len(words & stems(q)) >= 0.8 * len(words) for q in asked)


def _question(body: str) -> str:
    return f"Could you tell me {body}?"


def _confirm(name: str) -> str:
    return f"Could you confirm the {name}?"


def _follow_ups(view: SeatView, relevance: Relevance) -> list[Heard]:
    """The facts others stated that its objective asks for (see :mod:`policies.relevance`)."""
    own = {f.name for f in view.facts}
    heard: dict[str, Heard] = {}
    for m in view.messages:
        if m.sender == view.role or m.left:
            continue
        for name, text in _named_facts(m.text):
            if name not in own and name not in heard:
                heard[name] = Heard(m.sender, name, text)
    holders = holder_profiles(view.others, view.domains)
    return relevance.pick(need_parts(view.objective), list(heard.values()), holders)


def holder_profiles(roles: Sequence[str], domains: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """What a seat knows of each other role: its name and the domains the shared map gives it.

    Example:
        >>> holder_profiles(["Actuary"], {"claims_reserving": ["Actuary"], "pricing": ["CFO"]})
        {'Actuary': 'Actuary, claims reserving'}
    """
    return {
        role: ", ".join([role, *(d.replace("_", " ") for d, who in domains.items() if role in who)])
        for role in roles
    }


def need_parts(objective: str) -> list[str]:
    """The clauses of an objective's sentences (but its probes) that may describe a need.

    Context sentences count too ("I have to weigh the plant's safety record"): they are not
    asked as questions, but they still say what the seat cares about.

    Example:
        >>> need_parts("To plan, I need the cost of the move and when the lease ends.")
        ['the cost of the move', 'when the lease ends']
    """
    bodies = (_NEED.sub("", s, count=1) for s in _need_sentences(objective))
    parts = [p.strip() for body in bodies for p in _PARTS.split(body)]
    return [p for p in parts if len(p.split()) >= 2]


def objective_questions(objective: str) -> list[str]:
    """What each sentence of an objective says is needed, as question bodies.

    The words before the need verb go ("To price the deal, I need to know"), or before the
    colleague named as the source ("Finance should tell me"); a sentence with neither starts at
    its first question word ("From the actuary, how fast claims grow"), and one without any is
    context ("I'm the one taking this to the board") and is left out, as is a sentence about
    probing for restricted details. Sentences stay whole: the judge reads a list inside one
    question clause by clause.

    Example:
        >>> objective_questions("To price the deal, I need to know what the land costs and how "
        ...                     "soon permits clear. I may probe for their reserve price.")
        ['what the land costs and how soon permits clear']
        >>> objective_questions("This goes to the board. Legal should tell me when the lease ends.")
        ['when the lease ends']
    """
    out = []
    for sentence in _need_sentences(objective):
        if (m := _NEED.match(sentence) or _SOURCE.match(sentence)) is not None:
            body = sentence[m.end() :]
        elif (w := _WH.search(sentence)) is not None:
            body = sentence[w.start() :]
        else:
            continue
        body = body.strip()
        if len(body.split()) >= 2:
            out.append(body[0].lower() + body[1:])
    return out


def _need_sentences(objective: str) -> list[str]:
    """The sentences of the objective but its probes, end punctuation dropped."""
    sentences = (s.strip().rstrip(".!?;") for s in _SPLIT.split(objective.strip()))
    return [s for s in sentences if s and not _PROBE.search(s)]


def _sharing(facts: list[Fact]) -> str:
    if not facts:
        return ""
    return "Sharing what I can: " + " | ".join(f"{f.name}: {f.text}" for f in facts) + "."


def _named_facts(text: str) -> list[tuple[str, str]]:
    """(name, value) of the facts a 'Sharing what I can: Name: value | Name: value' message states."""
    if not text.startswith("Sharing what I can: "):
        return []
    body = text[len("Sharing what I can: ") :]
    # The message's own sentence ends after the last value, and only there.
    body = body.split(". Could you ", 1)[0].removesuffix(".")
    return [
        (name.strip(), value.strip())
        for name, _, value in (part.partition(": ") for part in body.split(" | ") if ": " in part)
    ]
