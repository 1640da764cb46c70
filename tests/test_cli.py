"""The one-episode command (its JSON names the episode and its scores) and one-line errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sotopia_tom_app.cli import app


def test_run_json_names_the_episode_and_uses_one_key_style():
    result = CliRunner().invoke(
        app, ["run", "--scenarios", "tiny", "--scenario-id", "tiny-4-agents", "--policy", "ideal", "--judge", "rule",
              "--seed", "3", "--max-turns", "40", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"episode_id", "scenario", "policy", "seed", "judge", "scores", "per_agent"}
    assert (out["scenario"], out["policy"], out["seed"], out["judge"]) == (
        "tiny-4-agents", "ideal", 3, "rule"
    )  # fmt: skip
    assert out["episode_id"] == "ideal/tiny-4-agents/3"
    assert list(out["scores"]) == ["DA", "IA", "EFF", "CPV", "CM"]
    assert all(list(parts) == list(out["scores"]) for parts in out["per_agent"].values())
    assert out["scores"]["DA"] == 1.0 and out["scores"]["CPV"] == 0.0
    assert set(out["per_agent"]) == {
        "Plant Manager",
        "Quality Engineer",
        "Supply Chain Lead",
        "HR Business Partner",
    }


def test_run_human_output_shows_transcript_and_scores():
    result = CliRunner().invoke(app, ["run", "--scenario-id", "tiny-3-agents", "--policy", "leaky"])
    assert result.exit_code == 0
    assert (
        "[R0.1] Chief Nursing Officer (speak, public)" in result.stdout and "CPV=" in result.stdout
    )


def test_unknown_policy_is_a_clear_error():
    result = CliRunner().invoke(
        app, ["bench", "--policies", "ideal,telepathy", "--scenarios", "tiny"]
    )
    assert result.exit_code == 2 and "unknown policies ['telepathy']" in result.output


# ------------------------------------------------------------------ bad input: one error line


@pytest.fixture
def bad_files(tmp_path):
    """Scenario files the loaders cannot read, and folders to point commands at."""
    (tmp_path / "latin1.json").write_bytes('[{"sector": "café"}]'.encode("latin-1"))
    (tmp_path / "utf16.json").write_bytes('[{"sector": "x"}]'.encode("utf-16"))
    (tmp_path / "binary.json").write_bytes(bytes(range(256)))
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    old = [{"scenario_id": "x", "scenario_type": "a - b", "agents": "not a list"}]
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "none.json").write_text("[]")
    (tmp_path / "empty").mkdir()
    return tmp_path


OUT = "{d}/out"  # every failing bench must leave this folder uncreated
CASES = [
    (["validate", "{d}/latin1.json"], 2, "not UTF-8 text"),
    (["validate", "{d}/utf16.json"], 2, "not UTF-8 text"),
    (["validate", "{d}/binary.json"], 2, "not UTF-8 text"),
    (["validate", "{d}/deep.json"], 2, "too deeply"),
    (["validate", "{d}/old.json"], 2, "old-format record with a field of the wrong type"),
    (["validate", "{d}/empty"], 2, "no .json or .jsonl scenario files"),
    (["validate", "nope"], 2, "'nope' is neither a shipped scenario set"),
    (["run", "--scenario-id", "nope"], 2, "'--scenario-id': 'nope' is not in 'tiny'"),
    (["run", "--judge", "foo"], 2, "'--judge': Value error, 'foo' is not one of"),
    (["run", "--policy", "telepathy"], 2, "unknown policy ['telepathy']"),
    (["run", "--max-turns", "0"], 2, "'--max-turns'"),
    (["run", "--seed", "-1"], 2, "'--seed'"),
    (["run", "--scenarios", "nonexistent"], 2, "--scenarios: 'nonexistent' is neither"),
    (["run", "--scenarios", "{d}/utf16.json"], 2, "not UTF-8 text"),
    (["run", "--policy", "basic", "--base-url", "http://h/v1"], 2, "--base-url needs --model"),
    (["run", "--out", "{d}/old.json"], 2, "is a file"),
    (["bench", "--seeds", "a,b"], 2, "'--seeds': 'a' is not an integer seed"),
    (["bench", "--seeds", "0,-3"], 2, "-3 is negative"),
    (["bench", "--limit", "0"], 2, "'--limit'"),
    (["bench", "--limit-seed", "3"], 2, "'--limit-seed': it seeds the --limit draw"),
    (["bench", "--scenarios", "gold", "--scenario-ids", "gold-nope"], 2, "['gold-nope']"),
    (["list", "scenarios", "--set", "nonexistent"], 2, "--set: 'nonexistent' is neither"),
    (["list", "scenarios", "--set", "tiny", "--sector", "space"], 2, "no 'space' scenarios"),
    (["show", "nope"], 2, "no scenario 'nope' in the shipped sets"),
    (["show", "tiny-3-agents", "--set", "gold"], 2, "no scenario 'tiny-3-agents' in 'gold'"),
    (["bench", "--max-turns", "0"], 2, "'--max-turns'"),
    (["bench", "--concurrency", "0"], 2, "'--concurrency'"),
    (["bench", "--scenarios", "nonexistent"], 2, "'nonexistent' is neither a shipped"),
    (["bench", "--scenarios", "{d}/deep.json"], 2, "too deeply"),
    (["bench", "--scenarios", "{d}/none.json"], 2, "holds no scenarios to play"),
    (["bench", "--scenario-ids", "nope"], 2, "scenario ids not in 'tiny': ['nope']"),
    (["bench", "--judge", "foo"], 2, "'--judge'"),
    (["bench", "--policies", ",,"], 2, "names nothing"),
    (["bench", "--policies", "ideal,telepathy"], 2, "unknown policies ['telepathy']"),
    (["bench", "--policies", "trained:{d}/no-adapter"], 2, "not a LoRA adapter folder"),
    (["bench", "--policies", "trained:{d}+telepathy"], 2, "unknown strategy 'telepathy'"),
    (["report", "{d}/missing"], 2, "does not exist"),
    (["report", "{d}/empty"], 2, "no episodes in"),
    (["judge", "{d}/missing"], 2, "does not exist"),
    (["judge", "{d}/empty"], 2, "no episodes in"),
    (["judge", "{d}/empty", "--judge", "foo"], 2, "'--judge'"),
    (["generate", "--sector", "x", "--agents", "9"], 2, "'--agents'"),
    (["generate", "--sector", "x", "--number", "0"], 2, "'--number'"),
    (["serve", "--port", "70000"], 2, "'--port'"),
    (["nosuch"], 2, "No such command"),
]


@pytest.mark.parametrize(("args", "code", "message"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_error_line_before_anything_starts(
    bad_files, monkeypatch, args, code, message
):
    def no_server(*a, **k):
        raise AssertionError("an LLM client was opened before the options were checked")

    monkeypatch.setattr("sotopia_tom_env.serving.chat_client", no_server)
    args = [a.format(d=bad_files) for a in args]
    if args[0] == "bench":
        args += ["--out", OUT.format(d=bad_files)]
        if "--scenarios" not in args:
            args += ["--scenarios", "tiny"]
        if not any(a.startswith("--policies") for a in args):
            args += ["--policies", "ideal"]
    result = CliRunner().invoke(app, args)
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit)  # no other exception escaped
    assert "Traceback" not in result.output
    assert len(errors) == 1 and message in errors[0], result.output
    assert not (bad_files / "out").exists()  # no folder, config.json or lock left behind


def test_runtime_failures_exit_1_and_bugs_keep_their_traceback(monkeypatch):
    from sotopia_tom_env.llm.server import ServerStartError

    def server_fails(*a, **k):
        raise ServerStartError("vLLM exited with code 1 during startup (log: /x.log)")

    monkeypatch.setattr("sotopia_tom_env.serving.chat_client", server_fails)
    result = CliRunner().invoke(app, ["run", "--policy", "basic"])
    assert result.exit_code == 1 and "error: vLLM exited with code 1" in result.output

    def bug(*a, **k):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("sotopia_tom_env.serving.chat_client", bug)
    result = CliRunner().invoke(app, ["run", "--policy", "basic"])
    assert isinstance(result.exception, ZeroDivisionError)  # not hidden behind an error line
