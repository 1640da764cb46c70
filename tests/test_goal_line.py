"""The goal-line measure: which needed items a scenario's shared goal names."""

from __future__ import annotations

import pytest

import scenarios
from scenarios.goal_line import content_stems, named_in_goal, needs_named_in_goal

NAME = "Suburban clinics operating margin level"


@pytest.mark.parametrize(
    "goal",
    [
        "Decide whether to buy it, weighing the suburban clinics operating margin level.",
        "Decide whether to buy it, weighing the Suburban Clinics' operating margin levels.",
        "Weigh the suburban clinics operating margin level and the west campus load test rate.",
    ],
)
def test_a_goal_that_lists_the_item_names_it(goal):
    assert named_in_goal(NAME, goal)


@pytest.mark.parametrize(
    "goal",
    [
        "Decide whether to buy it, based on margin impact and clinic access.",
        "Decide whether to buy the suburban clinics, weighing the operating margin.",  # split
        "Decide whether to buy it, weighing the level of margin at suburban clinics.",  # reordered
        "",
    ],
)
def test_a_goal_with_themes_or_scattered_words_does_not(goal):
    assert not named_in_goal(NAME, goal)


def test_function_words_are_left_out_and_endings_ignored():
    assert content_stems("The costs of the north campus") == ["cost", "north", "campu"]
    assert named_in_goal("Documents under review", "based on the document reviews")


def test_share_counts_every_need_once_per_agent():
    tiny = scenarios.load("tiny")[0]
    needs = [n for a in tiny.agents for n in a.post_interaction_knowledge.desired_knowledge]
    first = needs[0]
    goal = f"Decide whether to proceed, weighing the {first.lower()}."
    named = sum(named_in_goal(n, goal) for n in needs)
    s = tiny.model_copy(update={"scenario_goal": goal})
    assert needs_named_in_goal([s]) == pytest.approx(named / len(needs))
    assert needs_named_in_goal([]) == 0.0


def test_gold_names_few_needs_in_its_goals():
    assert 0.02 <= needs_named_in_goal(scenarios.load("gold")) <= 0.06
