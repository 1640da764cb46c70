"""PettingZoo API compliance over every shipped scenario, first and foremost."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import scenarios
import sotopia_tom_env


def _shipped() -> list[scenarios.Scenario]:
    out = []
    for name in scenarios.io.SHIPPED_SETS:
        try:
            out += scenarios.load(name)
        except FileNotFoundError:
            continue
    return out


ALL = _shipped()


@pytest.fixture(autouse=True)
def _quiet():
    # PettingZoo warns that text observations are not numpy arrays; that is by design here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("scenario", ALL, ids=[s.id for s in ALL])
def test_parallel_api(scenario):
    parallel_api_test(sotopia_tom_env.parallel_env(scenarios=[scenario]), num_cycles=80)


@pytest.mark.parametrize("scenario", ALL, ids=[s.id for s in ALL])
def test_parallel_seed(scenario):
    parallel_seed_test(lambda: sotopia_tom_env.parallel_env(scenarios=[scenario]), num_cycles=80)


@pytest.mark.parametrize("scenario", ALL, ids=[s.id for s in ALL])
def test_aec_api(scenario):
    api_test(sotopia_tom_env.env(scenarios=[scenario]), num_cycles=80)


def test_aec_seed_over_a_mixed_set():
    seed_test(lambda: sotopia_tom_env.env(scenarios="tiny"), num_cycles=80)


@pytest.mark.parametrize("order", ["round-robin", "simultaneous"])
def test_parallel_api_both_turn_orders_on_mixed_sizes(order):
    parallel_api_test(
        sotopia_tom_env.parallel_env(scenarios="tiny", turn_order=order), num_cycles=200
    )
