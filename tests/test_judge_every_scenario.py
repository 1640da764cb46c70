"""Every scenario that loads is playable and judgeable: no raise, no ``judge_failed``.

Covers the shipped sets and every reference scenario file (skipped when that folder is absent)
with the scripted ideal, leaky and random players and the default rule-judge reward. Shipped
scenarios must all pass validation. Reference files include deliberately bad generator seeds
that the review rules refuse by default; they are played with ``review_scenarios=False``, which
still refuses anything that cannot be routed (none of them is).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import REFERENCE_DIR

import scenarios
import sotopia_tom_env
from policies import IdealPlayer, LeakyPlayer, RandomPlayer, play_episode

MAX_TURNS = 24  # long enough for every scripted plan to share and ask; keeps ~2,400 episodes fast

PLAYERS: dict[str, Callable[[str, scenarios.Scenario], Any]] = {
    "ideal": IdealPlayer,
    "leaky": LeakyPlayer,
    "random": lambda agent, _scenario: RandomPlayer(agent, seed=7),
}
SHIPPED = ["tiny", "gold", "silver"]
REFERENCE = sorted(p.name for p in REFERENCE_DIR.glob("*.json")) if REFERENCE_DIR.is_dir() else []


def play_and_judge(scenario: scenarios.Scenario, player: str, review: bool = True) -> str | None:
    """Play ``scenario`` to the end; the problem found, or ``None`` if it was judged cleanly."""
    env = sotopia_tom_env.parallel_env(
        scenarios=[scenario], max_turns=MAX_TURNS, review_scenarios=review
    )
    try:
        result = asyncio.run(play_episode(env, PLAYERS[player], seed=0))
    except Exception as e:  # the point of the test: report every scenario that raises
        return f"raised {type(e).__name__}: {e}"
    infos = result.final_infos
    if result.policy_errors:
        return f"player errors: {result.policy_errors[:2]}"
    if sorted(infos) != sorted(result.returns) or not infos:
        return f"final infos missing for some agents: {sorted(infos)}"
    failed = {a: i.get("judge_failures") for a, i in infos.items() if i.get("judge_failed", True)}
    return f"judge failed: {failed}" if failed else None


def check_all(
    loaded: list[scenarios.Scenario], player: str, review: bool = True
) -> tuple[list[str], list[str]]:
    """(why each refused scenario is invalid, problems of the playable ones)."""
    refused, problems = [], []
    for s in loaded:
        try:
            sotopia_tom_env.parallel_env(
                scenarios=[s], max_turns=MAX_TURNS, review_scenarios=review
            )
        except ValueError as e:  # invalid scenarios are refused at construction with a clear error
            refused.append(f"{s.id}: {str(e).splitlines()[-1].strip()}")
            continue
        problem = play_and_judge(s, player, review)
        if problem:
            problems.append(f"{s.id}: {problem}")
    return refused, problems


@pytest.mark.parametrize("player", sorted(PLAYERS))
@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_scenario_is_judged(name: str, player: str) -> None:
    loaded = scenarios.load(name)
    refused, problems = check_all(loaded, player)
    assert refused == [], f"{len(refused)} shipped {name} scenarios are invalid: {refused[:3]}"
    assert problems == [], f"{len(problems)}/{len(loaded)} {name} scenarios: {problems[:5]}"


@pytest.mark.parametrize("player", sorted(PLAYERS))
@pytest.mark.parametrize("name", REFERENCE or ["(absent)"])
def test_every_loadable_reference_scenario_is_judged(name: str, player: str) -> None:
    if not REFERENCE:
        pytest.skip(f"reference scenarios not available at {REFERENCE_DIR}")
    try:
        loaded = scenarios.load(Path(REFERENCE_DIR, name))
    except (scenarios.ScenarioFormatError, ValueError) as e:
        pytest.skip(f"{name} does not load as scenarios: {e}")
    refused, problems = check_all(loaded, player, review=False)
    assert refused == [], f"{len(refused)} scenarios of {name} cannot be played: {refused[:3]}"
    assert problems == [], f"{len(problems)}/{len(loaded)} scenarios of {name}: {problems[:5]}"


def test_a_long_item_name_from_the_reference_set_is_judged() -> None:
    """Regression: item names longer than any LLM output cap (rebuttal scenario 94)."""
    path = REFERENCE_DIR / "rebuttal_ablation_scenarios.json"
    if not path.exists():
        pytest.skip(f"reference scenarios not available at {path}")
    s = next(x for x in scenarios.load(path) if x.id == "94")
    longest = max(len(n) for a in s.agents for n in a.post_interaction_knowledge.desired_knowledge)
    assert longest > 160
    assert play_and_judge(s, "ideal", review=False) is None
