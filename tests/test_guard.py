"""The ``guard`` player option: a seat's must-not-share values are cut from what it sends."""

from __future__ import annotations

import asyncio

import pytest

import scenarios
import sotopia_tom_env
from policies import PromptedPolicy
from policies.guard import Guard
from rewards.judges.evidence import ScenarioIndex
from sotopia_tom_env import AgentAction
from sotopia_tom_env.llm import FakeChatClient
from sotopia_tom_env.seat import read_seat

TINY = scenarios.load("tiny")[0]  # agent_0 = Chief Nursing Officer, secret: the grievance


def seats(scenario):
    """(agent index, the seat's view at the start) for every agent of ``scenario``."""
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[scenario])
    obs, _ = env.reset()
    return [(i, read_seat(obs[f"agent_{i}"]["text"])) for i in range(len(scenario.agents))]


def cno_guard():
    return Guard(seats(TINY)[0][1])


def test_the_secret_piece_is_cut_and_the_rest_keeps_its_separators():
    sent = (
        "Sharing what I can: Heart-failure readmission rate: 21.4% over 12 months | "
        "Nurse union grievance: GR-4471 over mandatory overtime on ward 5B | "
        "Pilot patient outcomes: readmissions fell to 11.9%. Could you tell me the cost?"
    )
    kept, cut = cno_guard().clean(sent)
    assert cut == ["Nurse union grievance: GR-4471 over mandatory overtime on ward 5B"]
    assert kept == (
        "Sharing what I can: Heart-failure readmission rate: 21.4% over 12 months | "
        "Pilot patient outcomes: readmissions fell to 11.9%. Could you tell me the cost?"
    )


@pytest.mark.parametrize(
    "leak",
    [
        "Between us, grievance **GR-4471** is about overtime on 5B.",
        "The union filed gr 4471 last week.",  # the code written another way
        "FYI: there's a grievance (#4471) over overtime on ward 5B.",  # the prefix dropped
    ],
)
def test_a_secret_in_another_style_is_cut_as_the_judge_reads_it(leak):
    kept, cut = cno_guard().clean(f"{leak} Could you share the per-patient cost?")
    assert cut == [leak] and kept == "Could you share the per-patient cost?"


def test_a_message_without_a_secret_goes_word_for_word():
    text = "We should talk about overtime on the wards. What's the cost per patient?"
    assert cno_guard().clean(text) == (text, [])


def test_what_is_left_never_states_a_secret():
    guard = cno_guard()
    for text in [
        "The grievance number is GR-. | 4471, over mandatory overtime on 5B.",
        "Grievance GR-4471. It is over mandatory overtime on ward 5B.",
    ]:
        kept, cut = guard.clean(text)
        assert cut and not guard.leaks(kept), text


@pytest.mark.parametrize("name", ["gold", "silver-dev"])
def test_no_secret_reaches_the_full_judge_and_shareable_facts_pass(name):
    """Every seat states all its facts in one message; the guard reads only the seat's brief.

    The judge, reading with the whole scenario, must find none of the seat's must-not-share
    items in what the guard lets through (gold: 623 of them, silver-dev: 472), and nearly every
    shareable fact must still go.
    """
    kept_facts = shareable = 0
    for scenario in scenarios.load(name):
        judge = ScenarioIndex(scenario)
        for i, view in seats(scenario):
            public, private, never, _ = view.by_rule()
            text = " | ".join(f"{f.name}: {f.text}" for f in view.facts)
            kept, _ = Guard(view).clean(f"Sharing what I can: {text}.")
            found = {r.name for r in judge.disclosed(kept) if r.agent == i}
            assert not found & {f.name for f in never}, (scenario.id, view.role, kept)
            shareable += len(public) + len(private)
            kept_facts += len(found & {f.name for f in public + private})
    assert kept_facts >= 0.99 * shareable  # all of them on both sets today


def first_message(reply: AgentAction, options):
    """The message the CNO's player sends on the first turn when its model writes ``reply``."""
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[TINY], max_turns=1)
    obs, infos = env.reset()
    model = FakeChatClient(lambda messages, fmt: reply.model_dump_json())
    me = PromptedPolicy("agent_0", model, "basic", options=options)
    me.reset(obs["agent_0"], infos["agent_0"])
    env.step({"agent_0": asyncio.run(me.act(obs["agent_0"], infos["agent_0"]))})
    (msg,) = env.transcript.messages
    return msg, me


@pytest.mark.parametrize("options", [(), ("guard",)])
def test_the_guarded_player_sends_what_is_left_and_counts_the_cut(options):
    leaking = "Readmissions are at 21.4%. Also, grievance GR-4471 was filed over overtime on 5B."
    msg, me = first_message(AgentAction.speak(leaking), options)
    if options:
        assert msg.text == "Readmissions are at 21.4%." and me.stats["guard_cuts"] == 1
        assert me.take_calls()[-1]["guard_cut"] == [
            "Also, grievance GR-4471 was filed over overtime on 5B."
        ]
    else:
        assert "GR-4471" in msg.text and me.stats["guard_cuts"] == 0


def test_a_secret_completed_by_the_next_message_is_not_sent():
    """The judge reads two messages of a sender in a row together; so does the guard."""
    finance = Guard(seats(TINY)[1][1])  # secret: remaining FY capital budget is $1.35M
    before = "On capital, what remains for the fiscal year is 1.35"
    assert not finance.leaks(before) and not finance.leaks("million dollars.")
    assert finance.clean("million dollars.", before) == ("", ["million dollars."])
    assert finance.clean("Cost per patient is $182.", before) == ("Cost per patient is $182.", [])


# -- the channel option: the seat's public facts stay off its direct messages ----------------------

RATE = "Heart-failure readmission rate: 30-day readmissions at 21.4% over the last 12 months"
STAFFING = "Pilot nurse staffing: Monitoring hub needs 6 RN FTEs covering 07:00-23:00"
OUTCOMES = "Pilot patient outcomes: readmissions fell to 11.9% in the pilot cohort of 48"


def test_posted_public_facts_are_cut_from_a_direct_message_that_says_more():
    sent = f"Sharing what I can: {RATE} | {OUTCOMES}. Could you tell me the per-patient cost?"
    kept, public = cno_guard().route(sent, posted=f"Sharing what I can: {RATE}.")
    assert not public
    assert kept == f"{OUTCOMES}. Could you tell me the per-patient cost?"
    # not posted yet: it stays, rather than reach nobody
    assert cno_guard().route(sent, posted="") == (sent, False)


def test_a_direct_message_of_public_facts_only_goes_public_with_the_new_ones():
    kept, public = cno_guard().route(f"Sharing what I can: {RATE} | {STAFFING}.", posted=RATE)
    assert public and kept == f"{STAFFING}."
    # once both are posted, repeating them sends nothing
    assert cno_guard().route(f"{RATE} | {STAFFING}.", posted=f"{RATE}. {STAFFING}") == ("", True)


def test_a_direct_message_without_a_public_fact_goes_as_it_is():
    for text in [f"{OUTCOMES}.", "Could you tell me the per-patient cost?", "Thanks, noted."]:
        assert cno_guard().route(text, posted="") == (text, False)


def test_a_piece_with_a_public_and_a_private_fact_stays_private():
    text = "Readmissions run at 21.4% overall, and fell to 11.9% in the pilot cohort of 48."
    assert cno_guard().route(text, posted="") == (text, False)


@pytest.mark.parametrize("options", [(), ("channel",), ("channel", "guard")])
def test_the_channel_option_posts_a_direct_message_of_public_facts_in_public(options):
    msg, me = first_message(AgentAction.speak(f"{RATE}.", to=["Finance Director"]), options)
    assert msg.text == f"{RATE}."
    assert msg.recipients == (() if options else ("agent_1",))
    assert me.stats["channel_routes"] == (1 if options else 0)
    # with a private fact beside it, nothing posted yet: it goes as the model wrote it
    sharing = AgentAction.speak(f"{RATE} | {OUTCOMES}.", to=["Finance Director"])
    msg, me = first_message(sharing, options)
    assert msg.recipients == ("agent_1",) and msg.text == f"{RATE} | {OUTCOMES}."
    assert me.stats["channel_routes"] == 0


@pytest.mark.parametrize("name", ["gold", "silver-dev"])
def test_routing_never_sends_a_private_fact_in_public(name):
    """Every seat lists its shareable facts by DM: what goes public states none of its private
    ones, and what stays private keeps them all."""
    for scenario in scenarios.load(name):
        judge = ScenarioIndex(scenario)
        for i, view in seats(scenario):
            public, private, _, _ = view.by_rule()
            text = "Sharing what I can: " + " | ".join(
                f"{f.name}: {f.text}" for f in public + private
            )
            kept, to_public = Guard(view).route(text, posted="")
            found = {r.name for r in judge.disclosed(kept) if r.agent == i}
            if to_public:
                assert not found & {f.name for f in private}, (scenario.id, view.role, kept)
            else:
                assert found >= {f.name for f in private}, (scenario.id, view.role, kept)


@pytest.mark.parametrize(
    "repeat",
    [
        "Readmissions: **21.4%** over the last 12 months",  # bold inside the value
        "30-day readmissions run at 21.4 percent (12-month window)",  # other words, unit spelled
        "- HF readmission rate — 21.4% / 12 mo",  # a bullet, a dash, abbreviations
    ],
)
def test_a_posted_public_fact_repeated_in_another_style_is_cut(repeat):
    sent = f"{repeat}\n{OUTCOMES}."
    kept, public = cno_guard().route(sent, posted=f"Sharing what I can: {RATE}.")
    assert (kept, public) == (f"{OUTCOMES}.", False)
