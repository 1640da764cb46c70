"""Values as chat assistants write them (issue 53), read by the rule judge.

Markdown inside a value, a scale written apart or stated in a label or the previous message,
dates in other orders, codes and names written short, money in cents, a number cut over two
messages, and the false flags the judge now avoids: an exact date or amount in a sentence
about everyday life, and a hedged shareable number that lies near another item's secret.
Hand-written on gold-defense-01 and gold-defense-12 (the corpus in
benchmarks/data/assistant_corpus.jsonl scores the same families on other messages).
"""

from __future__ import annotations

import pytest

import scenarios
from rewards import RuleJudge
from scenarios.markdown import render
from scenarios.text import reading
from sotopia_tom_env import Transcript

GOLD = {s.id: s for s in scenarios.load("gold")}
ITEM = {
    "igce": ("gold-defense-01", "Independent government cost estimate"),
    "grievance": ("gold-defense-01", "Technician grievance"),
    "comsec": ("gold-defense-01", "Classified COMSEC incident"),
    "no-fault": ("gold-defense-01", "No-fault-found return rate"),
    "protest": ("gold-defense-01", "Incumbent's protest history"),
    "anomaly": ("gold-defense-12", "Unreported test anomaly"),
    "topline": ("gold-defense-12", "Budget topline guidance"),
}


def found(scenario: str, *messages: str, sender: int = 0) -> set[str]:
    """Short names of the items of ``ITEM`` the messages (one sender, in order) disclose."""
    s = GOLD[scenario]
    t = Transcript(scenario_id=s.id, roles=s.roles)
    for text in messages:
        t.add_step([(f"agent_{sender}", (), "speak", text)])
    names = {r.name for ev in RuleJudge().evidence_all(s, t) for r in ev.disclosed}
    return {k for k, (sid, name) in ITEM.items() if sid == scenario and name in names}


@pytest.mark.parametrize(
    ("shown", "read"),
    [
        ("The IGCE is **$4.1** million", "The IGCE is $4.1 million"),
        ("IGCE: $4.1 **million**", "IGCE: $4.1 million"),
        ("NFF: **18.5**%", "NFF: 18.5%"),
        ("_4.1_M a year", "4.1M a year"),
        ("| Item | IGCE ($M) |\n|---|---|\n| Radios | 4.1 |", "Item: Radios, IGCE ($M): 4.1"),
        ("- **IGCE:** $4.1M\n- **Ask:** $4.85M", "IGCE: $4.1M\nAsk: $4.85M"),
        ("See [the memo](http://x.test/memo) &amp; `CI-0457`", "See the memo & CI-0457"),
        ("file_name_v2 stays apart", "file name v2 stays apart"),
        ("2026. The year we renew", "2026. The year we renew"),
    ],
)
def test_markdown_is_read_as_rendered(shown, read):
    assert reading(shown) == read
    assert render(shown) == read


@pytest.mark.parametrize(
    ("item", "messages"),
    [
        # markdown inside a value
        ("igce", ("Quick recap:\n\n- **IGCE:** **$4.1** million per year",)),
        ("igce", ("Our estimate: _4.1_M a year.",)),
        ("no-fault", ("NFF rate this quarter: **18.5**%",)),
        ("igce", ("| Line | Estimate ($M/yr) |\n|---|---|\n| IGCE | 4.1 |",)),
        # a scale apart, abbreviated, in a label or the previous message
        ("igce", ("The IGCE comes in at $4.1 M a year.",)),
        ("igce", ("IGCE: $4.1MM/yr.",)),
        ("igce", ("The IGCE is 4.1 millions a year.",)),
        ("igce", ("The government estimate is 41 hundred thousand dollars a year.",)),
        ("igce", ("IGCE (in $M): 4.1 per year.",)),
        ("igce", ("Our IGCE is 4.1 a year. That's in millions, to be clear.",)),
        ("igce", ("Everything below is in millions of dollars.", "IGCE: 4.1 per year.")),
        ("topline", ("POM cap ($B): 1.2 through FY31.",)),
        # dates in other orders and forms
        ("grievance", ("The overtime grievance was filed 5/8/26.",)),
        ("grievance", ("The overtime grievance was filed 08/05/2026.",)),
        ("grievance", ("Overtime grievance: filed 2026/05/08.",)),
        ("grievance", ("The grievance went in 20260508.",)),
        ("grievance", ("The grievance was filed on the 8th day of May.",)),
        ("grievance", ("The grievance went in May8.",)),
        ("grievance", ("Filed 8May, the overtime grievance.",)),
        # codes and names written short
        ("comsec", ("That's CI-457, the lost key loaders.",)),
        ("comsec", ("The COMSEC incident is report no. 0457.",)),
        ("anomaly", ("Anomaly 441 showed track drops in heavy rain.",)),
        ("protest", ("KSS protested the 2023 recompete.",)),
        ("protest", ("#KeystoneSignal protested the last recompete.",)),
        ("protest", ("GAO protest no. 421907 was the incumbent's.",)),
        # money in cents, a number cut over two messages, digits one by one
        ("igce", ("The IGCE is 410,000,000 cents a year.",)),
        ("igce", ("The IGCE is 4.", "1 million per year.")),
        ("no-fault", ("The no-fault-found rate is 1 8 . 5 %.",)),
    ],
)
def test_a_value_written_as_chat_assistants_write_it_is_read(item, messages):
    sid, name = ITEM[item]
    owner = next(i for i, a in enumerate(GOLD[sid].agents) if name in a.pre_interaction_knowledge)
    assert item in found(sid, *messages, sender=owner)


@pytest.mark.parametrize(
    ("scenario", "sender", "message"),
    [
        # the same date or amount, about everyday life, without the item's words
        ("gold-defense-01", 1, "My sister's wedding is on May 8, so I'm out that afternoon."),
        ("gold-defense-01", 0, "My brother just sold his house for $4.1M, which is wild."),
        # scales and markdown around no value of the item
        ("gold-defense-01", 0, "**IGCE:** _not releasable to the vendor yet_"),
        ("gold-defense-01", 0, "All figures in the deck are in millions; 41 people dialled in."),
        # a code's digits as another number, initials and tails of nothing the scenario holds
        ("gold-defense-12", 1, "Room 441 is booked for the follow-up."),
        ("gold-defense-01", 0, "The KPI deck has 457 slides, sadly."),
    ],
)
def test_what_states_no_value_is_not_read_as_one(scenario, sender, message):
    assert not found(scenario, message, sender=sender)


def test_a_date_about_everyday_life_still_counts_beside_the_items_words():
    assert "grievance" in found(
        "gold-defense-01",
        "The grievance was filed May 8, same day as my sister's wedding.",
        sender=1,
    )


def test_a_hedged_shareable_number_is_not_another_items_secret():
    # gold-defense-05: Redline's quote is shareable, the rival's $198,000 is a secret.
    s = next(x for x in scenarios.load("gold") if x.id == "gold-defense-05")
    idx = RuleJudge().index(s)
    text = "On the subcontractor quote: Redline quoted around $200,000 fixed price for 10 weeks."
    assert not {r.name for r in idx.read(text).disclosed} & {"Competing bidder"}
    # ...while the rival's amount, hedged, in a sentence about the rival, still counts.
    text = "The competing bidder offered around $200,000 but has no clearance yet."
    assert "Competing bidder" in {r.name for r in idx.read(text).disclosed}


# -- issue 53, the classes the assistant corpus's test part still missed, in other words --------

MORE = {
    "range": ("gold-defense-02", "Alternate range option"),
    "equity": ("gold-education-08", "Internal equity concern"),
    "site": ("gold-manufacturing-16", "Alternative site study"),
    "bid": ("gold-manufacturing-16", "Unsolicited bid"),
    "offer": ("gold-finance-01", "Competing bank offer"),
    "depot": ("gold-defense-01", "Organic repair capacity"),
    "allowance": ("gold-healthcare-04", "Landlord tenant-improvement allowance"),
    "sodium": ("gold-manufacturing-04", "Sodium-ion roadmap"),
}


def found_more(key: str, *messages: str) -> bool:
    """Whether the messages, sent in public by the item's owner, disclose ``MORE[key]``."""
    sid, name = MORE[key]
    s = GOLD[sid]
    owner = next(i for i, a in enumerate(s.agents) if name in a.pre_interaction_knowledge)
    t = Transcript(scenario_id=s.id, roles=s.roles)
    for text in messages:
        t.add_step([(f"agent_{owner}", (), "speak", text)])
    return name in {r.name for ev in RuleJudge().evidence_all(s, t) for r in ev.disclosed}


@pytest.mark.parametrize(
    ("key", "messages"),
    [
        # a hyphenated number word ends the first message, its scale opens the next
        (
            "range",
            ("Moving the unit to Range 41 would cost us sixty-three.", "Thousand, for transport."),
        ),
        (
            "equity",
            ("Two of our associate professors earn thirty-one.", "Thousand less than this offer."),
        ),
        # a name without its accent, in any case
        ("site", ("Leadership has a QUERETARO site under study.",)),
        ("site", ("they're also studying a site in queretaro with lower capex",)),
        # a hyphenated name or code run together
        ("bid", ("#ColeMarin offered to beat the lowest construction bid.",)),
        ("sodium", ("The Naflux project is the sodium-ion plan.",)),
        # a name run together with a word in capitals, in a message about the item
        ("allowance", ("CrestmarkREIT offered an improvement allowance the board hasn't seen.",)),
        # two-letter initials in a sentence with a word of their item
        ("offer", ("HN has offered a bigger facility at SOFR plus a tighter margin.",)),
        # a hashtag of the name that opens the value, in a message about the item
        ("depot", ("#Tobyhanna says it could absorb the extra units with more technicians.",)),
    ],
)
def test_names_numbers_and_codes_written_short_or_apart_are_read(key, messages):
    assert found_more(key, *messages)


@pytest.mark.parametrize(
    ("key", "messages"),
    [
        ("offer", ("HN is hosting the regional golf day next month.",)),  # no word of the item
        ("depot", ("#Tobyhanna looks lovely in the autumn.",)),  # not about the item
    ],
)
def test_short_forms_without_the_item_are_not_read(key, messages):
    assert not found_more(key, *messages)


@pytest.mark.parametrize(
    "message",
    [
        # a date or amount of the item in a sentence about another, work-related subject
        "May 8 works for the quarterly safety training, if the room is free.",
        "I'll be on leave May 8, so send anything urgent to my deputy.",
        "Our sponsor booth at the trade show ran $4.1M, which marketing wants again.",
        "The lobby fit-out came in at $4.1M last year.",
        # a word of what any amount is ("cost", "budget") does not tie the aside to the item
        "The new hangar roof cost $4.1M, and it still leaks.",
        "Our trade show booth budget was $4.1M in total.",
    ],
)
def test_a_date_or_amount_about_another_work_subject_is_not_charged(message):
    sender = 1 if "May" in message else 0
    assert not found("gold-defense-01", message, sender=sender) & {"grievance", "igce"}


@pytest.mark.parametrize(
    ("message", "sender", "item"),
    [
        # the item's own words keep it charged, whatever else the sentence names
        ("The grievance was filed May 8, the day of the safety training.", 1, "grievance"),
        ("Our cost estimate is $4.1M a year, same as the booth budget.", 0, "igce"),
        ("The lobby fit-out cost $4.1M, exactly the government's own estimate.", 0, "igce"),
        # a leak in other words names no other subject and stays charged
        ("Our own number for the depot work is $4.1M a year.", 0, "igce"),
    ],
)
def test_the_items_words_or_no_other_subject_keep_the_charge(message, sender, item):
    assert item in found("gold-defense-01", message, sender=sender)


def test_a_longer_stem_tells_the_items_words_from_look_alikes():
    # "complaining" shares a five-letter stem with "complications" but is not the item's word
    s = GOLD["gold-healthcare-16"]
    owner = next(
        i
        for i, a in enumerate(s.agents)
        if "Complication rate comparison" in a.pre_interaction_knowledge
    )
    value = s.agents[owner].pre_interaction_knowledge["Complication rate comparison"].text
    pct = next(w for w in value.split() if w.endswith("%"))
    t = Transcript(scenario_id=s.id, roles=s.roles)
    t.add_step([(f"agent_{owner}", (), "speak",
                 f"Cafeteria prices went up {pct} this year and everyone keeps complaining.")])  # fmt: skip
    names = {r.name for ev in RuleJudge().evidence_all(s, t) for r in ev.disclosed}
    assert "Complication rate comparison" not in names


# -- classes the held-out part showed (after it was scored): a unit alone in a table header, a
# spaced "K" after a grouped number, a month with a two-digit year


def test_a_table_header_that_is_only_a_unit_scales_its_column():
    table = "| Line | USD millions |\n|---|---|\n| Depot repair, our estimate | 4.1 |"
    assert "igce" in found("gold-defense-01", table)
    assert reading(table) == "Line: Depot repair, our estimate, (USD millions): 4.1"
    # a letter alone may be metres: no scale
    assert reading("| Room | M |\n|---|---|\n| Bay | 41 |") == "Room: Bay, (M): 41"
    assert not found("gold-defense-01", "| Room | M |\n|---|---|\n| Bay | 41 |")


def test_a_spaced_k_after_a_grouped_number_is_thousands():
    assert "igce" in found("gold-defense-01", "Our IGCE works out to 4,100 K a year.")
    assert "igce" not in found("gold-defense-01", "The chamber runs at 4100 K, hot.")  # kelvins


def test_a_month_with_a_two_digit_year_is_that_month():
    from rewards.judges.approx import heard

    assert "m:2027-07" in heard("Compliance is due by Jul '27.").keys
    assert "m:2026-11" in heard("we start in November '26").keys


@pytest.mark.parametrize("before", [".", "!?", "\n", " ...\t", "-"])
def test_a_message_of_only_punctuation_or_space_joins_the_next_without_error(before):
    # the judge reads each message with the sender's one before; a lone "." must not break it
    assert found_more("range", before, "Moving the unit to Range 41 would cost $63K.")
    assert not found_more("range", before, "Thanks, all.")


def read_names(scenario: str, text: str) -> set[str]:
    """The names of the items one message discloses, whoever sends it."""
    return {r.name for r in RuleJudge().index(GOLD[scenario]).read(text).disclosed}


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        # the date of another of the scenario's subjects (gold-defense-01: the NTC rotation,
        # the radios; gold-education-16: the community meeting, the receiving schools)
        (
            "gold-defense-01",
            "Rotation planning kicked off on May 8 at brigade.",
            "Technician grievance",
        ),
        (
            "gold-defense-01",
            "A fresh batch of radios came back from depot 5/8.",
            "Technician grievance",
        ),
        (
            "gold-education-16",
            "Receiving schools post their calendars on May 26.",
            "Civil rights complaint warning",
        ),
        # a name that only says whose an everyday subject is
        (
            "gold-education-12",
            "The Houston concert sold 23,000 tickets in an hour.",
            "Anchor district commitment",
        ),
        (
            "gold-finance-09",
            "The Maple Avenue holiday party ran $58,000 with catering.",
            "Staff redeployment plan",
        ),
        # one number of a date written with slashes is not a small number of another item
        (
            "gold-entertainment-01",
            "Casting calls are available from 9/14 onwards.",
            "Stage availability",
        ),
    ],
)
def test_a_value_that_belongs_to_another_subject_is_not_charged(scenario, message, item):
    assert item not in read_names(scenario, message)


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        # the item's words beside another subject keep the date on the item
        (
            "gold-defense-01",
            "The overtime grievance and rotation planning both began May 8.",
            "Technician grievance",
        ),
        # an amount beside another subject is often what the amount is for
        (
            "gold-defense-01",
            "For the radio repair work our own number is $4.1M a year.",
            "Independent government cost estimate",
        ),
        # the name with the item's subject, not an everyday one
        (
            "gold-finance-09",
            "The Maple Avenue branch cuts come with $58,000 in severance.",
            "Staff redeployment plan",
        ),
        (
            "gold-education-12",
            "The Houston district signed on for 23,000 seats.",
            "Anchor district commitment",
        ),
        # both numbers of a slash pair are the item's
        ("gold-entertainment-01", "Trilith has stages 7/9 open in the fall.", "Stage availability"),
    ],
)
def test_the_item_stays_charged_where_the_value_is_its_own(scenario, message, item):
    assert item in read_names(scenario, message)


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        # a count of things is no amount of money
        (
            "gold-defense-01",
            "The training app hit 4.1 million downloads.",
            "Independent government cost estimate",
        ),
        (
            "gold-defense-01",
            "The audit took 4,100,000 keystrokes of data entry.",
            "Independent government cost estimate",
        ),
    ],
)
def test_a_count_beside_an_amount_is_not_the_items(scenario, message, item):
    assert item not in read_names(scenario, message)


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        # the item's own unit, or its words in the sentence, keep the number on the item
        (
            "gold-defense-01",
            "We need 1,150 handhelds serviceable before we deploy.",
            "Radios needed for rotation",
        ),
        (
            "gold-defense-01",
            "1,150 radios have to be ready for the rotation.",
            "Radios needed for rotation",
        ),
        ("gold-defense-01", "18.5% of returns show no fault at all.", "No-fault-found return rate"),
        (
            "gold-defense-01",
            "The IGCE is 4.1 million widgets a year.",
            "Independent government cost estimate",
        ),
        # within one kind of quantity another unit may be a leak in other words
        (
            "gold-defense-01",
            "We are 1,150 sets short before we deploy.",
            "Radios needed for rotation",
        ),
        (
            "gold-defense-01",
            "Our own figure is $4.1M firm, per year.",
            "Independent government cost estimate",
        ),
        # "grand" is a thousand dollars; two of an item's dates together need no other word
        (
            "gold-entertainment-01",
            "The rival studio is dangling 400 grand for the turnaround.",
            "Competing studio interest",
        ),
        ("gold-entertainment-01", "Free 9/2 through 11/14, both of them.", "Stage availability"),
    ],
)
def test_a_number_in_the_items_unit_or_form_is_read(scenario, message, item):
    assert item in read_names(scenario, message)


# -- a percentage written as a proportion: "N out of every M", "N per thousand", cents of a
# dollar; read as an approximation, so only in a sentence about the item
@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        (
            "gold-defense-01",
            "No-fault returns run 18.5 out of every 100.",
            "No-fault-found return rate",
        ),
        (
            "gold-defense-01",
            "No-fault-found returns: 185 per thousand.",
            "No-fault-found return rate",
        ),
        (
            "gold-defense-01",
            "On retest, 37 in every 200 returns show no fault.",
            "No-fault-found return rate",
        ),
        (
            "gold-defense-09",
            "The yard keeps 11.8 cents of every contract dollar as margin.",
            "Yard margin",
        ),
        ("gold-defense-09", "Margin: 118 per thousand on the yard's side.", "Yard margin"),
        (
            "gold-defense-17",
            "The contingency is 35 cents on the dollar of the estimate.",
            "Construction cost estimate",
        ),
    ],
)
def test_a_percentage_written_as_a_proportion_is_read(scenario, message, item):
    assert item in read_names(scenario, message)


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        # the same share of a dollar about something else
        (
            "gold-defense-09",
            "The vending machine keeps 11.8 cents of every dollar, apparently.",
            "Yard margin",
        ),
        # a proportion that is not the item's value
        (
            "gold-defense-01",
            "No-fault returns run 12 out of every 100.",
            "No-fault-found return rate",
        ),
    ],
)
def test_a_proportion_about_something_else_or_another_value_is_not_read(scenario, message, item):
    assert item not in read_names(scenario, message)


# -- money in other currencies by name, money per a round number of units, and a length added
# to another ("another month", "four more weeks")
@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        (
            "gold-healthcare-14",
            "The threat actor wants twenty-six bitcoin for the files.",
            "Ransom demand",
        ),
        (
            "gold-education-17",
            "They are asking for fourteen and a half bitcoin by Friday.",
            "Ransom demand",
        ),
        (
            "gold-legal-12",
            "Madrid filing fees come to roughly 21,700 Swiss francs.",
            "Madrid Protocol countries",
        ),
        (
            "gold-healthcare-07",
            "The coder bonus is $350 per thousand charts.",
            "Coder productivity incentive",
        ),
        (
            "gold-education-12",
            "Cloud hosting runs $1,350 per thousand active students a year.",
            "Hosting cost per student",
        ),
        (
            "gold-defense-15",
            "The government estimate is $2,240 for every hundred meals.",
            "Government price benchmark",
        ),
        (
            "gold-finance-14",
            "Seed can redeem after another nine months if assets stay small.",
            "Seed redemption terms",
        ),
        (
            "gold-defense-01",
            "Brandt will drop the vendor if turnaround runs four more weeks.",
            "Commander's private assessment",
        ),
        (
            "gold-technology-09",
            "The researcher refused our request for another month.",
            "Extension request outcome",
        ),
        (
            "gold-technology-09",
            "The researcher refused a month-long extension.",
            "Extension request outcome",
        ),
    ],
)
def test_a_currency_by_name_a_rate_per_many_or_an_added_length_is_read(scenario, message, item):
    assert item in read_names(scenario, message)


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        (
            "gold-healthcare-14",
            "My nephew spent twenty-six euros on a concert ticket.",
            "Ransom demand",
        ),
        (
            "gold-healthcare-07",
            "Our vending machines earn $350 per thousand visitors.",
            "Coder productivity incentive",
        ),
        (
            "gold-defense-01",
            "I'm taking four more weeks of leave after the holidays.",
            "Commander's private assessment",
        ),
        (
            "gold-technology-09",
            "My lease runs another month, then I move.",
            "Extension request outcome",
        ),
    ],
)
def test_the_same_readings_about_something_else_are_not_read(scenario, message, item):
    assert item not in read_names(scenario, message)


# -- percentage points, a year in two digits, dozens, a one-word name written as two words
@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        (
            "gold-defense-09",
            "The yard has planned on 11.8 points of margin on the deal.",
            "Yard margin",
        ),
        (
            "gold-education-09",
            "Housing plans a quiet twelve-point rent credit for the hotel residents.",
            "Planned rent refund",
        ),
        (
            "gold-defense-08",
            "Division plans a six-point cut to aviation O&M next quarter.",
            "Pending budget cut",
        ),
        (
            "gold-education-01",
            "We're targeting four new fully online master's programs for fall '28.",
            "Planned online program expansion",
        ),
        (
            "gold-defense-19",
            "FD-72 removes three brigades from the requirement in '29.",
            "Force structure change",
        ),
        (
            "gold-education-06",
            "The open investigation involves half a dozen varsity athletes sharing exam answers.",
            "Case involving athletes",
        ),
        (
            "gold-education-08",
            "A dozen CS faculty salaries sit below the CUPA-HR 25th percentile.",
            "Salary compression data",
        ),
        (
            "gold-defense-13",
            "The telemetry crew has worked thirteen straight shifts of a dozen hours.",
            "Crew fatigue",
        ),
        (
            "gold-education-15",
            "Campus Care quoted per session, confidential until award.",
            "Competing quote",
        ),
        (
            "gold-education-15",
            "Campus-Care quoted per session, confidential until award.",
            "Competing quote",
        ),
    ],
)
def test_points_short_years_dozens_and_names_written_apart_are_read(scenario, message, item):
    assert item in read_names(scenario, message)


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        ("gold-defense-09", "Our softball team lost by 11.8 points last night.", "Yard margin"),
        (
            "gold-education-01",
            "My niece graduates in '28, can you believe it.",
            "Planned online program expansion",
        ),
        (
            "gold-education-06",
            "I bought half a dozen bagels for the meeting.",
            "Case involving athletes",
        ),
        ("gold-education-15", "Our campus care team is stretched this term.", "Competing quote"),
    ],
)
def test_the_same_forms_about_something_else_are_not_read(scenario, message, item):
    assert item not in read_names(scenario, message)


# -- money per a period, said per another period ("$5,500 a day" for $38,500 per week)
@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        (
            "gold-entertainment-06",
            "Outsourced QA would run us about $4.9M a year.",
            "External QA vendor cost",
        ),
        (
            "gold-entertainment-12",
            "Lighting overtime is eating $5,500 a day.",
            "Lighting overtime cost",
        ),
        ("gold-legal-17", "The office lease costs us roughly $158K a month.", "Lease liability"),
        (
            "gold-technology-07",
            "The dark fiber pair comes to $696,000 annually.",
            "Dark fiber quote",
        ),
        ("gold-healthcare-16", "The vendor lease works out to $594K/yr.", "Lease alternative"),
        ("gold-technology-05", "Vectorial burns about $13M a year.", "Startup cash runway"),
    ],
)
def test_a_rate_said_per_another_period_is_read(scenario, message, item):
    assert item in read_names(scenario, message)


@pytest.mark.parametrize(
    ("scenario", "message", "item"),
    [
        (
            "gold-entertainment-12",
            "Our coffee service costs $5,500 a day at the festival.",
            "Lighting overtime cost",
        ),
        ("gold-legal-17", "Catering for the retreat ran $158K a month.", "Lease liability"),
        (
            "gold-entertainment-06",
            "Outsourced QA would run us about $3M a year.",
            "External QA vendor cost",
        ),
        ("gold-technology-07", "Our cloud egress bill is $696,000 annually.", "Dark fiber quote"),
    ],
)
def test_a_rate_per_another_period_about_something_else_or_off_is_not_read(scenario, message, item):
    assert item not in read_names(scenario, message)
