"""One record schema for every command that plays an episode (bench, run, play), old folders too."""

from __future__ import annotations

import io
import json

from typer.testing import CliRunner

import scenarios
from rewards import RuleJudge
from sotopia_tom_app.bench.records import EPISODES_FILE, read_episodes
from sotopia_tom_app.bench.report import build_report
from sotopia_tom_app.bench.runner import BenchConfig, Job, play_job
from sotopia_tom_app.bench.seat import play_seat
from sotopia_tom_app.cli import app


def test_run_and_bench_write_the_same_record_of_the_same_episode(tmp_path):
    import asyncio

    scenario = scenarios.load("tiny")[0]
    config = BenchConfig(scenarios="tiny", policies=["leaky"], max_turns=20)
    bench = asyncio.run(play_job(Job("leaky", scenario, 0), config, None, RuleJudge()))
    args = ["run", "--scenario-id", scenario.id, "--policy", "leaky", "--max-turns", "20"]
    assert CliRunner().invoke(app, [*args, "--out", str(tmp_path)]).exit_code == 0
    (run,) = read_episodes(tmp_path / EPISODES_FILE)
    keep = {"wall_s", "finished_at"}
    assert run.model_dump(exclude=keep) == bench.model_dump(exclude=keep)


def test_a_human_seat_is_recorded_like_a_bench_episode():
    import asyncio

    scenario = scenarios.load("tiny")[0]
    record = asyncio.run(
        play_seat(scenario, "agent_0", ["ideal"], RuleJudge(), max_turns=6,
                  stdin=io.StringIO("/leave\n" * 10), stdout=io.StringIO())
    )  # fmt: skip
    assert (record.policy, record.episode_id) == ("human", f"human:agent_0/{scenario.id}/0")
    assert record.model is None and record.llm == {}  # scripted partners: no calls, no model


def test_a_folder_saved_when_run_recorded_its_client_totals_still_reports(tmp_path):
    """`run --out` once saved the chat client's totals (judge calls and latency too) as `llm`."""
    args = ["run", "--scenario-id", "tiny-3-agents", "--policy", "ideal", "--out", str(tmp_path)]
    assert CliRunner().invoke(app, args).exit_code == 0
    path = tmp_path / EPISODES_FILE
    record = json.loads(path.read_text())
    record["llm"] = {"calls": 12, "prompt_tokens": 9000, "completion_tokens": 600,
                     "failures": 0, "retries": 1, "latency_s": 4.5, "budget_cuts": 2}  # fmt: skip
    path.write_text(json.dumps(record) + "\n")
    summary = build_report(tmp_path)
    interaction = summary["interaction"]["ideal"]
    assert (interaction["budget_cuts"], interaction["completion_tokens"]) == (2.0, 600.0)
