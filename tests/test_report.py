"""The benchmark report: header, glossary, one policy order, exports, plots, viewer, other judges."""

from __future__ import annotations

import asyncio
import csv
import importlib.metadata
import io
import json
import re
from html import escape
from pathlib import Path

import pytest

import scenarios
from policies import PromptedPolicy, play_episode
from sotopia_tom_app.bench.records import EPISODES_FILE, EpisodeRecord, read_episodes
from sotopia_tom_app.bench.report import (
    GLOSSARY,
    build_report,
    interaction_table,
    metrics_table,
    tex_escape,
)
from sotopia_tom_app.bench.run_info import _player_model
from sotopia_tom_app.bench.viewer import page_name, render_episode
from sotopia_tom_env.env import SotopiaToMEnv
from sotopia_tom_env.llm import FakeChatClient

POLICIES = "ideal,random,leaky,silent"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A small scripted benchmark run (seconds), reported."""
    from typer.testing import CliRunner

    from sotopia_tom_app.cli import app

    out = tmp_path_factory.mktemp("report") / "run"
    args = ["bench", "--scenarios", "gold", "--limit", "4", "--policies", POLICIES,
            "--max-turns", "12", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def first_column(md: str, title: str) -> list[str]:
    """The first cells of the rows of the Markdown table under ``## title``."""
    section = md.split(f"## {title}\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [line.split("|")[1].strip() for line in section[2:]]


# -- point 3: an appendix-ready report -----------------------------------------------------------


def test_header_states_the_whole_configuration(run):
    md = (run / "report.md").read_text()
    version = importlib.metadata.version("sotopia-tom-env")
    for row in ("| scenario set | gold |", "| scenarios played | 4 (--limit 4) |",
                "| max turns | 12 |", "| seeds | 0 |", "| judge | rule |",
                f"| package | sotopia-tom-env {version} |",
                "| player model | none (scripted players only) |",
                "| policies | ideal, random, leaky, silent |"):  # fmt: skip
        assert row in md, row
    assert re.search(r"\| finished \| 20\d\d-\d\d-\d\d \d\d:\d\d:\d\d", md)


def test_default_model_resolves_to_the_recorded_name(run):
    records = read_episodes(run / EPISODES_FILE)
    named = [r.model_copy(update={"model": "Qwen/Qwen3-8B"}) for r in records[:2]]
    assert _player_model("default", named) == "Qwen/Qwen3-8B"
    assert _player_model(None, named) == "Qwen/Qwen3-8B"
    assert _player_model("my-model", named) == "my-model"


def test_every_column_is_in_the_glossary_and_counts_are_integers(run):
    s = summary(run)
    heads = metrics_table(s).head + interaction_table(s).head
    assert set(heads) <= set(GLOSSARY)
    assert "stale rate" in GLOSSARY and "EFF = 0" in GLOSSARY["stale rate"]
    md = (run / "report.md").read_text()
    assert "## Glossary" in md
    rows = interaction_table(s).rows
    tokens = [row[-1] for row in rows]
    assert tokens == ["0"] * len(rows)  # scripted players generate nothing: a count, not 0.000
    silent = next(row for row in rows if row[0] == "silent")
    assert silent[1] == "0" and silent[2] == "0"  # rounds and messages of a silent run
    assert all(not cell.endswith(".000") for row in rows for cell in row[1:3])


def test_one_policy_order_everywhere(run):
    s = summary(run)
    cms = [s["metrics"][n]["CM"]["mean"] for n in s["order"]]
    assert cms == sorted(cms, reverse=True) and s["order"][0] == "ideal"
    md = (run / "report.md").read_text()
    assert first_column(md, "Scores") == s["order"]
    assert first_column(md, "Interaction") == s["order"]
    assert first_column(md, "InfoMgmt by sector") == s["order"]
    rows = list(csv.DictReader(io.StringIO((run / "report.csv").read_text())))
    assert [r["policy"] for r in rows] == s["order"]
    tex = (run / "report.tex").read_text()
    assert [tex.index(f"\n{n} &") for n in s["order"]] == sorted(
        tex.index(f"\n{n} &") for n in s["order"]
    )


def test_csv_has_every_metric_with_its_interval(run):
    s = summary(run)
    rows = list(csv.DictReader(io.StringIO((run / "report.csv").read_text())))
    assert len(rows) == 4
    for row in rows:
        m = s["metrics"][row["policy"]]
        for metric in ("DA", "IA", "EFF", "CPV", "CM"):
            assert float(row[f"{metric}_mean"]) == pytest.approx(m[metric]["mean"], abs=1e-5)
            assert float(row[f"{metric}_ci_low"]) == pytest.approx(m[metric]["ci"][0], abs=1e-5)
            assert float(row[f"{metric}_ci_high"]) == pytest.approx(m[metric]["ci"][1], abs=1e-5)
        assert int(row["episodes"]) == 4


def test_latex_table_is_booktabs_with_escaped_names(run):
    tex = (run / "report.tex").read_text()
    assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
    assert tex.count(r" \\") == 1 + 4  # header + one row per policy
    assert tex_escape("basic @ org/m_1 & 50% #2") == r"basic @ org/m\_1 \& 50\% \#2"


def test_plots_come_as_png_svg_and_pdf(run):
    for stem in ("acquisition", "behaviour", "infomgmt"):
        assert (run / f"{stem}.png").read_bytes().startswith(b"\x89PNG")
        assert b"<svg" in (run / f"{stem}.svg").read_bytes()[:2000]
        assert (run / f"{stem}.pdf").read_bytes().startswith(b"%PDF")


# -- point 4: plots that do not mislead ----------------------------------------------------------


def test_acquisition_curves_cover_every_round_for_every_policy(run):
    s = summary(run)
    longest = max(r.transcript.rounds for r in read_episodes(run / EPISODES_FILE))
    assert set(s["acquisition"]) == set(s["order"])
    assert {len(ys) for ys in s["acquisition"].values()} == {longest}
    assert s["acquisition"]["silent"] == [0.0] * longest  # a flat line, not a lone dot
    ideal = s["acquisition"]["ideal"]
    assert ideal == sorted(ideal) and ideal[-1] == 1.0


def test_axes_have_integer_rounds_and_labelled_zero_bars(run):
    from sotopia_tom_app.bench.plots import acquisition_figure, behaviour_figure, infomgmt_figure

    s = summary(run)
    ax = acquisition_figure(s).axes[0]
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert [line.get_label() for line in ax.get_lines()] == s["order"]
    assert all(len(line.get_xdata()) == len(s["acquisition"]["ideal"]) for line in ax.get_lines())

    fig = behaviour_figure(s)
    fig.canvas.draw()
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == s["order"]  # y is shared
    for ax in fig.axes:
        labels = [t.get_text() for t in ax.texts]
        assert len(labels) == 4 and all(label.endswith("%") for label in labels)
    stale = [t.get_text() for t in fig.axes[1].texts]
    assert stale[s["order"].index("silent")] == "100%"
    assert stale[s["order"].index("ideal")] == "0%"  # a zero bar still says 0%

    ax = infomgmt_figure(s).axes[0]
    assert [t.get_text() for t in ax.texts][-1] == "0.000"


# -- point 6: the viewer says why -------------------------------------------------------------


def episode(run: Path, policy: str) -> EpisodeRecord:
    """The first episode of ``policy`` in the run (the scenarios depend on the selection)."""
    return next(r for r in read_episodes(run / EPISODES_FILE) if r.policy == policy)


def test_leaks_are_red_and_badges_explained(run):
    html = (run / "episodes" / page_name(episode(run, "leaky"))).read_text()
    leaks = re.findall(r'<div class="msg ([a-z]*)"[^>]*>(?:(?!<div class="msg).)*b-leak', html)
    assert leaks and set(leaks) == {"violation"}  # never the green disclosure edge
    assert 'class="legend"' in html and "reveals must-not-share X" in html
    assert "not the mean of the agents' CMs" in html


def test_briefs_and_per_item_verdicts_explain_the_scores(run):
    record = episode(run, "random")
    html = render_episode(record)

    def shown(text: str) -> str:
        return escape(text, quote=True)

    for agent in record.scenario.agents:
        assert f"Brief of {agent.role}" in html
        for name in agent.pre_interaction_knowledge:
            assert f"<td>{shown(name)}</td>" in html
    assert "EFF: receives" in html and "never received" in html  # why EFF is 0
    for a in record.judgment.eff.agents:
        for item in a.acquisitions:
            assert shown(item.reasoning) in html


def test_llm_calls_are_saved_with_the_turn_and_shown_escaped(tmp_path):
    scenario = scenarios.load("tiny")[0]
    reply = '{"action_type": "speak", "argument": "<script>x</script> hello", "to": []}'

    def play(record_calls: bool) -> list[dict]:
        env = SotopiaToMEnv(scenarios=[scenario], max_turns=3)
        client = FakeChatClient(lambda messages, fmt: reply)
        pols = lambda a, s: PromptedPolicy(a, client, "basic", record_calls=record_calls)  # noqa: E731
        return asyncio.run(play_episode(env, pols, scenario=scenario)).turn_log

    log = play(True)
    assert all(len(t["calls"]) == 1 for t in log)
    call = log[0]["calls"][0]
    assert call["purpose"] == "action" and call["reply"] == reply and "You are" in call["prompt"]
    assert not any("calls" in t for t in play(False))

    env_rec = SotopiaToMEnv(scenarios=[scenario], max_turns=3)
    env_rec.reset(options={"scenario": scenario.id})
    record = EpisodeRecord(episode_id="x", policy="basic", scenario=scenario,
                           transcript=env_rec.transcript, turn_log=log)  # fmt: skip
    html = render_episode(record)
    assert html.count('<details class="turn per-agent"') == 3
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>x</script>" not in html


# -- point 8: scores of other judges -------------------------------------------------------------


def test_report_shows_re_judged_scores_beside_the_runs_own(run, tmp_path):
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(run, out)
    rows = [{"episode_id": r.episode_id, "scores": {"DA": 0.5, "IA": 0.5, "EFF": 0.5, "CPV": 0.0, "CM": 0.25}}
            for r in read_episodes(out / EPISODES_FILE) if r.policy == "ideal"]  # fmt: skip
    rows.append({"episode_id": "not/in/this/run", "scores": {"CM": 1.0}})
    (out / "judged-llm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "{torn")
    build_report(out)
    md = (out / "report.md").read_text()
    section = md.split("## Scores from other judges", 1)[1].split("\n## ", 1)[0]
    assert "| ideal | this run | 4 |" in section
    assert "| ideal | llm | 4 | 0.500 [0.50, 0.50] |" in section
    assert "0.250 [0.25, 0.25] |" in section
    assert "| random | llm | 0 | n/a |" in section
    assert "## Scores from other judges" not in (run / "report.md").read_text()


def test_report_shows_the_training_rewards_informative_ia_beside_the_papers(run):
    """IA@informs: the reward's IA, which pays no ask for an item already received."""
    from scripted_turns import play_turns

    from rewards import RuleJudge, score
    from rewards.informing import informative_ia as per_role
    from sotopia_tom_app.bench.summary import informative_ia, metric_table

    s = summary(run)
    md = (run / "report.md").read_text()
    assert "IA@informs ↑" in md.split("## Scores\n", 1)[1].split("\n\n", 1)[0]
    rows = list(csv.DictReader(io.StringIO((run / "report.csv").read_text())))
    assert all("IA_I_mean" in row for row in rows)
    records = read_episodes(run / EPISODES_FILE)
    for r in records:  # the mean over seats of rewards.informing on the rule judge's evidence
        ia = per_role(r.scenario, RuleJudge().evidence_all(r.scenario, r.transcript))
        assert informative_ia(r) == pytest.approx(sum(ia.values()) / len(ia))
    ideal = s["metrics"]["ideal"]
    assert ideal["IA_I"]["n"] == ideal["IA"]["n"] == 4

    # An ask for what the seat already received counts in the paper's IA, not in this one.
    base = next(r for r in records if r.policy == "ideal")
    sc = base.scenario
    i, ref = next((i, r) for i, refs in enumerate(sc.resolution.desired) for r in refs if r)
    value = sc.agents[ref.agent].pre_interaction_knowledge[ref.name].text
    t = play_turns(sc, [(f"agent_{ref.agent}", f"On {ref.name.lower()}: {value}.", []),
                        (f"agent_{i}", f"Could you confirm the {ref.name.lower()}?", [ref.agent])])  # fmt: skip
    judged = RuleJudge().judge(sc, t)
    late = base.model_copy(update={"transcript": t, "scores": score(judged, sc, t.rounds)})
    table = metric_table([late])[label_of(late)]
    assert table["IA"]["mean"] > table["IA_I"]["mean"]


def label_of(r: EpisodeRecord) -> str:
    from sotopia_tom_app.bench.summary import label

    return label(r)
