"""The benchmark: crash-safe resume after a real kill, refusing mixed configs, reports from saved data."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from sotopia_tom_app.bench.records import EPISODES_FILE, read_records

SCRIPTED = [
    "--policies",
    "ideal,random,leaky",
    "--scenarios",
    "gold",
    "--limit",
    "60",
    "--max-turns",
    "30",
]


def cli(*args: str) -> subprocess.CompletedProcess:
    """Run ``sotopia-tom ARGS`` in a fresh process."""
    cmd = [sys.executable, "-m", "sotopia_tom_app.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def bench(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return cli("bench", *SCRIPTED, "--out", str(out), *extra)


def test_killed_run_resumes_without_loss_or_duplicates(tmp_path):
    out = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "sotopia_tom_app.cli",
        "bench",
        *SCRIPTED,
        "--out",
        str(out),
        "--concurrency",
        "2",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    episodes = out / EPISODES_FILE
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if episodes.exists() and episodes.read_text().count("\n") >= 25:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = episodes.read_text().count("\n")
    assert 25 <= partial < 180

    resumed = bench(out)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{partial} episodes already in" in resumed.stdout
    ids = Counter(r.episode_id for r in read_records(episodes))
    assert len(ids) == 180 and set(ids.values()) == {1}

    clean = tmp_path / "clean"
    assert bench(clean).returncode == 0
    assert json.loads((out / "summary.json").read_text()) == json.loads(
        (clean / "summary.json").read_text()
    )


def test_torn_last_line_is_dropped_on_resume(tmp_path):
    out = tmp_path / "torn"
    r = cli("bench", "--policies", "ideal", "--scenarios", "tiny", "--out", str(out))
    assert r.returncode == 0, r.stderr
    path = out / EPISODES_FILE
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(
        "".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2]
    )  # a writer killed mid-line
    r = cli("bench", "--policies", "ideal", "--scenarios", "tiny", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "2 episodes already in" in r.stdout
    assert Counter(x.episode_id for x in read_records(path)) == Counter(
        {f"ideal/tiny-{n}-agents/0": 1 for n in (3, 4, 5)}
    )


def test_a_different_configuration_is_refused(tmp_path):
    out = tmp_path / "run"
    first = cli("bench", "--policies", "ideal", "--scenarios", "tiny", "--out", str(out))
    assert first.returncode == 0, first.stderr
    other = cli(
        "bench",
        "--policies",
        "ideal",
        "--scenarios",
        "tiny",
        "--max-turns",
        "10",
        "--out",
        str(out),
    )
    assert other.returncode == 2
    assert "different configuration" in other.stderr and "max_turns: 60 -> 10" in other.stderr
    assert len(list(read_records(out / EPISODES_FILE))) == 3


def test_naming_more_policies_grows_the_run_and_plays_only_the_new_ones(tmp_path):
    out = tmp_path / "run"
    assert bench_here(out).exit_code == 0
    before = {r.episode_id: r.model_dump_json() for r in read_records(out / EPISODES_FILE)}
    grown = bench_here(out, "--policies", "ideal,leaky")
    assert grown.exit_code == 0, grown.output
    records = list(read_records(out / EPISODES_FILE))
    assert Counter(r.policy for r in records) == {"ideal": 3, "leaky": 3}
    assert {r.episode_id: r.model_dump_json() for r in records if r.policy == "ideal"} == before
    assert json.loads((out / "config.json").read_text())["policies"] == ["ideal", "leaky"]
    # Fewer policies than the run holds is a different run, not a resume.
    fewer = bench_here(out, "--policies", "leaky")
    assert fewer.exit_code == 2 and "different configuration" in fewer.output


def test_paired_difference_is_per_scenario_and_names_an_unknown_policy(tmp_path):
    out = tmp_path / "run"
    assert bench_here(out, "--policies", "ideal,leaky,random").exit_code == 0
    r = cli("report", str(out), "--paired", "ideal,leaky,random")
    assert r.returncode == 0, r.stderr
    paired, then = json.loads((out / "summary.json").read_text())["paired"]  # consecutive pairs
    assert (then["a"], then["b"]) == ("leaky", "random")
    # the episode reward charges the leaker's violations: far below its InfoMgmt difference
    assert paired["metrics"]["reward"]["mean"] < paired["metrics"]["CM"]["mean"] - 1
    cm = {(x.policy, x.scenario.id): x.scores.CM for x in read_records(out / EPISODES_FILE)}
    diffs = [cm[("leaky", s)] - cm[("ideal", s)] for (p, s) in cm if p == "ideal"]
    assert paired["pairs"] == 3 and paired["metrics"]["CM"]["n"] == 3
    assert paired["metrics"]["CM"]["mean"] == pytest.approx(sum(diffs) / 3)
    low, high = paired["metrics"]["CM"]["ci"]
    assert low <= paired["metrics"]["CM"]["mean"] <= high < 0  # the leaker loses on every scenario
    assert "Paired difference (leaky − ideal" in (out / "report.md").read_text()
    assert "paired difference, leaky - ideal" in r.stdout
    behaviour = json.loads((out / "summary.json").read_text())["interaction"]
    assert behaviour["ideal"]["leave_rate"] == 1.0 and behaviour["ideal"]["zero_cm_rate"] == 0.0
    assert behaviour["random"]["zero_cm_rate"] == 1.0
    unknown = cli("report", str(out), "--paired", "ideal,cot")
    assert unknown.returncode == 2 and "no episodes of policy 'cot'" in unknown.stderr


def test_two_folders_of_one_policy_each_are_paired_scenario_by_scenario(tmp_path):
    """``benchmarks/paired_runs.py``: runs that differ in what a policy name does not carry."""
    plain, other, both = tmp_path / "plain", tmp_path / "other", tmp_path / "both"
    assert bench_here(plain, "--policies", "ideal").exit_code == 0
    assert bench_here(other, "--policies", "leaky").exit_code == 0
    assert bench_here(both, "--policies", "ideal,leaky").exit_code == 0
    script = [sys.executable, str(Path(__file__).parents[1] / "benchmarks" / "paired_runs.py")]
    r = subprocess.run([*script, str(plain), str(other)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{other} - {plain}, 3 pairs" in r.stdout
    cm = next(line for line in r.stdout.splitlines() if line.startswith("| InfoMgmt ↑"))
    assert cm.split("|")[2].strip().startswith("-")  # the leaker loses on every scenario
    r = subprocess.run([*script, str(plain), str(both)], capture_output=True, text=True)
    assert r.returncode == 1 and "expected the episodes of one policy" in r.stderr


def test_report_comes_from_saved_verdicts_and_is_reproducible(tmp_path):
    out = tmp_path / "run"
    r = cli(
        "bench",
        "--policies",
        "ideal,leaky,random",
        "--scenarios",
        "gold",
        "--limit",
        "5",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    first = (out / "summary.json").read_text()
    rejudged = cli("judge", str(out), "--json")
    assert rejudged.returncode == 0, rejudged.stderr
    saved = {rec.episode_id: rec.scores.summary() for rec in read_records(out / EPISODES_FILE)}
    assert {row["episode_id"]: row["scores"] for row in json.loads(rejudged.stdout)} == saved
    assert (out / "judged-rule.jsonl").exists()
    rebuilt = cli("report", str(out))
    assert rebuilt.returncode == 0 and (out / "summary.json").read_text() == first
    for name in ("report.md", "report.html", "acquisition.png", "behaviour.png", "infomgmt.png"):
        assert (out / name).stat().st_size > 0
    md = (out / "report.md").read_text()
    assert "| ideal | 5 | 1.000 [1.00, 1.00] | 1.000 [1.00, 1.00]" in md
    assert len(list((out / "episodes").glob("*.html"))) == 15


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright", reason="playwright (the [dev] extra) drives the browser")
    return path


def test_transcript_viewer_in_a_real_browser(tmp_path):
    exe = chromium()
    out = tmp_path / "run"
    r = cli("bench", "--policies", "ideal,leaky", "--scenarios", "tiny", "--out", str(out))
    assert r.returncode == 0, r.stderr
    from playwright.sync_api import sync_playwright

    records = {rec.episode_id: rec for rec in read_records(out / EPISODES_FILE)}
    ideal = records["ideal/tiny-3-agents/0"]
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=exe,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto((out / "report.html").as_uri())
        page.click("text=ideal/tiny-3-agents/0")
        assert page.locator(".thread.public").count() == 1
        total = page.locator(".msg").count()
        assert total == len(ideal.transcript.messages)
        assert (
            page.locator(".badge.b-disclosure").count() > 0
            and page.locator(".badge.b-inquiry").count() > 0
        )
        page.click("text=What IT Security Lead saw")
        visible = {
            page.locator(".msg:not(.hidden)").nth(i).get_attribute("id")
            for i in range(page.locator(".msg:not(.hidden)").count())
        }
        assert (
            visible
            == {m.id for m in ideal.transcript.view("agent_2")}
            != {m.id for m in ideal.transcript.messages}
        )
        page.screenshot(path=str(tmp_path / "viewer.png"), full_page=True)
        page.goto((out / "episodes" / "leaky_tiny-3-agents_0.html").as_uri())
        assert page.locator(".msg.violation").count() > 0
        browser.close()
    assert (tmp_path / "viewer.png").stat().st_size > 10_000


# ------------------------------------------- one writer per folder, each episode counted once

TINY = ["bench", "--policies", "ideal", "--scenarios", "tiny", "--max-turns", "20"]


def bench_here(out: Path, *extra: str):
    """``sotopia-tom bench`` on the tiny set in this process (fast)."""
    from typer.testing import CliRunner

    from sotopia_tom_app.cli import app

    return CliRunner().invoke(app, [*TINY, "--out", str(out), *extra])


def test_a_second_process_is_refused_while_a_run_holds_the_folder(tmp_path):
    from sotopia_tom_app.bench.lock import hold

    out = tmp_path / "run"
    with hold(out):  # this process is the run in progress
        second = cli(*TINY, "--out", str(out))
        assert second.returncode == 2, second.stderr
        assert f"error: {out} is in use by another run (pid {os.getpid()})" in second.stderr
        assert "Traceback" not in second.stderr
        assert sorted(p.name for p in out.iterdir()) == [".lock"]  # it wrote nothing
    after = cli(*TINY, "--out", str(out))
    assert after.returncode == 0, after.stderr
    assert Counter(r.episode_id for r in read_records(out / EPISODES_FILE)) == Counter(
        {f"ideal/tiny-{n}-agents/0": 1 for n in (3, 4, 5)}
    )


def test_duplicates_and_a_damaged_middle_line_are_skipped_and_every_intact_record_kept(
    tmp_path, caplog
):
    out = tmp_path / "run"
    assert bench_here(out).exit_code == 0
    path = out / EPISODES_FILE
    first, second, third = path.read_text().splitlines(keepends=True)
    damaged = first + second[: len(second) // 2] + "\n" + third + first  # + a duplicate line
    path.write_text(damaged)

    from sotopia_tom_app.bench.records import read_episodes
    from sotopia_tom_app.bench.summary import summarize

    episodes = read_episodes(path)
    assert [r.episode_id for r in episodes] == ["ideal/tiny-3-agents/0", "ideal/tiny-5-agents/0"]
    assert f"{path}:2: skipped a damaged record" in caplog.text
    assert "ignored 1 duplicate record" in caplog.text
    assert summarize(list(read_records(path)))["episodes"] == 2  # the summary counts ids once

    resumed = bench_here(out)  # replays only the damaged episode
    assert resumed.exit_code == 0, resumed.output
    assert "2 episodes already in" in resumed.output
    assert f"warning: {path}:2: skipped a damaged record" in resumed.output
    assert path.read_text().startswith(damaged)  # appended to, never rewritten
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 3 and summary["metrics"]["ideal"]["episodes"] == 3


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "the file is empty"), ('{"scenarios": "tiny",\n', "line 2, column 1")],
    ids=["empty", "torn"],
)
def test_a_damaged_config_is_a_clear_error_that_keeps_the_episodes(tmp_path, text, reason):
    out = tmp_path / "run"
    assert bench_here(out).exit_code == 0
    before = (out / EPISODES_FILE).read_bytes()
    (out / "config.json").write_text(text)
    result = bench_here(out)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {out / 'config.json'}: not a valid run configuration ({reason}" in result.output
    assert "the 3 saved episodes are kept" in result.output
    assert (out / EPISODES_FILE).read_bytes() == before

    (out / "config.json").unlink()  # what the message suggests: go on with these options
    assert bench_here(out).exit_code == 0
    assert (out / EPISODES_FILE).read_bytes() == before


def test_run_out_into_a_bench_folder_never_adds_a_duplicate(tmp_path):
    from typer.testing import CliRunner

    from sotopia_tom_app.cli import app

    out = tmp_path / "run"
    assert bench_here(out).exit_code == 0
    before = (out / EPISODES_FILE).read_bytes()
    play = ["run", "--policy", "ideal", "--max-turns", "20", "--out", str(out), "--json"]
    same = CliRunner().invoke(app, [*play, "--scenario-id", "tiny-3-agents"])
    assert same.exit_code == 2 and "Traceback" not in same.output
    assert "already holds episode ideal/tiny-3-agents/0" in same.output
    assert (out / EPISODES_FILE).read_bytes() == before

    sampled = CliRunner().invoke(app, play)  # scenario sampled with seed 0: known only after play
    assert sampled.exit_code == 2 and "already holds episode ideal/tiny-" in sampled.output
    assert (out / EPISODES_FILE).read_bytes() == before

    other = CliRunner().invoke(app, [*play, "--scenario-id", "tiny-3-agents", "--seed", "1"])
    assert other.exit_code == 0, other.output
    ids = Counter(r.episode_id for r in read_records(out / EPISODES_FILE))
    assert len(ids) == 4 and set(ids.values()) == {1}


def test_the_runner_draws_jobs_only_as_slots_free_up(monkeypatch, tmp_path):
    """10,000 episodes asked for, 10 played: only about 10 + concurrency jobs are ever made."""
    import asyncio

    from rewards import RuleJudge
    from sotopia_tom_app.bench import runner

    made = 0
    iter_jobs = runner.iter_jobs

    def counted(*args):
        nonlocal made
        for job in iter_jobs(*args):
            made += 1
            yield job

    class Enough(Exception):
        pass

    saved = []

    def stop_at_ten(record) -> None:
        saved.append(record.episode_id)
        if len(saved) >= 10:
            raise Enough

    monkeypatch.setattr(runner, "iter_jobs", counted)
    config = runner.BenchConfig(scenarios="tiny", policies=["ideal", "silent"], seeds=list(range(1667)), max_turns=4)  # fmt: skip
    with pytest.raises(Enough):
        asyncio.run(runner.play_bench(config, tmp_path, judge=RuleJudge(), concurrency=4,
                                      on_record=stop_at_ten))  # fmt: skip
    assert 10 <= made <= 10 + 4 + 1


def test_a_trained_policy_whose_adapter_changed_is_not_resumed(tmp_path):
    """Episodes of ``trained:PATH`` belong to the weights they were played with: retraining
    into the same folder must not let a resume report the old episodes under the new weights."""
    from policies.trained import fingerprints
    from sotopia_tom_app.bench.runner import BenchConfig, ConfigMismatch, prepare_out

    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text('{"r": 16}')
    (adapter / "adapter_model.safetensors").write_bytes(b"weights of round 1")
    name = f"trained:{adapter}"
    first = fingerprints([name, "ideal", "trained:served-name"])
    assert list(first) == [name]  # scripted players and served names have no local files
    shutil.copytree(adapter, tmp_path / "copy")
    assert list(fingerprints([f"trained:{tmp_path / 'copy'}+cot"]).values()) == list(first.values())

    out = tmp_path / "run"
    assert bench_here(out, "--policies", "ideal").exit_code == 0  # episodes to resume
    saved = json.loads((out / "config.json").read_text())
    assert saved["adapters"] == {}
    config = BenchConfig.model_validate({**saved, "adapters": first})
    assert len(prepare_out(out, config)) == 3  # same files: resumes, and records them
    assert json.loads((out / "config.json").read_text())["adapters"] == first

    (adapter / "adapter_model.safetensors").write_bytes(b"weights of round 2")
    changed = BenchConfig.model_validate({**saved, "adapters": fingerprints([name])})
    with pytest.raises(ConfigMismatch, match=f"{name}.*{first[name]} -> "):
        prepare_out(out, changed)
    (adapter / "sotopia_tom.json").write_text('{"strategy": "cot"}')  # a card plays differently
    assert fingerprints([name]) != changed.adapters
    assert json.loads((out / "config.json").read_text())["adapters"] == first  # nothing rewritten


def test_cross_play_seats_the_policy_in_every_seat_and_scores_that_seat(tmp_path):
    """`--partners`: one episode per seat, the tested policy in it and the partners elsewhere;
    the row is the tested seat's own scores, and a rerun resumes."""
    from sotopia_tom_app.bench.summary import metric_table

    out = tmp_path / "cross"
    args = ["--policies", "leaky", "--partners", "observable", "--max-turns", "12"]
    result = bench_here(out, *args)
    assert result.exit_code == 0, result.output
    records = list(read_records(out / EPISODES_FILE))
    scenarios_played = {r.scenario.id: len(r.scenario.agents) for r in records}
    assert len(records) == sum(scenarios_played.values())  # every seat of every scenario
    assert {(r.scenario.id, r.seat) for r in records} == {
        (sid, f"agent_{k}") for sid, n in scenarios_played.items() for k in range(n)
    }
    for r in records:
        assert r.partners == "observable"
        leaks = [t for t in r.transcript.messages if t.sender != r.seat]
        assert all("Full transparency" not in m.text for m in leaks)  # partners are observable
    row = metric_table(records)["leaky beside observable"]
    seat_cpv = [r.scores.per_agent[r.scenario.roles[int(r.seat[-1])]].cpv for r in records]
    assert row["CPV"]["mean"] == pytest.approx(sum(seat_cpv) / len(seat_cpv))
    assert row["CPV"]["mean"] > 0  # the leaky seat's own leaks, not the partners'
    again = bench_here(out, *args)
    assert again.exit_code == 0 and "0 to play" in again.output
    bad = bench_here(tmp_path / "bad", "--policies", "ideal", "--partners", "ideal,observable")
    assert bad.exit_code == 2 and "--partners" in bad.output
