"""Sector-neutral sentence frames: how an item of each measure kind is named, stated and hinted.

A subject of a sector bank (``cost 2M-9M | agency nursing | temporary nursing labour``) is
turned into an item by one :class:`Kind`:

* the **name** is a unit, the stem and one of the kind's name words: "Night shift agency
  nursing spend";
* the **value** fills one of many value frames: ``{S}`` is the stem, ``{N}`` the stem with the
  name word, ``{Q}`` the unit, ``{X}`` the kind's main detail (``{usd:2M-9M}``, a date, a
  code...), and other placeholders are drawn by :class:`~.draw.ValueDraw`;
* ``{at}`` and ``{when}`` become one of :data:`AT` and :data:`WHEN`, so even one frame words
  its place and time in many ways;
* the **hook** (a clause of the primary objective) fills one of the hook frames with the gist,
  so it paraphrases the item without naming it or stating a value.

Many frames with short fixed runs keep scenarios that share a subject from sharing sentences.

Example:
    >>> sorted(KINDS)
    ['cost', 'count', 'date', 'finding', 'offer', 'people', 'rate']
"""

from __future__ import annotations

from dataclasses import dataclass

AT = ("at the", "in the", "for the", "across the", "within the")
"""How a value places its unit ("{at} {Q}" -> "across the north campus")."""
WHEN = (
    "this year",
    "last quarter",
    "over the past year",
    "so far this year",
    "in the latest quarter",
    "since the spring",
    "over the winter",
    "in the last half-year",
    "year to date",
    "this fiscal year",
    "during the summer",
    "last month",
    "in the prior period",
    "at the last close",
)
"""When a value was measured; free of digits and month names, so it adds no atom."""


@dataclass(frozen=True)
class Kind:
    """One way of measuring a subject."""

    main: str  # the main detail; "{span}" is replaced by the subject's range or the default
    default_span: str
    name_words: tuple[str, ...]
    values: tuple[str, ...]
    hooks: tuple[str, ...]


def _frames(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.strip().splitlines() if line.strip())


KINDS: dict[str, Kind] = {
    "cost": Kind(
        "{usd:{span}}",
        "200k-5M",
        ("spend", "cost", "outlay", "budget"),
        _frames("""
            {N} {at} {Q} came to {X} in {month}
            {X} went on {S} {at} {Q} {when}
            Spending on {S} {at} {Q} reached {X} by {date}
            The {Q} booked {X} of {S} {when}
            Ledgers {at} {Q} show {X} against {S}
            {X} is the running total for {S} {at} {Q}
            Finance puts {S} {at} {Q} at {X} {when}
            The {Q} paid {X} for {S} {when}
            So far the {Q} has spent {X} on {S}
            Invoices for {S} {at} {Q} add up to {X} since {month}
            The {Q} forecast shows {S} costing {X} next year
            {S} drew {X} from the {Q} accounts as of {date}
        """),
        _frames("""
            how much goes to {P}
            what {P} is costing
            how much money {P} absorbs
            what we pay for {P}
            how large the bill for {P} has grown
            what the outlay on {P} looks like
            how heavily {P} weighs on the budget
            what has been spent on {P} lately
        """),
    ),
    "rate": Kind(
        "{pct:{span}}",
        "3.0-29.9",
        ("rate", "level"),
        _frames("""
            The {N} {at} {Q} stood at {X} in {month}
            {X} is the latest {N} reported by the {Q}
            At the {Q}, the {N} has reached {X}
            {N} {at} {Q} came in at {X} {when}
            The {Q} recorded {X} as its {N}
            Audited figures put the {Q} {N} at {X}
            {X} was the {N} {at} {Q} for the year to {date}
            Dashboards show {X} for the {N} {at} {Q}
            The {N} {at} {Q} moved to {X} {when}
            Since {month} the {Q} has held its {N} at {X}
            A spot check on {date} found the {Q} {N} at {X}
            Monthly reporting gives {X} as the {Q} {S} figure
        """),
        _frames("""
            where things stand on {P}
            what the latest reading on {P} shows
            how the numbers on {P} look
            how much has changed with {P}
            what the trend in {P} looks like
            how we are doing on {P}
            how worrying the picture on {P} is
            what the measurements say about {P}
        """),
    ),
    "count": Kind(
        "{num:{span}}",
        "120-4800",
        ("",),
        _frames("""
            The {Q} recorded {X} {S} in {month}
            {S} {at} {Q} reached {X} {when}
            {X} {S} were logged {at} {Q} {when}
            A count on {date} found {X} {S} {at} {Q}
            The {Q} now carries {X} {S}
            Tallies {at} {Q} show {X} {S} since {month}
            {S} {at} {Q} totalled {X} {when}
            There are {X} {S} on the books {at} {Q}
            Reports from the {Q} list {X} {S}
            The {Q} closed the quarter with {X} {S}
            By {date} the {Q} had {X} {S}
            Weekly reports put {S} {at} {Q} at {X}
        """),
        _frames("""
            how many {P} there are
            how large the pile of {P} is
            what the tally of {P} looks like
            how many {P} have built up
            how many {P} we are dealing with
            what volume of {P} is involved
            how the count of {P} has moved
        """),
    ),
    "date": Kind(
        "{date}",
        "",
        ("date", "deadline", "timing", "window"),
        _frames("""
            The {S} {at} {Q} is set for {X}
            The {Q} has the {S} scheduled on {X}
            {S} {at} {Q} falls on {X}
            {X} is the date fixed for the {Q} {S}
            Planners expect the {S} {at} {Q} on {X}
            The {Q} must complete the {S} by {X}
            Calendars show the {Q} {S} landing on {X}
            The {S} covering the {Q} was moved to {X}
            Notice went out that the {Q} {S} happens on {X}
            The {Q} {S} is booked for {X} at {time}
            Word from the {Q} is that the {S} starts {X}
        """),
        _frames("""
            when {P} will happen
            what the timing of {P} is
            when {P} is expected
            how soon {P} comes
            which day {P} lands on
            when we should plan for {P}
        """),
    ),
    "offer": Kind(
        "{usd:{span}}",
        "300k-9M",
        ("offer", "quote", "proposal", "terms"),
        _frames("""
            {org} offered {X} for {S} {at} {Q}
            A quote from {org} prices {S} {at} {Q} at {X}
            {org} proposed {X} to take on {S} {at} {Q}
            For {S} {at} {Q}, {org} put {X} on the table
            {org} bid {X} on {S} {at} {Q}, valid until {date}
            The {Q} holds a draft offer of {X} from {org} covering {S}
            Terms from {org}: {X} for {S} {at} {Q}
            {org} asked {X} to handle {S} {at} {Q} from {month}
            In talks on {date}, {org} named {X} for {S} {at} {Q}
            {org} would supply {S} to the {Q} for {X} a year
        """),
        _frames("""
            what terms are on offer for {P}
            what an outside firm has proposed for {P}
            what deal is on the table for {P}
            what a supplier wants for {P}
            what price has been floated for {P}
            which offer has come in for {P}
        """),
    ),
    "finding": Kind(
        "{code:{span}}",
        "",
        ("finding", "review", "audit"),
        _frames("""
            Review {X} of {S} {at} {Q} found {num:110-900} exceptions
            Audit {X} flagged {S} problems {at} {Q} on {date}
            An internal check of {S} {at} {Q}, case {X}, is still open
            Case {X} on {S} {at} {Q} was escalated on {date}
            Inspectors cited the {Q} for {S} under notice {X}
            {S} {at} {Q} failed audit {X} in {month}
            The {Q} has an unresolved {S} finding, file {X}
            File {X} records {pct:5.0-29.9} of {S} checks {at} {Q} failing
            A quiet review of {S} {at} {Q} opened as {X}
            Finding {X} says {S} controls {at} {Q} broke down in {month}
        """),
        _frames("""
            whether a review of {P} turned anything up
            what checks on {P} have found
            whether problems with {P} are on file
            what auditors concluded about {P}
            whether anything is open on {P}
            what the inspection of {P} showed
        """),
    ),
    "people": Kind(
        "{person}",
        "",
        ("case", "matter"),
        _frames("""
            The {S} {at} {Q} concerns {X}, flagged on {date}
            {X} is at the centre of the {Q} {S}
            The {Q} {S} involves {X} and dates from {month}
            Records tie the {S} {at} {Q} to {X}
            Since {date} the {S} {at} {Q} has named {X}
            {X} was told on {date} about the {S} affecting the {Q}
            The {S} touching the {Q} centres on {X}
            Papers on the {Q} {S} name {X} as of {month}
        """),
        _frames("""
            who is caught up in {P}
            which person {P} concerns
            who {P} involves
            whose name is attached to {P}
            who sits at the heart of {P}
        """),
    ),
}
"""Every measure kind a subject line can name."""
