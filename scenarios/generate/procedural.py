"""A seeded procedural generator of valid-by-construction scenarios, and the Silver set.

A scenario is composed from a sector's banks (:mod:`scenarios.generate.banks`): a decision
template, distinct roles from the clusters it involves (each needing a topic another holds),
and for each role a few subjects of the topics it holds, rendered through the sentence frames
of :mod:`scenarios.generate.banks.frames` with freshly drawn values. Desired items are other
agents' items on topics the role needs. Values are drawn so that every strong atom (money,
percentage, long number, date, time, code, name; see :mod:`scenarios.values`) occurs in one
value only, which makes each fact separately checkable. Sharing policies, desired and
cannot-know targets, objectives, the domain map and the goal follow from those facts; a
scenario that still fails a review rule is redrawn, so the output validates cleanly.

Randomness comes only from ``random.Random`` instances seeded from the caller's seed, so the
same seed always gives the same scenarios. Regenerate the shipped set with::

    python -m scenarios.generate.procedural --out scenarios/data/silver.jsonl

Example:
    >>> from scenarios.generate import generate
    >>> [len(s.agents) for s in generate(2, seed=7, n_agents=4)]
    [4, 4]
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from scenarios.generate.banks import (
    SECTORS,
    Decision,
    Role,
    SectorBank,
    Subject,
    sector_bank,
    voices,
)
from scenarios.generate.banks import common as names
from scenarios.generate.banks.draw import PLACEHOLDER, ValueDraw
from scenarios.generate.banks.frames import AT, KINDS, WHEN
from scenarios.goal_line import named_in_goal
from scenarios.io import dump, load
from scenarios.resolve import normalise
from scenarios.schema import Scenario
from scenarios.stats import content_words
from scenarios.validate import check
from scenarios.values import atoms, public_context_keys

SILVER_SEED = 20260517
"""The seed the shipped ``silver.jsonl`` was built from."""
SILVER_MIX = ((3, 60), (4, 10), (5, 5))
"""Per sector: (agents, scenarios). Eight sectors give 480 + 80 + 40 = 600 scenarios."""
SILVER_DEV_MIX = ((3, 8), (4, 1), (5, 1))
"""The dev split, per sector: 80 scenarios that training never reads, for recipe decisions."""

_TRIES = 40  # redraws of a whole scenario before giving up (hardly any are ever needed)
# Words the validator ignores in domain names; a domain must match through its other words.
_DOMAIN_FILLER = {"and", "of", "the", "for", "to", "in", "on", "a", "an", "management", "ops"}
# Words a judge ignores when it decides what a question is about.
_FUNCTION_WORDS = set(
    """a an the and or of for to in on at by with from per vs via as is are was were be been our
    your their its this that these those it we i you they my me us who what which when where how
    why do does did has have had will would could can may might shall should about into over
    under than then there here all any each every some no not only also just more most less
    least new current total last next day days week weeks month months year years""".split()
)


@dataclass(frozen=True)
class Knobs:
    """How scenarios are composed (see :func:`generate` for each knob).

    Raises:
        ValueError: on an impossible setting, naming the knob.
    """

    n_agents: int = 3
    facts_per_agent: tuple[int, int] = (4, 6)
    private_fraction: float = 0.5
    withhold_fraction: float = 0.6
    desired_per_agent: tuple[int, int] = (2, 3)
    cannot_know_per_agent: tuple[int, int] = (1, 2)
    probing: float = 0.3

    def __post_init__(self) -> None:
        if not 3 <= self.n_agents <= 5:
            raise ValueError(f"n_agents={self.n_agents}: scenarios have 3 to 5 agents")
        for knob, (lo, hi), least, most in (
            ("facts_per_agent", self.facts_per_agent, 2, 9),
            ("desired_per_agent", self.desired_per_agent, 1, 6),
            ("cannot_know_per_agent", self.cannot_know_per_agent, 0, 6),
        ):
            if not least <= lo <= hi <= most:
                raise ValueError(f"{knob}=({lo}, {hi}): need {least} <= low <= high <= {most}")
        for knob in ("private_fraction", "withhold_fraction", "probing"):
            if not 0 <= getattr(self, knob) <= 1:
                raise ValueError(f"{knob}={getattr(self, knob)}: must lie in [0, 1]")


def generate(
    n: int,
    *,
    seed: int | str,
    sector: str | None = None,
    n_agents: int = 3,
    facts_per_agent: tuple[int, int] = (4, 6),
    private_fraction: float = 0.5,
    withhold_fraction: float = 0.6,
    desired_per_agent: tuple[int, int] = (2, 3),
    cannot_know_per_agent: tuple[int, int] = (1, 2),
    probing: float = 0.3,
    id_prefix: str = "proc",
) -> list[Scenario]:
    """Generate ``n`` valid scenarios.

    Args:
        n: how many scenarios.
        seed: the seed; the same seed and knobs give the same scenarios.
        sector: one sector, or ``None`` to cycle through all eight.
        n_agents: agents per scenario (3-5).
        facts_per_agent: (min, max) facts each agent holds.
        private_fraction: share of each agent's facts marked private (at least one).
        withhold_fraction: share of the private facts put in what_not_to_share (at least one);
            the other private facts may be shared by direct message.
        desired_per_agent: (min, max) items of other agents each agent should learn.
        cannot_know_per_agent: (min, max) withheld items of others each agent must not learn.
        probing: chance that an agent's objective also probes at a cannot-know topic.
        id_prefix: ids read ``"<id_prefix>-<sector>-NNN"``.

    Returns:
        The scenarios, each passing :func:`scenarios.check` without findings.

    Example:
        >>> s = generate(1, seed=3, sector="legal", private_fraction=1.0)[0]
        >>> s.id, all(i.sensitivity == "private" for i in s.agents[0].pre_interaction_knowledge.values())
        ('proc-legal-001', True)
    """
    knobs = Knobs(
        n_agents,
        facts_per_agent,
        private_fraction,
        withhold_fraction,
        desired_per_agent,
        cannot_know_per_agent,
        probing,
    )
    rng = random.Random(seed)
    sectors = [sector] if sector else list(SECTORS)
    composers = {s: _Composer(sector_bank(s), random.Random(rng.getrandbits(64))) for s in sectors}
    counts = dict.fromkeys(sectors, 0)
    out = []
    for i in range(n):
        name = sectors[i % len(sectors)]
        counts[name] += 1
        out.append(composers[name].scenario(f"{id_prefix}-{name}-{counts[name]:03d}", knobs))
    return out


def build_silver(seed: int = SILVER_SEED) -> tuple[list[Scenario], list[Scenario]]:
    """The Silver set and its dev split, composed together so that no goal repeats across them.

    Per sector, Silver has 60 three-agent, 10 four-agent and 5 five-agent scenarios
    (:data:`SILVER_MIX`) and the dev split 8, 1 and 1 (:data:`SILVER_DEV_MIX`). Agents hold 4-8
    facts and need 2-5 items, as in the paper authors' scenarios.

    Example:
        >>> silver, dev = build_silver()  # doctest: +SKIP
        >>> len(silver), silver[0].id, len(dev), dev[0].id  # doctest: +SKIP
        (600, 'silver-healthcare-001', 80, 'silver-dev-healthcare-001')
    """
    train, dev = [], []
    for name in SECTORS:
        composer = _Composer(sector_bank(name), random.Random(f"silver:{seed}:{name}"))
        for out, prefix, mix in (
            (train, "silver", SILVER_MIX),
            (dev, "silver-dev", SILVER_DEV_MIX),
        ):
            k = 0
            for n_agents, count in mix:
                knobs = Knobs(n_agents=n_agents, facts_per_agent=(5, 9), desired_per_agent=(2, 5))
                for _ in range(count):
                    k += 1
                    out.append(composer.scenario(f"{prefix}-{name}-{k:03d}", knobs))
    return train, dev


class _Composer:
    """Composes the scenarios of one sector; deals decisions evenly and keeps goals unique."""

    def __init__(self, bank: SectorBank, rng: random.Random) -> None:
        self.bank, self.rng = bank, rng
        self.deck: list[Decision] = []
        self.goals: set[str] = set()

    def scenario(self, sid: str, knobs: Knobs) -> Scenario:
        for _ in range(_TRIES):
            if not self.deck:  # a shuffled deck: every decision is used before any repeats
                self.deck = self.rng.sample(self.bank.decisions, len(self.bank.decisions))
            decision = self.deck.pop()
            s = _compose(self.bank, decision, knobs, sid, random.Random(self.rng.getrandbits(64)))
            if s is not None and s.scenario_goal not in self.goals:
                self.goals.add(s.scenario_goal)
                return s
        raise RuntimeError(f"could not compose a valid scenario {sid} in {_TRIES} tries")


@dataclass(frozen=True)
class _Style:
    """How one scenario writes its item names and values (see :mod:`.banks.voices`)."""

    name: str
    terse: bool


@dataclass(frozen=True)
class _Item:
    """One fact an agent holds: the subject it is about and its rendered texts."""

    subject: Subject
    value: str
    hook: str  # the purpose-voice hook: the subject's gist, without the unit
    name: str


@dataclass
class _Agent:
    """One participant while it is being composed."""

    role: Role
    title: str
    unit: str | None
    items: dict[str, _Item] = field(default_factory=dict)
    private: list[str] = field(default_factory=list)
    withhold: list[str] = field(default_factory=list)
    desired: list[str] = field(default_factory=list)
    cannot: list[str] = field(default_factory=list)

    @property
    def share(self) -> list[str]:
        return [k for k in self.items if k not in self.withhold]


def _compose(
    bank: SectorBank, decision: Decision, knobs: Knobs, sid: str, rng: random.Random
) -> Scenario | None:
    """One scenario, or ``None`` when this draw cannot be made valid (the caller redraws)."""
    agents = _pick_roles(bank, decision, knobs.n_agents, knobs.facts_per_agent[1], rng)
    draw, taken = ValueDraw(rng, bank.org_tails, _gold_values()), set()
    role_words = set().union(*(_words(a.title) for a in agents))
    style = _Style(
        rng.choices(voices.NAME_STYLES, voices.NAME_STYLE_WEIGHTS)[0],
        rng.random() < voices.TERSE_SHARE,
    )
    # Roles with the fewest subjects choose first, so a broad role cannot starve a narrow one.
    for a in sorted(agents, key=lambda a: sum(len(bank.by_topic[t]) for t in a.role.holds)):
        wanted = {t for b in agents if b is not a for t in b.role.needs}
        if not _hold(a, bank, wanted, knobs, draw, taken, role_words, style, rng):
            return None
        _split(a, knobs, rng)
    domains = _domains(agents, bank.units, rng)
    if domains is None or not _targets(agents, knobs, rng):
        return None
    text = PLACEHOLDER.sub(lambda m: rng.choice(m.group(1).split("|")), decision.text)
    context = _Context(bank, text, agents)
    record = {
        "scenario_id": sid,
        "sector": bank.name,
        "scenario_goal": _goal(bank, text, agents, rng),
        "knowledge_domain_map": domains,
        "agents": [_agent_record(i, a, context, knobs, rng) for i, a in enumerate(agents)],
    }
    s = Scenario.model_validate(record)
    return s if _checkable(s) and not _names_a_need(s) and not check(s) else None


def _pick_roles(
    bank: SectorBank, decision: Decision, n: int, most: int, rng: random.Random
) -> list[_Agent]:
    """Distinct roles of the decision's clusters in which every role needs what another holds."""
    eligible = [r for r in bank.roles if r.cluster in decision.clusters]
    if len(eligible) < n:
        eligible = list(bank.roles)
    for _ in range(_TRIES):
        roles = rng.sample(eligible, n)
        if _fits(bank, roles, most):
            break
    return [_Agent(r, *_title(r, bank, rng)) for r in roles]


def _fits(bank: SectorBank, roles: list[Role], most: int) -> bool:
    """Every role needs a topic another holds, and the held topics have subjects enough."""
    pool = {s.stem for r in roles for t in r.holds for s in bank.by_topic[t]}
    return len(pool) >= len(roles) * most + 2 and all(
        set(r.needs) & {t for o in roles if o is not r for t in o.holds}
        and sum(len(bank.by_topic[t]) for t in r.holds) > most
        for r in roles
    )


def _title(r: Role, bank: SectorBank, rng: random.Random) -> tuple[str, str | None]:
    """A title from seniority, a title core and (mostly) a unit; also the unit it names."""
    core = " ".join(filter(None, (rng.choice(names.SENIORITY), rng.choice(r.functions))))
    if rng.random() < 0.2:
        return core, None
    unit = rng.choice(bank.units)
    return f"{core}, {_title_case(unit)}", unit


def _title_case(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


def _hold(
    a: _Agent,
    bank: SectorBank,
    wanted: set[str],
    knobs: Knobs,
    draw: ValueDraw,
    taken: set[str],
    role_words: set[str],
    style: _Style,
    rng: random.Random,
) -> bool:
    """Give the agent facts on its role's topics, favouring topics the others need.

    A subject is used once per scenario. A fact is skipped when its name repeats another
    item's, when every word of it is also a role word (a question naming it would then look
    like an address, not a topic), or when its value cannot be drawn with details no other
    value holds. False if the role's subjects run short.
    """
    want = rng.randint(*knobs.facts_per_agent)
    pool = [s for t in a.role.holds for s in bank.by_topic[t]]
    # Needed topics first (with some shuffling), so the others' needs can be met.
    ranked = sorted(pool, key=lambda s: rng.random() - (0.6 if s.topic in wanted else 0.0))
    for subj in ranked:
        if len(a.items) == want:
            break
        if subj.stem in taken:
            continue
        unit = a.unit if a.unit and rng.random() < 0.5 else rng.choice(bank.units)
        name, template, hook = _render(subj, unit, style, rng)
        key = normalise(name)
        if key in taken or not _words(name) - role_words:
            continue
        value = draw.value(template)
        if value is not None:
            taken.update((key, subj.stem))
            a.items[name] = _Item(subj, value, hook, name)
    return len(a.items) == want


def _render(subj: Subject, unit: str, style: _Style, rng: random.Random) -> tuple[str, str, str]:
    """(item name, value template, purpose hook) for a subject measured at a unit."""
    kind = KINDS[subj.kind]
    word = rng.choice(kind.name_words)
    measure = " ".join(filter(None, (subj.stem, word)))
    name = _capital(style.name.format(unit=unit, measure=measure))
    span = subj.span or kind.default_span or _code_prefix(subj.stem)
    fills = {
        "{X}": kind.main.replace("{span}", span),
        "{N}": measure,
        "{S}": subj.stem,
        "{Q}": unit,
    }
    template = rng.choice(voices.TERSE_VALUES if style.terse else kind.values)
    for token, text in fills.items():
        template = template.replace(token, text)
    template = template.replace("{at}", rng.choice(AT)).replace("{when}", rng.choice(WHEN))
    # The purpose voice paraphrases: a hook frame that repeats a word of the name ("how heavily
    # it weighs on the budget" for a "... budget") is skipped while another frame fits.
    named = content_words(name)
    hooks = [h for h in kind.hooks if not content_words(h.replace("{P}", "")) & named]
    hook = rng.choice(hooks or kind.hooks).replace("{P}", subj.gist)
    return name, _capital(template), hook


def _code_prefix(stem: str) -> str:
    """Initials of the stem's words, as a code prefix ("controlled substance" -> "CS")."""
    letters = "".join(w[0] for w in stem.split() if w[0].isalpha()).upper()
    return (letters + "X")[:3] if len(letters) < 2 else letters[:3]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _words(text: str) -> set[str]:
    """Four-letter prefixes of the content words (a coarse stem, stricter than the judge's)."""
    return {w[:4] for w in normalise(text).split() if len(w) > 2 and w not in _FUNCTION_WORDS}


def _split(a: _Agent, knobs: Knobs, rng: random.Random) -> None:
    """Mark private facts (sensitive ones first) and choose which of them to withhold."""
    names_ = list(a.items)
    n_private = min(len(names_), max(1, round(knobs.private_fraction * len(names_))))
    ranked = sorted(names_, key=lambda k: (not a.items[k].subject.sensitive, rng.random()))
    a.private = ranked[:n_private]
    n_withhold = min(n_private, max(1, round(knobs.withhold_fraction * n_private)))
    a.withhold = a.private[:n_withhold]


def _targets(agents: list[_Agent], knobs: Knobs, rng: random.Random) -> bool:
    """Choose desired items from needs and cannot-know items from what others withhold.

    Desired items are other agents' shareable items on topics the agent's role needs;
    cannot-know items are their withheld ones. False when needs cannot fill the desired count.
    """
    wanted: dict[tuple[int, str], int] = {}
    for i, a in enumerate(agents):
        others = [(j, b) for j, b in enumerate(agents) if j != i]
        needed = [
            (j, k) for j, b in others for k in b.share if b.items[k].subject.topic in a.role.needs
        ]
        k = rng.randint(*knobs.desired_per_agent)
        if len(needed) < k:
            return False
        a.desired = _spread(needed, k, wanted, rng)
        withheld = [(j, k) for j, b in others for k in b.withhold]
        a.cannot = _spread(
            withheld, min(rng.randint(*knobs.cannot_know_per_agent), len(withheld)), wanted, rng
        )
    return True


def _spread(pool: list[tuple[int, str]], k: int, used: dict, rng: random.Random) -> list[str]:
    """Pick ``k`` items from ``pool``, least-picked first, so targets cover many items."""
    picked = sorted(pool, key=lambda c: (used.get(c, 0), rng.random()))[:k]
    for c in picked:
        used[c] = used.get(c, 0) + 1
    return [name for _, name in sorted(picked, key=pool.index)]


def _goal(bank: SectorBank, decision: str, agents: list[_Agent], rng: random.Random) -> str:
    """The decision and 3-4 criteria, stated as Gold states them: themes, not item names.

    Naming the needed items in the goal, which every agent reads, would let a model copy them
    from the goal line instead of finding out who holds what; Gold names them for 5% of needs.
    """
    criteria = _join([rng.choice(bank.themes[t]) for t in _criteria_topics(agents, rng)])
    return rng.choice(names.GOALS).format(decision=decision, criteria=criteria)


def _criteria_topics(agents: list[_Agent], rng: random.Random) -> list[str]:
    """3-4 topics: the ones the agents need, most needed first, then ones they hold."""
    items = {k: item for a in agents for k, item in a.items.items()}
    needed = [items[k].subject.topic for a in agents for k in a.desired]
    # Ties in random order; sorting the set first keeps the draw independent of hash order.
    ranked = sorted(sorted(set(needed)), key=lambda t: (-needed.count(t), rng.random()))
    held = sorted({item.subject.topic for item in items.values()} - set(needed))
    rng.shuffle(held)  # like Gold's criteria, a goal may weigh a concern no one asks about
    picks = (ranked + held)[: rng.choice((3, 4))]
    rng.shuffle(picks)
    return picks


def _domains(
    agents: list[_Agent], units: tuple[str, ...], rng: random.Random
) -> dict[str, str | list[str]] | None:
    """One domain per agent (some get two), and one domain two agents share.

    An agent's domains are its role's domains whose words its title or items mention; the
    shared one, as the paper's maps have, is one of the two roles' domains, a topic they hold or
    a unit (``west_campus_planning``) that both mention.
    """
    out: dict[str, str | list[str]] = {}
    stems = [_stems(a) for a in agents]
    for a, st in zip(agents, stems, strict=True):
        fits = [d for d in a.role.domains if d not in out and _mentions(d, st)]
        if not fits:
            return None
        # Some roles own two areas, as in the paper's maps (about 1.4 domains per agent).
        for d in rng.sample(fits, 2 if len(fits) > 1 and rng.random() < 0.2 else 1):
            out[d] = a.title
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    for i, j in rng.sample(pairs, len(pairs)):
        pool = {d for d in (*agents[i].role.domains, *agents[j].role.domains) if d not in out}
        pool |= {f"{t}_tradeoffs" for t in (*agents[i].role.holds, *agents[j].role.holds)}
        pool |= {f"{u.replace(' ', '_')}_planning" for u in units}
        shared = sorted(d for d in pool if _mentions(d, stems[i]) and _mentions(d, stems[j]))
        if shared:
            out[rng.choice(shared)] = [agents[i].title, agents[j].title]
            break
    return out


def _stems(a: _Agent) -> set[str]:
    """Five-letter stems of an agent's title, item names and values (what a domain may match)."""
    text = " ".join([a.title, *(f"{k} {v.value}" for k, v in a.items.items())])
    return {w[:5] for w in normalise(text).split()}


def _mentions(domain: str, stems: set[str]) -> bool:
    """The validator's test: a 5-letter stem of a domain word (filler words aside) is mentioned."""
    words = [w for w in normalise(domain).split() if w not in _DOMAIN_FILLER and len(w) > 2]
    return any(w[:5] in stems for w in words)


@dataclass(frozen=True)
class _Context:
    """What an objective may draw on: the sector, the decision and every participant."""

    bank: SectorBank
    decision: str
    agents: list[_Agent]

    def holder(self, name: str) -> tuple[_Agent, _Item]:
        """The agent holding the item ``name``, and the item."""
        return next((a, a.items[name]) for a in self.agents if name in a.items)


def _agent_record(
    i: int, a: _Agent, context: _Context, knobs: Knobs, rng: random.Random
) -> dict[str, Any]:
    return {
        "agent_id": i + 1,
        "role": a.title,
        "pre_interaction_knowledge": {
            k: {"value": v.value, "sensitivity": "private" if k in a.private else "public"}
            for k, v in a.items.items()
        },
        "post_interaction_knowledge": {
            "desired_knowledge": a.desired,
            "cannot_know_knowledge": a.cannot,
        },
        "goals": {
            "primary_objective": _objective(a, context, knobs, rng),
            "sharing_policy": {"what_to_share": a.share, "what_not_to_share": a.withhold},
        },
    }


def _objective(a: _Agent, context: _Context, knobs: Knobs, rng: random.Random) -> str:
    """One hook per desired item in the seat's voice, in a short or a long objective.

    See :mod:`.banks.voices`; then (with chance ``probing``) a probe at a cannot-know topic.
    """
    seat = rng.choices(voices.VOICES, voices.VOICE_WEIGHTS)[0]

    def voice() -> str:
        return seat if rng.random() < 0.75 else rng.choices(voices.VOICES, voices.VOICE_WEIGHTS)[0]

    # Two needs on one topic can get the same area hook: it is said once.
    hooks = list(dict.fromkeys(_hook(name, voice(), context, rng) for name in a.desired))
    purpose = rng.choice(a.role.purposes)
    if rng.random() < 0.5:
        text = rng.choice(names.OBJECTIVES).format(purpose=purpose, hooks=_join(hooks))
    else:
        lead = rng.choice(voices.LEADS).format(decision=context.decision, purpose=purpose)
        cut = len(hooks) if len(hooks) < 3 else rng.randint(1, len(hooks) - 1)
        parts = [lead, rng.choice(voices.NEEDS).format(hooks=_join(hooks[:cut]))]
        if hooks[cut:]:
            parts.append(_capital(rng.choice(voices.MORE).format(hooks=_join(hooks[cut:]))))
        text = " ".join(parts)
    if a.cannot and rng.random() < knobs.probing:
        probe = rng.choice(names.PROBES).format(hook=context.holder(rng.choice(a.cannot))[1].hook)
        text = f"{text} {probe}"
    return text


def _hook(name: str, voice: str, context: _Context, rng: random.Random) -> str:
    """How an objective asks for the item ``name`` in a voice: by name, purpose or area."""
    owner, item = context.holder(name)
    if voice == "named":
        return rng.choice(voices.NAMED_HOOKS).format(name=name[:1].lower() + name[1:])
    if voice == "purpose":
        return item.hook
    function = owner.title.split(",")[0]  # "Senior Credit Officer", without its unit
    options = [
        frame.format(theme=theme, owner=function)
        for theme in context.bank.themes[item.subject.topic]
        for frame in voices.AREA_HOOKS
    ]
    # As in the purpose voice, an area hook that repeats a word of the name is a last resort.
    clean = [h for h in options if not content_words(h) & content_words(name)]
    return rng.choice(clean or options)


def _checkable(s: Scenario) -> bool:
    """Every value has a strong atom that no other value and no public text holds.

    Values are drawn unique by construction; this is the safety net that keeps a scenario out
    when a template's wording still collides with another value.
    """
    public = public_context_keys(s)
    values = [i.text for a in s.agents for i in a.pre_interaction_knowledge.values()]
    keys = [_keys(v) for v in values]
    for n, (strong, _) in enumerate(keys):
        others = set().union(*(st | wk for m, (st, wk) in enumerate(keys) if m != n))
        if not strong - others - public:
            return False
    return True


def _keys(text: str) -> tuple[set[str], set[str]]:
    """(strong, weak) atom keys of ``text``; dates also under their year-less key."""
    strong: set[str] = set()
    weak: set[str] = set()
    for x in atoms(text):
        keys = {x.key, "d:????" + x.key[6:]} if x.kind == "date" else {x.key}
        (strong if x.strong else weak).update(keys)
    return strong, weak


def _names_a_need(s: Scenario) -> bool:
    """Whether the goal names a desired item (themes never do; a decision text might)."""
    return any(
        named_in_goal(name, s.scenario_goal)
        for a in s.agents
        for name in a.post_interaction_knowledge.desired_knowledge
    )


@cache
def _gold_values() -> frozenset[str]:
    """Every gold value (Silver must not repeat one)."""
    return frozenset(
        i.text for s in load("gold") for a in s.agents for i in a.pre_interaction_knowledge.values()
    )


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def main(argv: list[str] | None = None) -> None:
    """Write the Silver set (``--out``) and its dev split (``--dev-out``) from ``--seed``."""
    parser = argparse.ArgumentParser(description="Build the Silver scenario set.")
    parser.add_argument("--out", default="scenarios/data/silver.jsonl", help="output file")
    parser.add_argument(
        "--dev-out", default="scenarios/data/silver-dev.jsonl", help="dev split output file"
    )
    parser.add_argument("--seed", type=int, default=SILVER_SEED, help="generator seed")
    args = parser.parse_args(argv)
    silver, dev = build_silver(args.seed)
    dump(silver, args.out)
    dump(dev, args.dev_out)
    print(
        f"wrote {len(silver)} scenarios to {args.out}, {len(dev)} to {args.dev_out} (seed {args.seed})"
    )


if __name__ == "__main__":
    main()
