"""The Ray executor: same records as the local runner, and a dead worker loses no episode."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rewards import RuleJudge
from sotopia_tom_app.bench.records import EPISODES_FILE, read_records
from sotopia_tom_app.bench.runner import BenchConfig, EpisodeError, plan, play_bench
from sotopia_tom_app.cli import app

ray = pytest.importorskip("ray")
from sotopia_tom_app.bench.ray_executor import play_bench_ray  # noqa: E402

pytestmark = pytest.mark.timeout(240)  # a stuck cluster fails the test instead of the suite

TESTS = Path(__file__).resolve().parent
# Fields that differ between any two runs of the same episode.
TIMING = {"wall_s", "finished_at"}


def config() -> BenchConfig:
    return BenchConfig(
        scenarios="gold", limit=3, policies=["ideal", "random", "leaky"], seeds=[0, 1],
        max_turns=12,
    )  # fmt: skip


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One small local cluster for the module; its workers can be told to crash once."""
    crash_plan = tmp_path_factory.mktemp("crash") / "plan.json"
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level="ERROR",
        runtime_env={
            "worker_process_setup_hook": "ray_crash.install",
            # The workers import this checkout (and the hook) whatever else is installed.
            "env_vars": {
                "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)]),
                "SOTOPIA_TOM_CRASH": str(crash_plan),
            },
        },
    )
    yield crash_plan
    ray.shutdown()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("local")
    asyncio.run(play_bench(config(), out, judge=RuleJudge()))
    return saved(out)


def saved(out: Path) -> dict[str, dict]:
    """The records of ``out`` by episode id, timing left out; each id must appear once."""
    records = [r.model_dump(mode="json") for r in read_records(out / EPISODES_FILE)]
    by_id = {r["episode_id"]: {k: v for k, v in r.items() if k not in TIMING} for r in records}
    assert len(by_id) == len(records), "an episode was saved twice"
    return by_id


@pytest.mark.slow  # a Ray cluster takes 10-20 s to start on a busy machine
def test_ray_gives_the_local_runners_records(cluster, local_run, tmp_path):
    lines_seen: list[int] = []

    def on_record(record) -> None:  # the driver saves each episode as it arrives
        lines_seen.append(len((tmp_path / EPISODES_FILE).read_text().splitlines()))

    played = play_bench_ray(config(), tmp_path, concurrency=4, on_record=on_record)
    assert lines_seen == list(range(1, played + 1))
    assert played == len(plan(config())) == len(local_run) == 18
    assert saved(tmp_path) == local_run


@pytest.mark.slow  # a Ray cluster takes 10-20 s to start on a busy machine
def test_a_worker_killed_mid_run_loses_no_episode(cluster, local_run, tmp_path):
    target = plan(config())[9].episode_id  # mid-run: others finished, others in flight
    marker = tmp_path / "crashed"
    cluster.write_text(json.dumps({"episode_id": target, "marker": str(marker)}))
    try:
        play_bench_ray(config(), tmp_path / "out", concurrency=4)
    finally:
        cluster.unlink()
    assert marker.exists(), "the worker never crashed: the test proved nothing"
    assert saved(tmp_path / "out") == local_run  # every episode once, the replay identical


@pytest.mark.slow  # a Ray cluster takes 10-20 s to start on a busy machine
def test_an_episode_that_always_kills_its_worker_stops_only_that_worker(
    cluster, local_run, tmp_path, monkeypatch
):
    from sotopia_tom_app.bench import ray_executor

    monkeypatch.setattr(ray_executor, "RETRIES", 1)  # each restart starts a Python process
    target = plan(config())[4].episode_id
    cluster.write_text(json.dumps({"episode_id": target, "always": True}))
    try:
        with pytest.raises(EpisodeError, match="worker was lost"):
            play_bench_ray(config(), tmp_path, concurrency=2)
    finally:
        cluster.unlink()
    partial = saved(tmp_path)
    assert target not in partial  # the other worker played on: most episodes are saved
    assert len(partial) >= len(local_run) // 2
    assert all(partial[k] == local_run[k] for k in partial)
    play_bench_ray(config(), tmp_path, concurrency=2)  # the same command again resumes
    assert saved(tmp_path) == local_run


@pytest.mark.slow  # a Ray cluster takes 10-20 s to start on a busy machine
def test_cli_bench_with_ray_writes_the_report(cluster, tmp_path):
    # Three workers on two CPUs: they share the CPUs rather than one waiting forever.
    args = ["bench", "--executor", "ray", "--workers", "3", "--scenarios", "tiny",
            "--policies", "ideal,silent", "--max-turns", "8", "--out", str(tmp_path)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(saved(tmp_path)) == len(scenarios_in("tiny")) * 2
    assert (tmp_path / "report.md").exists()


def scenarios_in(name: str) -> list:
    import scenarios

    return scenarios.load(name)


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--address", "auto"], "--address"),
        (["--workers", "2"], "--workers"),
        (["--executor", "ray", "--policies", "basic"], "--base-url"),
    ],
)
def test_ray_options_are_checked_before_anything_runs(args, flag, tmp_path):
    result = CliRunner().invoke(
        app, ["bench", "--scenarios", "tiny", "--out", str(tmp_path), *args]
    )
    assert result.exit_code == 2, result.output
    assert flag in result.output
    assert not (tmp_path / EPISODES_FILE).exists()
