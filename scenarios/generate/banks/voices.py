"""How different authors write an objective, an item name and a value: the voices of Silver.

A player trained on one way of writing learns that way, not the skill: if every objective names
the items it needs, the player learns to turn objective words into questions. Silver therefore
draws each seat's objective in one of three voices, short or long, and each scenario's item
names and values in one of several styles:

* **named**: the objective names what it needs ("the north region loan loss provision");
* **purpose**: it says what the information is for, in other words ("what reserves for bad
  loans are costing"), as the paper authors write;
* **area**: it names only the area and who covers it ("whatever the Credit Officer can tell me
  that bears on asset quality"), so the seat must find out what exists by listening.

A long objective opens with the decision and the seat's part in it and spreads its needs over
two sentences; a short one is a single sentence. Item names come as "Unit measure", "Measure
(unit)" or "Measure, unit"; values as a sentence or in a terse labelled form.
"""

from __future__ import annotations

VOICES = ("named", "purpose", "area")
VOICE_WEIGHTS = (0.03, 0.6, 0.37)
"""How often each voice is drawn, for a seat and again for a need that leaves its seat's voice
(one in four). Names stay rare, as in the paper authors' files (about 8% of their needs share
half their name's words with the objective; ``scenarios.stats``)."""

NAMED_HOOKS = (
    "the {name}",
    "the current {name}",
    "the latest {name}",
    "where the {name} stands",
    "what the {name} is",
    "the figure for the {name}",
)
"""Hooks that name the needed item (``{name}``: its name, lower-cased)."""

AREA_HOOKS = (
    "whatever the {owner} can tell me that bears on {theme}",
    "the {owner}'s view of {theme}",
    "what the {owner} sees on {theme}",
    "anything on {theme} from the {owner}",
    "where {theme} stands, from someone close to it",
    "a sense of {theme}",
    "input on {theme}",
)
"""Hooks that give only the area (``{theme}``: the topic's theme; ``{owner}``: the holder's role)."""

LEADS = (
    "We have to settle whether to {decision}, and my part is to {purpose}.",
    "The group is deciding whether to {decision}; I am here to {purpose}.",
    "Before anyone signs off on whether to {decision}, I have to {purpose}.",
    "My job in deciding whether to {decision} is to {purpose}.",
    "Whether we {decision} depends partly on me: I must {purpose}.",
    "Leadership wants a view on whether to {decision}, and I have been asked to {purpose}.",
    "In the question of whether to {decision}, my responsibility is to {purpose}.",
    "I come to the question of whether to {decision} with one task: to {purpose}.",
)
"""First sentences of a long objective: the decision and the seat's part in it."""

NEEDS = (
    "For that I need {hooks}.",
    "To get there I am missing {hooks}.",
    "I will need a clear read on {hooks}.",
    "The pieces I still lack are {hooks}.",
    "Above all I have to understand {hooks}.",
    "That means I must learn {hooks}.",
    "What I cannot do without is {hooks}.",
    "It turns on {hooks}.",
)
"""The sentence of a long objective that carries its (first) needs."""

MORE = (
    "I also want {hooks}.",
    "Beyond that, {hooks} would matter to me.",
    "On top of that I need {hooks}.",
    "I should also hear {hooks}.",
    "Then there is {hooks}, which I cannot guess at.",
    "Finally, {hooks}.",
)
"""The sentence of a long objective that carries the rest of its needs."""

NAME_STYLES = ("{unit} {measure}", "{measure} ({unit})", "{measure}, {unit}")
NAME_STYLE_WEIGHTS = (0.55, 0.3, 0.15)
"""How an item name places its unit."""

TERSE_VALUES = (
    "{X} ({Q}, {when})",
    "{Q}: {X} as of {date}",
    "{X}; scope: {Q}; updated {month}",
    "Latest for the {Q}: {X}",
    "{N}: {X} ({Q})",
    "{X} at the {Q}, per the {month} report",
)
"""Labelled, telegraphic values, as many authors write them ("Pilot users: 320; rating: 72%")."""
TERSE_SHARE = 0.35
"""Share of scenarios whose values are terse rather than sentences."""
