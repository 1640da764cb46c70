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


def leaking(messages, fmt):
    return AgentAction.speak(
        "Readmissions are at 21.4%. Also, grievance GR-4471 was filed over overtime on 5B."
    ).model_dump_json()


@pytest.mark.parametrize("options", [(), ("guard",)])
def test_the_guarded_player_sends_what_is_left_and_counts_the_cut(options):
    env = sotopia_tom_env.parallel_env(reward_fn=None, scenarios=[TINY], max_turns=1)
    obs, infos = env.reset()
    me = PromptedPolicy("agent_0", FakeChatClient(leaking), "basic", options=options)
    me.reset(obs["agent_0"], infos["agent_0"])
    env.step({"agent_0": asyncio.run(me.act(obs["agent_0"], infos["agent_0"]))})
    (msg,) = env.transcript.messages
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
