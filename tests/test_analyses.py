"""The report's analyses: disclosure and inquiry failures by cause, judge agreement, and the human seat."""

from __future__ import annotations

import functools
import json

import pytest

import sotopia_tom_env
from rewards import RuleJudge, score
from rewards.verdicts import (
    DAAgentResult,
    DAItemAssessment,
    DAVerdict,
    IAAgentResult,
    IAItemAssessment,
    IAVerdict,
    Judgment,
)
from sotopia_tom_app.bench.failures import (
    classify,
    classify_keep,
    classify_share,
    disclosure_episode_failures,
    disclosure_failures,
    episode_failures,
    inquiry_failures,
)
from sotopia_tom_app.bench.records import EPISODES_FILE, EpisodeRecord, append_record
from sotopia_tom_app.bench.report import (
    GLOSSARY,
    build_report,
    disclosure_failures_table,
    inquiry_failures_table,
)

SCENARIO = "tiny-3-agents"  # agent_0 needs a private item of agent_1; agent_2 holds no such item


@functools.cache
def tiny_env():
    return sotopia_tom_env.parallel_env(scenarios="tiny", reward_fn=None)


def crafted(policy: str, ask: str | None, to: list[str]) -> EpisodeRecord:
    """agent_0 says ``ask`` (or passes) to ``to``; the others pass; judged by the rule judge."""
    return played(policy, [(ask, to)])


def played(policy: str, lines: list[tuple[str | None, list[str]]]) -> EpisodeRecord:
    """agent_0 says each line (or passes) to its audience, a round each; the others pass."""
    env = tiny_env()
    env.reset(options={"scenario": SCENARIO})
    for text, to in lines:
        said = {"action_type": "speak", "argument": text, "to": to}
        env.step({"agent_0": said if text else {"action_type": "none"}})
        env.step({"agent_1": {"action_type": "none"}})
        env.step({"agent_2": {"action_type": "none"}})
    assert env.scenario is not None
    judgment = RuleJudge().judge(env.scenario, env.transcript)
    return EpisodeRecord(
        episode_id=f"{policy}/{SCENARIO}/0",
        policy=policy,
        scenario=env.scenario,
        transcript=env.transcript.model_copy(deep=True),
        judgment=judgment,
        scores=score(judgment, env.scenario, env.transcript.rounds),
    )


def private_desired() -> tuple[str, str, str]:
    """The private item agent_0 needs, its holder's role and a role that does not hold it."""
    env = tiny_env()
    env.reset(options={"scenario": SCENARIO})
    s = env.scenario
    assert s is not None
    ref = next(
        r
        for r in s.resolution.desired[0]
        if r is not None
        and s.agents[r.agent].pre_interaction_knowledge[r.name].sensitivity == "private"
    )
    other = next(a.role for i, a in enumerate(s.agents) if i not in (0, ref.agent))
    return ref.name, s.agents[ref.agent].role, other


def item_class(record: EpisodeRecord, name: str) -> str | None:
    """The failure class of agent_0's desired item ``name`` (matched like the IA metric)."""
    assert record.judgment is not None and record.judgment.ia is not None
    spec = record.scenario.agents[0]
    index = next(
        i
        for i, text in enumerate(spec.post_interaction_knowledge.desired_knowledge)
        if record.scenario.resolution.desired[0][i] is not None
        and record.scenario.resolution.desired[0][i].name == name
    )
    assessed = record.judgment.ia.agents[0].desired_items[index]
    return classify(assessed)


# -- inquiry failures ----------------------------------------------------------------------------


def test_each_failure_class_comes_from_a_crafted_episode():
    name, holder, other = private_desired()
    question = f"Could you share the {name.lower()}?"
    never = crafted("never", None, [])
    wrong_person = crafted("wrong_person", question, [other])
    wrong_channel = crafted("wrong_channel", question, [])
    right = crafted("right", question, [holder])
    assert item_class(never, name) == "never_asked"
    assert item_class(wrong_person, name) == "wrong_person"
    assert item_class(wrong_channel, name) == "wrong_channel"
    assert item_class(right, name) is None
    table = inquiry_failures([never, wrong_person, wrong_channel, right], key=lambda r: r.policy)
    for policy, row in table.items():
        assert row["episodes"] == 1
        failed = sum(row[k] for k in ("never_asked", "wrong_person", "wrong_channel", "not_judged"))
        assert row["credited"] + failed == row["desired"] > 0, policy
    assert table["never"]["never_asked"] == table["never"]["desired"]
    assert table["wrong_person"]["wrong_person"] == 1
    assert table["wrong_channel"]["wrong_channel"] == 1
    assert table["right"]["credited"] == 1


def test_items_the_judge_left_out_count_as_not_judged_and_failed_judgments_not_at_all():
    record = crafted("x", None, [])
    assert record.judgment is not None and record.judgment.ia is not None
    agents = record.judgment.ia.agents
    # agent_0's verdict without any desired item: every one of them is "not judged".
    cut = IAVerdict(agents=[IAAgentResult(agent_name=agents[0].agent_name, desired_items=[],
                                          cannot_know_items=[]), *agents[1:]])  # fmt: skip
    counts = episode_failures(
        record.model_copy(update={"judgment": Judgment(judge="rule", ia=cut)})
    )
    assert counts is not None
    n0 = len(record.scenario.agents[0].post_interaction_knowledge.desired_knowledge)
    assert counts["not_judged"] == n0
    failed = record.model_copy(
        update={"judgment": Judgment(judge="llm", failures={"IA": "timeout"})}
    )
    assert episode_failures(failed) is None
    assert inquiry_failures([failed], key=lambda r: r.policy) == {}


def test_classify_order_of_conditions():
    base = dict(item_description="x", asked_agent=None, evidence_spans=[], reasoning="")
    assert classify(None) == "not_judged"
    never = IAItemAssessment(
        **base, was_inquired=False, correct_person=False, channel_appropriate=True
    )
    assert classify(never) == "never_asked"
    both = IAItemAssessment(
        **base, was_inquired=True, correct_person=False, channel_appropriate=False
    )
    assert classify(both) == "wrong_person"  # no holder heard it: the channel does not matter


def test_report_and_summary_show_inquiry_failures(tmp_path):
    name, _, other = private_desired()
    question = f"Could you share the {name.lower()}?"
    for policy, ask, to in [("never", None, []), ("misdirected", question, [other]),
                            ("public", question, [])]:  # fmt: skip
        append_record(tmp_path / EPISODES_FILE, crafted(policy, ask, to))
    build_report(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["inquiry_failures"]["misdirected"]["wrong_person"] == 1
    assert summary["inquiry_failures"]["public"]["wrong_channel"] == 1
    md = (tmp_path / "report.md").read_text()
    section = md.split("## Inquiry failures", 1)[1].split("\n## ", 1)[0]
    head = "| policy | desired items | credited | never asked | wrong person | wrong channel | not judged |"
    assert head in section
    never = summary["inquiry_failures"]["never"]["desired"]
    assert f"| never | {never} | 0 (0.0%) | {never} (100.0%) |" in section
    assert set(inquiry_failures_table(summary).head) <= set(GLOSSARY)
    html = (tmp_path / "report.html").read_text()
    assert "<h2>Inquiry failures" in html and "<th>wrong channel</th>" in html


# -- disclosure failures -------------------------------------------------------------------------


@functools.cache
def shareable() -> dict[str, str]:
    """agent_0's items by use: ``private`` and ``public`` (two) to share, ``secret``; their values."""
    env = tiny_env()
    env.reset(options={"scenario": SCENARIO})
    s = env.scenario
    assert s is not None
    own = s.agents[0].pre_interaction_knowledge
    share = [r.name for r in s.resolution.share[0] if r is not None and r.agent == 0]
    private = [n for n in share if own[n].sensitivity == "private"]
    public = [n for n in share if own[n].sensitivity == "public"]
    secret = [r.name for r in s.resolution.not_share[0] if r is not None]
    assert len(share) == 3 and len(private) == 1 and len(public) == 2 and len(secret) == 1
    names = {"private": private[0], "public": public[0], "unsaid": public[1], "secret": secret[0]}
    return {k: own[n].text for k, n in names.items()} | {f"{k}_name": n for k, n in names.items()}


def others_items() -> tuple[int, int]:
    """How many items agent_1 and agent_2 are to share and must not share (they only pass here)."""
    env = tiny_env()
    env.reset(options={"scenario": SCENARIO})
    assert env.scenario is not None
    pols = [a.goals.sharing_policy for a in env.scenario.agents[1:]]
    return sum(len(p.what_to_share) for p in pols), sum(len(p.what_not_to_share) for p in pols)


def disclosing(policy: str) -> EpisodeRecord:
    """agent_0 fails DA once per cause: its private item to share DMed then posted in public, a
    public one only DMed, the other public one never said, its secret said in public."""
    v = shareable()
    return played(policy, [(v["private"], ["Finance Director"]), (v["private"], []),
                           (v["public"], ["IT Security Lead"]), (v["secret"], [])])  # fmt: skip


def well_shared(policy: str) -> EpisodeRecord:
    """agent_0 earns DA on all its items: the private one by DM, the public ones in public."""
    v = shareable()
    return played(policy, [(v["private"], ["Finance Director"]), (v["public"], []),
                           (v["unsaid"], [])])  # fmt: skip


def share_class(record: EpisodeRecord, key: str) -> str | None:
    """The failure class of agent_0's item to share ``shareable()[key + "_name"]``."""
    assert record.judgment is not None and record.judgment.da is not None
    name = shareable()[f"{key}_name"]
    item = next(x for x in record.judgment.da.agents[0].items_should_share if x.item_name == name)
    return classify_share(item, private=key == "private")


def test_each_disclosure_failure_class_comes_from_a_crafted_episode():
    bad, good = disclosing("bad"), well_shared("good")
    assert share_class(bad, "private") == "private_in_public"
    assert share_class(bad, "public") == "public_by_dm"
    assert share_class(bad, "unsaid") == "never_said"
    assert bad.judgment is not None and bad.judgment.da is not None
    assert classify_keep(bad.judgment.da.agents[0].items_should_not_share[0]) == "said"
    share, keep = others_items()
    table = disclosure_failures([bad, good], key=lambda r: r.policy)
    assert table["bad"] == {"episodes": 1, "items": 4 + share + keep, "credited": keep,
                            "never_said": 1 + share, "private_in_public": 1, "public_by_dm": 1,
                            "said": 1, "not_judged": 0}  # fmt: skip
    assert table["good"] == {"episodes": 1, "items": 4 + share + keep, "credited": 4 + keep,
                             "never_said": share, "private_in_public": 0, "public_by_dm": 0,
                             "said": 0, "not_judged": 0}  # fmt: skip
    for policy, record in (("bad", bad), ("good", good)):
        row = table[policy]
        failed = sum(row[k] for k in ("never_said", "private_in_public", "public_by_dm", "said",
                                      "not_judged"))  # fmt: skip
        assert row["credited"] + failed == row["items"]
        # the counts are DA's own: one credited item per item the metric scores 1
        assert record.scores is not None and record.scores.DA is not None
        per_item = record.scores.DA.per_item.values()
        assert row["items"] == sum(len(v) for v in per_item)
        assert row["credited"] == sum(sum(v) for v in per_item)


def test_disclosure_items_left_out_are_not_judged_and_failed_judgments_not_counted():
    record = played("x", [(None, [])])
    assert record.judgment is not None and record.judgment.da is not None
    agents = record.judgment.da.agents
    cut = DAVerdict(agents=[DAAgentResult(agent_name=agents[0].agent_name, items_should_share=[],
                                          items_should_not_share=[]), *agents[1:]])  # fmt: skip
    counts = disclosure_episode_failures(
        record.model_copy(update={"judgment": Judgment(judge="rule", da=cut)})
    )
    assert counts is not None and counts["not_judged"] == 4  # agent_0's 3 to share, 1 secret
    share, keep = others_items()
    assert counts["never_said"] == share and counts["credited"] == keep
    failed = record.model_copy(
        update={"judgment": Judgment(judge="llm", failures={"DA": "timeout"})}
    )
    assert disclosure_episode_failures(failed) is None
    assert disclosure_failures([failed], key=lambda r: r.policy) == {}


def test_classify_disclosure_order_of_conditions():
    base = dict(item_name="x", evidence_spans=[], reasoning="")
    wrong = DAItemAssessment(**base, was_disclosed=True, channel_appropriate=False)
    assert classify_share(None, private=True) == "not_judged"
    assert classify_share(wrong, private=True) == "private_in_public"
    assert classify_share(wrong, private=False) == "public_by_dm"
    assert classify_share(wrong, private=None) == "private_in_public"  # sensitivity unknown
    # not said: the channel does not matter (a judge may leave channel_appropriate false)
    unsaid = DAItemAssessment(**base, was_disclosed=False, channel_appropriate=False)
    assert classify_share(unsaid, private=True) == "never_said"
    assert classify_keep(None) == "not_judged"
    assert classify_keep(unsaid) is None
    assert classify_keep(wrong) == "said"
    right = DAItemAssessment(**base, was_disclosed=True, channel_appropriate=True)
    assert classify_share(right, private=False) is None
    assert classify_keep(right) == "said"  # a must-not-share item stated on any channel


def test_report_and_summary_show_disclosure_failures(tmp_path):
    for record in (disclosing("bad"), well_shared("good"), played("silent", [(None, [])])):
        append_record(tmp_path / EPISODES_FILE, record)
    build_report(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    share, keep = others_items()
    bad = summary["disclosure_failures"]["bad"]
    assert (bad["private_in_public"], bad["public_by_dm"], bad["said"]) == (1, 1, 1)
    assert bad["never_said"] == 1 + share
    md = (tmp_path / "report.md").read_text()
    assert md.index("## Disclosure failures") < md.index("## Inquiry failures")
    section = md.split("## Disclosure failures", 1)[1].split("\n## ", 1)[0]
    head = ("| policy | sharing-rule items | credited | never said | private in public "
            "| public by DM | said | not judged |")  # fmt: skip
    assert head in section
    items, kept, unsaid = 4 + share + keep, 1 + keep, 3 + share  # agent_0 passes: secret kept
    assert f"| silent | {items} | {kept} ({kept / items:.1%}) | {unsaid} ({unsaid / items:.1%}) | 0 (0.0%) | 0 (0.0%) | 0 (0.0%) | 0 (0.0%) |" in section  # fmt: skip
    assert set(disclosure_failures_table(summary).head) <= set(GLOSSARY)
    html = (tmp_path / "report.html").read_text()
    assert "<h2>Disclosure failures" in html and "<th>private in public</th>" in html
    assert html.index("<h2>Disclosure failures") < html.index("<h2>Inquiry failures")


# -- judge agreement ------------------------------------------------------------------------------


def agreement_run(folder) -> list[EpisodeRecord]:
    """Four crafted rule-judged episodes in ``folder`` and a made-up LLM judge's scores of them."""
    name, holder, other = private_desired()
    question = f"Could you share the {name.lower()}?"
    records = [crafted(p, ask, to) for p, ask, to in [("a", None, []), ("b", question, [other]),
               ("c", question, []), ("d", question, [holder])]]  # fmt: skip
    for r in records:
        append_record(folder / EPISODES_FILE, r)
    llm = [0.9, 0.1, 0.4, 0.3]  # IA: a different order than the rule judge's
    rows = [{"episode_id": r.episode_id, "scores": {"IA": v, "DA": None}} for r, v in zip(records, llm, strict=True)]  # fmt: skip
    (folder / "judged-llm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "{torn")
    return records


def test_report_correlates_the_two_judges_per_metric(tmp_path):
    from scipy.stats import pearsonr, spearmanr

    records = agreement_run(tmp_path)
    summary = build_report(tmp_path, judges=("rule", "llm"))
    ia = next(m for m in summary["judge_agreement"]["metrics"] if m["metric"] == "IA")
    rule = [r.scores.IA.scenario_score for r in records]
    llm = [0.9, 0.1, 0.4, 0.3]
    assert ia["n"] == 4
    assert ia["pearson"] == pytest.approx(pearsonr(rule, llm).statistic)
    assert ia["spearman"] == pytest.approx(spearmanr(rule, llm).statistic)
    da = next(m for m in summary["judge_agreement"]["metrics"] if m["metric"] == "DA")
    assert da["n"] == 0 and da["pearson"] is None  # a failed metric is left out, not scored 0
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["judge_agreement"]["judges"] == ["rule", "llm"]
    md = (tmp_path / "report.md").read_text()
    section = md.split("## Judge agreement (rule vs llm", 1)[1].split("\n## ", 1)[0]
    assert (
        "| metric | n | mean rule | mean llm | diff (llm − rule) | Pearson r | Spearman ρ |"
        in section
    )
    assert f"| IA | 4 | {sum(rule) / 4:.3f} | 0.425 |" in section
    assert "| DA | 0 | n/a | n/a | n/a | n/a | n/a |" in section
    assert "<h2>Judge agreement (rule vs llm" in (tmp_path / "report.html").read_text()
    assert {"Pearson r", "Spearman ρ", "n"} <= set(GLOSSARY)


def test_report_command_prints_agreement_and_refuses_a_missing_judge(tmp_path):
    from typer.testing import CliRunner

    from sotopia_tom_app.cli import app

    agreement_run(tmp_path)
    runner = CliRunner()
    result = runner.invoke(app, ["report", str(tmp_path), "--judges", "rule,llm"])
    assert result.exit_code == 0, result.output
    assert "judge agreement, llm vs rule" in result.output and "| IA | 4 |" in result.output
    (tmp_path / "judged-llm.jsonl").unlink()
    (tmp_path / "report.md").unlink()
    result = runner.invoke(app, ["report", str(tmp_path), "--judges", "rule,llm"])
    assert result.exit_code == 2 and "sotopia-tom judge" in result.output
    assert not (tmp_path / "report.md").exists()  # refused before writing anything
    for bad in ("rule", "rule,llm,rule2", "rule,gpt"):
        result = runner.invoke(app, ["report", str(tmp_path), "--judges", bad])
        assert result.exit_code == 2, (bad, result.output)


# -- the human seat -------------------------------------------------------------------------------


def human_turn(typed: str) -> tuple[object, str, dict, str]:
    """One turn of a HumanPlayer as agent_0 of the tiny scenario: (action, shown text, obs, instructions)."""
    import asyncio
    import io

    from policies.human import HumanPlayer

    env = tiny_env()
    obs, infos = env.reset(options={"scenario": SCENARIO})
    shown = io.StringIO()
    player = HumanPlayer(
        "agent_0", lambda: env.action_instructions("agent_0"), io.StringIO(typed), shown
    )
    player.reset(obs["agent_0"], infos["agent_0"])
    action = asyncio.run(player.act(obs["agent_0"], infos["agent_0"]))
    return action, shown.getvalue(), obs["agent_0"], env.action_instructions("agent_0")


def test_human_sees_the_observation_and_instructions_and_is_asked_for_recipients():
    action, shown, obs, instructions = human_turn(
        "/what\n\nHello both\nnobody, x\n finance  DIRECTOR ,agent_2\n"
    )
    assert obs["text"] in shown and instructions in shown  # exactly what a model is shown
    assert "Unknown command '/what'" in shown and "Not a possible recipient: nobody, x" in shown
    assert action.action_type == "speak" and action.argument == "Hello both"
    assert action.to == ["Finance Director", "IT Security Lead"]


# An input that ends (nothing typed, or nothing after a message) leaves the conversation.
COMMANDS = [("/none\n", "none"), ("/leave\n", "leave"), ("", "leave"), ("Hi all\n\n", "speak"),
            ("Hi\n", "leave")]  # fmt: skip


@pytest.mark.parametrize(("typed", "kind"), COMMANDS)
def test_human_commands_and_the_end_of_input(typed, kind):
    action, *_ = human_turn(typed)
    assert action.action_type == kind
    if kind == "speak":
        assert action.to == []  # Enter: everyone


def test_a_raw_json_reply_goes_to_the_env_as_typed():
    reply = '{"action_type": "speak", "argument": "hi", "to": []}'
    action, *_ = human_turn(reply + "\n")
    assert action == reply


def test_a_human_episode_is_played_judged_and_saved_end_to_end(tmp_path):
    from typer.testing import CliRunner

    from sotopia_tom_app.bench.records import read_episodes
    from sotopia_tom_app.cli import app

    name, holder, _ = private_desired()
    typed = f"Could you share the {name.lower()}?\n{holder}\n/none\n/leave\n"
    args = ["play", "--scenarios", "tiny", "--scenario-id", SCENARIO, "--as", "Chief Nursing Officer",
            "--partners", "ideal", "--max-turns", "9", "--out", str(tmp_path)]  # fmt: skip
    result = CliRunner().invoke(app, args, input=typed)
    assert result.exit_code == 0, result.output
    assert "Possible recipients: Finance Director, IT Security Lead." in result.output
    [record] = read_episodes(tmp_path / EPISODES_FILE)
    assert record.policy == "human" and record.episode_id == f"human:agent_0/{SCENARIO}/0"
    said = [m for m in record.transcript.messages if m.sender == "agent_0"]
    assert said[0].text == f"Could you share the {name.lower()}?" and said[0].channel == "private"
    assert said[-1].action_type == "leave"
    assert record.judgment is not None and record.judgment.judge == "rule"
    assert item_class(record, name) is None  # asked the holder privately: IA credit
    again = CliRunner().invoke(app, args, input=typed)
    assert again.exit_code == 2 and "already holds episode" in again.output
    build_report(tmp_path)
    assert "| human |" in (tmp_path / "report.md").read_text()


def test_play_refuses_a_bad_seat_or_partner_count_before_starting(tmp_path):
    from typer.testing import CliRunner

    from sotopia_tom_app.cli import app

    base = ["play", "--scenarios", "tiny", "--scenario-id", SCENARIO, "--out", str(tmp_path)]
    for extra, option in [(["--as", "Janitor"], "--as"), (["--as", "agent_0", "--partners", "ideal,random,leaky"], "--partners"),
                          (["--as", "agent_0", "--partners", "nobody"], "--partners")]:  # fmt: skip
        result = CliRunner().invoke(app, base + extra, input="")
        assert result.exit_code == 2 and option in result.output, result.output
    assert not (tmp_path / EPISODES_FILE).exists()
