"""The judge options of ``bench`` and ``judge``: a separate judge endpoint, clients opened only
when needed, and a mistyped ``--judge`` refused before anything starts (no real server here)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sotopia_tom_app.cli import app
from sotopia_tom_env import serving
from sotopia_tom_env.llm import FakeChatClient

EMPTY_VERDICTS = {
    "DAVerdict": {"agents": []},
    "IAVerdict": {"agents": []},
    "EFFVerdict": {"agents": [], "total_rounds": 0},
    "CPVVerdict": {"violations": []},
}


class Opened:
    """A stand-in for ``serving.chat_client`` that records every client it opens."""

    def __init__(self) -> None:
        self.endpoints: list[tuple[str | None, str | None]] = []
        self.clients: list[FakeChatClient] = []

    @contextmanager
    def __call__(self, model=None, base_url=None, **_):
        self.endpoints.append((model, base_url))
        client = FakeChatClient(self.reply, model=model or "embedded")
        self.clients.append(client)
        yield client

    @staticmethod
    def reply(messages, fmt):
        # the judge's schemas get an empty (valid) verdict; a player gets an unusable reply and
        # falls back to "none"
        return json.dumps(EMPTY_VERDICTS.get(getattr(fmt, "__name__", ""), {}))


@pytest.fixture
def opened(monkeypatch, tmp_path_factory) -> Opened:
    fake = Opened()
    monkeypatch.setattr(serving, "chat_client", fake)
    # a fresh judge cache, so every verdict is asked for (and the user's cache stays untouched)
    monkeypatch.setenv("SOTOPIA_TOM_CACHE", str(tmp_path_factory.mktemp("cache")))
    return fake


def bench(out: Path, *args: str):
    base = ["bench", "--scenarios", "tiny", "--limit", "1", "--max-turns", "4", "--out", str(out)]
    return CliRunner().invoke(app, [*base, *args])


def judge_requests(client: FakeChatClient) -> int:
    return sum(
        getattr(r["response_format"], "__name__", "") in EMPTY_VERDICTS for r in client.requests
    )


@pytest.mark.parametrize("command", ["bench", "judge"])
def test_a_mistyped_judge_is_refused_before_any_client_starts(opened, tmp_path, command):
    args = ["--judge", "llmm", "--policies", "basic"] if command == "bench" else ["--judge", "llmm"]
    result = (
        bench(tmp_path, *args)
        if command == "bench"
        else CliRunner().invoke(app, ["judge", str(tmp_path), *args])
    )
    assert result.exit_code == 2, result.output
    error = next(line for line in result.output.splitlines() if line.startswith("error:"))
    assert "llmm" in error and "rule" in error and "llm" in error
    assert opened.endpoints == [] and not (tmp_path / "config.json").exists()


def test_a_judge_endpoint_needs_a_model(opened, tmp_path):
    result = bench(
        tmp_path, "--judge", "llm", "--policies", "ideal", "--judge-base-url", "http://j/v1"
    )
    assert result.exit_code == 2 and "--judge-base-url needs --judge-model" in result.output
    assert opened.endpoints == []


def test_rule_judge_and_scripted_players_open_no_client(opened, tmp_path):
    result = bench(tmp_path, "--judge", "rule", "--policies", "ideal")
    assert result.exit_code == 0, result.output
    assert opened.endpoints == []


def test_llm_judge_with_scripted_players_opens_only_the_judge_client(opened, tmp_path):
    result = bench(tmp_path, "--judge", "llm", "--policies", "ideal", "--judge-model", "judge-m",
                   "--judge-base-url", "http://judge.invalid/v1")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert opened.endpoints == [("judge-m", "http://judge.invalid/v1")]
    assert judge_requests(opened.clients[0]) == 4  # one call per metric for the one episode
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["judge"] == "llm" and config["judge_model"] == "judge-m"


def test_players_and_judge_share_a_client_by_default(opened, tmp_path):
    result = bench(tmp_path, "--judge", "llm", "--policies", "basic", "--model", "p",
                   "--base-url", "http://p/v1")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert opened.endpoints == [("p", "http://p/v1")]
    client = opened.clients[0]
    assert judge_requests(client) == 4 and len(client.requests) > 4  # players asked it too
    assert json.loads((tmp_path / "config.json").read_text())["judge_model"] is None


def test_a_judge_model_on_the_players_endpoint_gets_its_own_client(opened, tmp_path):
    result = bench(tmp_path, "--judge", "llm", "--policies", "basic", "--model", "p",
                   "--base-url", "http://p/v1", "--judge-model", "j")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert opened.endpoints == [("p", "http://p/v1"), ("j", "http://p/v1")]
    players, judge = opened.clients
    assert judge_requests(players) == 0 and judge_requests(judge) == 4
    assert {r["max_tokens"] for r in judge.requests} == {4096}


def test_rejudging_with_a_separate_judge_endpoint(opened, tmp_path):
    assert bench(tmp_path, "--judge", "rule", "--policies", "ideal").exit_code == 0
    result = CliRunner().invoke(app, ["judge", str(tmp_path), "--judge", "llm", "--model", "p",
                                      "--judge-model", "j", "--judge-base-url", "http://j/v1"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert opened.endpoints == [("j", "http://j/v1")]
    assert judge_requests(opened.clients[0]) == 4
    rows = [json.loads(x) for x in (tmp_path / "judged-llm.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["judgment"]["judge"] == "llm:j"
