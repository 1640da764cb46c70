"""The one-episode command: its JSON output is exactly the scores and the per-agent breakdown."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from sotopia_tom_env.cli import app


def test_run_json_prints_scores_and_per_agent_only():
    result = CliRunner().invoke(
        app, ["run", "--scenarios", "tiny", "--scenario-id", "tiny-4-agents", "--policy", "ideal", "--judge", "rule",
              "--seed", "3", "--max-turns", "40", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"scores", "per_agent"}
    assert set(out["scores"]) == {"DA", "IA", "EFF", "CPV", "CM"}
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
