"""Finding what exists and reading results: list, show, --version, help, --limit, judge, report.

Also the pieces the command line rests on: the reply format the env hands to any chat model
(and the README's episode loop), the ideal player's optional skipping of answered questions,
and the recipient hint that never suggests the sender itself.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import re
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import scenarios
import sotopia_tom_env
from policies import POLICIES, IdealPlayer, play_episode
from policies.prompted import STRATEGIES
from policies.prompts import action_prompt
from scenarios.io import SHIPPED_SETS
from sotopia_tom_app.bench.runner import BenchConfig, sample_by_sector, select_scenarios
from sotopia_tom_app.catalog import SET_NOTES, STRATEGY_NOTES
from sotopia_tom_app.cli import app
from sotopia_tom_env.llm.fake import FakeChatClient
from sotopia_tom_env.routing import RecipientError, Roster

README = Path(__file__).resolve().parents[1] / "README.md"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


# -- point 1: what exists ------------------------------------------------------------------------


def test_version_is_the_installed_one():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"sotopia-tom {importlib.metadata.version('sotopia-tom-env')}"


def _commands(group, path=()):
    for name, cmd in getattr(group, "commands", {}).items():
        yield from _commands(cmd, (*path, name))
    yield path, group


def test_every_option_of_every_command_has_help_and_completion_is_on():
    root = typer.main.get_command(app)
    missing = [
        (" ".join(path) or "(root)", p.name)
        for path, cmd in _commands(root)
        for p in cmd.params
        if not getattr(p, "help", None)
    ]
    assert not missing
    assert {"install_completion", "show_completion"} <= {p.name for p in root.params}
    assert {"list", "show"} <= set(root.commands)


def test_list_sets_names_every_shipped_set_with_its_size():
    result = invoke("list", "sets", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["set"]: r for r in json.loads(result.stdout)}
    assert set(rows) == set(SHIPPED_SETS) == set(SET_NOTES)
    for name, row in rows.items():
        assert row["scenarios"] == len(scenarios.load(name)) and row["about"]
    assert len(rows["gold"]["sectors"]) == 8
    table = invoke("list", "sets").stdout
    assert re.search(r"^gold\s+160 scenarios\s+8 sectors\s+3/4/5 agents", table, re.M)


def test_list_scenarios_prints_id_sector_and_agent_count():
    result = invoke("list", "scenarios", "--set", "tiny")
    assert result.exit_code == 0, result.output
    assert re.search(r"^tiny-4-agents\s+manufacturing\s+4$", result.stdout, re.M)
    assert result.stdout.rstrip().endswith("3 scenarios")
    legal = json.loads(invoke("list", "scenarios", "--sector", "legal", "--json").stdout)
    assert len(legal) == 20 and {r["sector"] for r in legal} == {"legal"}
    assert all(r["id"].startswith("gold-legal-") and 3 <= r["agents"] <= 5 for r in legal)


def test_list_policies_covers_every_accepted_name_and_judge():
    rows = json.loads(invoke("list", "policies", "--json").stdout)
    names = {r["name"] for r in rows if r["kind"] != "judge"}
    assert names == {*POLICIES, "trained:PATH[+STRATEGY]"}
    assert {r["name"] for r in rows if r["kind"] == "judge"} == {"rule", "llm"}
    assert set(STRATEGY_NOTES) == set(STRATEGIES)
    assert all(r["about"] for r in rows)
    text = invoke("list", "policies").stdout
    assert "prompted:" in text and "judges:" in text and "trained:PATH[+STRATEGY]" in text


def test_show_prints_a_card_with_facts_rules_and_labelled_targets():
    result = invoke("show", "tiny-3-agents")  # found without --set
    assert result.exit_code == 0, result.output
    card = result.stdout
    assert card.startswith("tiny-3-agents  (tiny; sector: healthcare; 3 agents)")
    assert "Goal: Produce a final recommendation" in card
    assert "agent_1: Finance Director" in card
    assert (
        "- Nurse union grievance (private, must not share) [hidden from Finance Director]: "
        "Grievance GR-4471" in card
    )
    assert "- Pilot patient outcomes (private, may share) [needed by Finance Director]" in card
    assert card.count("Evaluation targets (post_interaction_knowledge, never shown to agents)") == 3
    assert "should learn: Per-patient program cost (held by Finance Director)" in card
    assert "must not learn: Pending vendor penalty (held by Finance Director)" in card


def test_show_json_is_the_scenario_record():
    result = invoke("show", "gold-legal-03", "--set", "gold", "--json")
    assert result.exit_code == 0, result.output
    shown = scenarios.parse_scenario(json.loads(result.stdout))
    assert shown == next(s for s in scenarios.load("gold") if s.id == "gold-legal-03")


# -- point 2: a failed bench leaves its folder untouched -----------------------------------------


def test_a_bench_refused_for_a_bad_id_writes_nothing_and_the_fixed_rerun_works(tmp_path):
    out = tmp_path / "b2"
    out.mkdir()  # an existing, empty folder must stay empty
    base = ["bench", "--scenarios", "gold", "--policies", "ideal", "--max-turns", "20"]
    failed = invoke(*base, "--scenario-ids", "gold-nope", "--out", str(out))
    assert failed.exit_code == 2 and "scenario ids not in 'gold': ['gold-nope']" in failed.output
    assert list(out.iterdir()) == []
    fixed = invoke(*base, "--scenario-ids", "gold-legal-03", "--out", str(out))
    assert fixed.exit_code == 0, fixed.output
    assert "0 episodes already in" in fixed.stdout
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert [json.loads(x)["episode_id"] for x in lines] == ["ideal/gold-legal-03/0"]


# -- point 5: --limit draws by sector ------------------------------------------------------------


def test_limit_draw_covers_sectors_and_is_fixed_by_set_and_seed():
    gold = scenarios.load("gold")
    eight = sample_by_sector(gold, 8, seed=0)
    assert len({s.sector for s in eight}) == 8
    assert [s.id for s in sample_by_sector(gold, 8, seed=0)] == [s.id for s in eight]
    assert [s.id for s in sample_by_sector(gold, 8, seed=1)] != [s.id for s in eight]
    # where a sector sits in the file does not matter: same seed, same sector order
    reordered = sorted(gold, key=lambda s: (s.sector != "technology", s.id))
    assert [s.sector for s in sample_by_sector(reordered, 8, 0)] == [s.sector for s in eight]
    sixteen = sample_by_sector(gold, 16, seed=0)
    assert sixteen[:8] == eight and all(n == 2 for n in _per_sector(sixteen).values())
    assert len(sample_by_sector(gold[:5], 50, seed=0)) == 5  # asking for more takes all


def _per_sector(chosen: list[scenarios.Scenario]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for s in chosen:
        counts[s.sector] = counts.get(s.sector, 0) + 1
    return counts


def test_limit_applies_after_scenario_ids():
    config = BenchConfig(scenarios="gold", policies=["ideal"], limit=2,
                         scenario_ids=["gold-legal-01", "gold-legal-02", "gold-finance-01"])  # fmt: skip
    chosen = select_scenarios(config)
    assert len(chosen) == 2 and {s.sector for s in chosen} == {"legal", "finance"}


def test_bench_limit_records_the_draw_and_resumes_exactly(tmp_path):
    out = tmp_path / "run"
    args = ["bench", "--scenarios", "gold", "--limit", "8", "--limit-seed", "4",
            "--policies", "silent", "--max-turns", "2", "--out", str(out)]  # fmt: skip
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    config = json.loads((out / "config.json").read_text())
    assert (config["limit"], config["limit_seed"], config["limit_sampling"]) == (8, 4, "by-sector")
    records = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert len({r["scenario"]["sector"] for r in records}) == 8
    again = invoke(*args)
    assert again.exit_code == 0 and "8 episodes already in" in again.stdout
    other = invoke(*args[:-2], "--limit-seed", "5", "--out", str(out))
    assert other.exit_code == 2 and "limit_seed: 4 -> 5" in other.output


def test_a_run_saved_before_the_sector_draw_is_not_resumed_with_it(tmp_path):
    old = BenchConfig(scenarios="gold", policies=["ideal"], limit=2, limit_sampling="first")
    assert [s.id for s in select_scenarios(old)] == [s.id for s in scenarios.load("gold")[:2]]
    out = tmp_path / "old"
    assert invoke("bench", "--scenarios", "gold", "--limit", "2", "--policies", "silent",
                  "--max-turns", "2", "--out", str(out)).exit_code == 0  # fmt: skip
    saved = json.loads((out / "config.json").read_text())
    del saved["limit_sampling"], saved["limit_seed"]  # as written before the draw existed
    (out / "config.json").write_text(json.dumps(saved))
    again = invoke("bench", "--scenarios", "gold", "--limit", "2", "--policies", "silent",
                   "--max-turns", "2", "--out", str(out))  # fmt: skip
    assert again.exit_code == 2 and "limit_sampling: 'first' -> 'by-sector'" in again.output


# -- point 8: judge summaries, the rule-vs-LLM comparison, report --open -------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("judged") / "run"
    result = invoke("bench", "--scenarios", "tiny", "--policies", "leaky,ideal",
                    "--max-turns", "20", "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_judge_sorts_episodes_and_prints_the_mean_of_each_metric(run_dir):
    (run_dir / "judged-llm.jsonl").unlink(missing_ok=True)
    result = invoke("judge", str(run_dir))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    episodes = [line.split(":")[0] for line in lines if re.match(r"^(ideal|leaky)/", line)]
    assert episodes == sorted(episodes) and len(episodes) == 6
    mean = next(line for line in lines if line.startswith("mean over 6 episodes: "))
    assert re.search(
        r"DA=\d\.\d{4}  IA=\d\.\d{4}  EFF=\d\.\d{4}  CPV=\d\.\d{4}  CM=\d\.\d{4}", mean
    )
    assert "llm vs rule" not in result.stdout  # only one judge's file so far
    rows = [json.loads(x) for x in (run_dir / "judged-rule.jsonl").read_text().splitlines()]
    assert [r["episode_id"] for r in rows] == episodes


def test_judge_compares_rule_and_llm_when_both_files_exist(run_dir):
    assert invoke("judge", str(run_dir)).exit_code == 0
    rule = [json.loads(x) for x in (run_dir / "judged-rule.jsonl").read_text().splitlines()]
    # a stand-in for an LLM judge's file: every DA 0.1 lower, CM unscored (a failed metric)
    llm = [{"episode_id": r["episode_id"],
            "scores": {**r["scores"], "DA": r["scores"]["DA"] - 0.1, "CM": None}} for r in rule]  # fmt: skip
    (run_dir / "judged-llm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in llm))
    result = invoke("judge", str(run_dir), "--judge", "rule")
    assert result.exit_code == 0, result.output
    assert "llm vs rule judge" in result.stdout
    da = next(line for line in result.stdout.splitlines() if line.strip().startswith("DA "))
    assert "n=6" in da and "diff=-0.1000" in da and "r=+1.000" in da
    cm = next(line for line in result.stdout.splitlines() if line.strip().startswith("CM "))
    assert "no episode scored by both" in cm
    (run_dir / "judged-llm.jsonl").write_text("not json\n")
    damaged = invoke("judge", str(run_dir))
    assert damaged.exit_code == 2 and "judged-llm.jsonl, line 1: not a judged episode" in (
        damaged.output
    )
    (run_dir / "judged-llm.jsonl").unlink()


def test_report_says_where_it_wrote_and_opens_the_page(run_dir, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    plain = invoke("report", str(run_dir))
    assert plain.exit_code == 0, plain.output
    assert f"report: {run_dir / 'report.md'}, {run_dir / 'report.html'}" in plain.stdout
    assert opened == []
    result = invoke("report", str(run_dir), "--open")
    assert result.exit_code == 0, result.output
    assert opened == [(run_dir / "report.html").resolve().as_uri()]
    monkeypatch.setattr("webbrowser.open", lambda url: False)
    headless = invoke("report", str(run_dir), "--open")
    assert headless.exit_code == 0 and "no browser could be opened" in headless.output


# -- point 7: how to reply, and a whole episode with a chat model --------------------------------


def test_action_instructions_are_the_prompted_players_reply_format():
    env = sotopia_tom_env.parallel_env(scenarios="tiny", reward_fn=None)
    env.reset(seed=0, options={"scenario": "tiny-3-agents"})
    text = env.action_instructions("agent_1")
    assert '"action_type" is "speak", "none" (stay silent) or "leave"' in text
    assert "empty to speak to everyone" in text
    assert text.endswith("Possible recipients: Chief Nursing Officer, IT Security Lead.")
    others = ["Chief Nursing Officer", "IT Security Lead"]
    prompt = action_prompt("basic", "Finance Director", "(obs)", others, options=["recipient_enum"])
    assert prompt.endswith(text)  # one source for both
    paper = action_prompt("basic", "Finance Director", "(obs)", others)  # names only in the brief
    assert paper.endswith(text.rsplit(" Possible recipients:", 1)[0])
    env.step({"agent_0": '{"action_type": "leave"}'})
    assert env.action_instructions("agent_1").endswith("Possible recipients: IT Security Lead.")
    with pytest.raises(ValueError, match="unknown agent 'agent_7'"):
        env.action_instructions("agent_7")
    fresh = sotopia_tom_env.parallel_env(scenarios="tiny", reward_fn=None)
    with pytest.raises(ValueError, match="call reset"):
        fresh.action_instructions("agent_0")


def _readme_loop() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    return next(b for b in blocks if "action_instructions" in b)


def test_the_readme_episode_loop_runs_with_a_fake_chat_model(monkeypatch):
    def reply(messages, response_format):
        prompt = messages[-1]["content"]
        others = prompt.rsplit("Possible recipients: ", 1)[1].rstrip(".").split(", ")
        if prompt.count("[R") > 6:  # a few messages in, everyone is done
            return {"action_type": "leave", "argument": "", "to": []}
        return {"action_type": "speak", "argument": "Hello", "to": others[:1]}

    fake = FakeChatClient(reply)

    @contextmanager
    def fake_client(model, base_url=None, **kwargs):
        yield fake

    monkeypatch.setattr("sotopia_tom_env.serving.chat_client", fake_client)
    scope: dict = {}
    exec(compile(_readme_loop(), "README.md", "exec"), scope)
    rewards, infos = scope["rewards"], scope["infos"]
    assert set(rewards) == set(scope["env"].possible_agents)
    assert all("scores" in info for info in infos.values())
    assert len(fake.requests) >= 3
    first = fake.requests[0]["messages"][0]["content"]
    assert "It is your turn" in first and first.rstrip().endswith(".")
    assert not any("action_error" in info for info in infos.values())


# -- also: the ideal player's answered questions, the recipient hint -----------------------------


@pytest.mark.parametrize("scenario", ["tiny-3-agents", "tiny-4-agents", "tiny-5-agents"])
def test_ideal_player_can_skip_questions_already_answered(scenario):
    env = sotopia_tom_env.parallel_env(scenarios="tiny", reward_fn=None)
    s = next(x for x in scenarios.load("tiny") if x.id == scenario)

    def play(skip: bool):
        factory = lambda a, sc: IdealPlayer(a, sc, skip_answered=skip)  # noqa: E731
        return asyncio.run(play_episode(env, factory, scenario=scenario)).transcript

    default, skipping = play(False), play(True)
    asked_default = sum(m.text.lower().count("could you share") for m in default.messages)
    asked_skipping = sum(m.text.lower().count("could you share") for m in skipping.messages)
    assert asked_skipping < asked_default  # the default asks for some items it already has
    for i, m in enumerate(skipping.messages):
        heard = " ".join(p.text for p in skipping.messages[:i] if p.visible_to(m.sender))
        for name, item in _items(s):
            if f"your {name}?" in m.text:
                assert item not in heard, (m.id, name)


def _items(s: scenarios.Scenario) -> list[tuple[str, str]]:
    return [(k, v.text) for a in s.agents for k, v in a.pre_interaction_knowledge.items()]


def test_recipient_hint_never_suggests_the_sender_itself():
    roster = Roster(["Finance Director", "Chief Nursing Officer", "IT Security Lead"])
    with pytest.raises(RecipientError) as own:
        roster.resolve("Finance Directr", sender="agent_0")
    assert "did you mean" not in str(own.value)
    assert "valid: 'Chief Nursing Officer', 'IT Security Lead'" in str(own.value)
    with pytest.raises(RecipientError, match="did you mean 'Finance Director'"):
        roster.resolve("Finance Directr", sender="agent_1")


def test_stats_prints_the_table_beside_a_reference_file_and_fails_outside_its_range():
    """`sotopia-tom stats` reads sets and files; exit 1 when a set leaves the reference's range."""
    tiny = str(resources.files("scenarios") / "data" / "tiny.json")
    result = invoke("stats", "gold", "gold-v1", "--authors", tiny)
    assert "need-name overlap (mean)" in result.stdout and "| gold | gold-v1 |" in result.stdout
    assert result.exit_code == 1 and "outside the authors' range" in result.stdout
    rows = json.loads(invoke("stats", "gold", "--authors", tiny, "--json").stdout)
    assert rows["need-name overlap (mean)"]["values"]["gold"] < 0.05
    missing = invoke("stats", "gold", "--authors", "no/such/file.json")
    assert missing.exit_code == 2 and "no/such/file.json" in missing.output
