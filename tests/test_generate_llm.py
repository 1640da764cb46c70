"""The LLM scenario pipeline against scripted models: structured calls, judge, audit, seed pool."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

import scenarios
from scenarios.generate.llm import GenerationResult, Sampling, ScenarioPipeline, stable_hash
from scenarios.generate.seeds import BREAKERS, SeedPool, break_scenario, overlapping_policy
from scenarios.generate.wire import (
    JudgeVerdict,
    ScenarioDraft,
    first_json_object,
    from_scenario,
    parse_draft,
    parse_verdict,
    to_record,
)
from scenarios.validate import check
from sotopia_tom_env.llm import FakeChatClient
from sotopia_tom_env.llm.schema import strict_json_schema

GOLD = scenarios.load("gold")
LEGAL = [s for s in GOLD if s.sector == "legal" and len(s.agents) == 3]


def draft(s) -> dict:
    return from_scenario(s).model_dump()


def verdict(ok: bool, reason: str, corrected) -> dict:
    return {"is_logically_correct": ok, "anomalies_reason": reason,
            "corrected_scenario_json": corrected}  # fmt: skip


def scripted(generations, judgments, model="gen-model"):
    """A fake endpoint answering generator calls and judge calls from two scripts."""
    gens, judges = iter(generations), iter(judgments)

    def reply(messages, fmt):
        return next(judges) if fmt is JudgeVerdict else next(gens)

    return FakeChatClient(reply, model=model)


def pipeline(client, judge=None, **kw) -> ScenarioPipeline:
    kw.setdefault("pool", SeedPool.curated(LEGAL[:6]))
    return ScenarioPipeline(client, judge_client=judge, backoff_s=0, **kw)


def run(p: ScenarioPipeline, number=1) -> GenerationResult:
    return asyncio.run(p.run("legal", 3, number))


def prompts(client, fmt=ScenarioDraft) -> list[str]:
    return [r["messages"][-1]["content"] for r in client.requests if r["response_format"] is fmt]


# --- the end-to-end story -------------------------------------------------------------------


def test_run_with_good_bad_and_malformed_replies():
    broken, _ = break_scenario(LEGAL[1])
    overlapping, _ = overlapping_policy(LEGAL[2])
    clean = next(s for s in LEGAL[3:] if not check(s))  # no warnings either: may become a seed
    gen = scripted(
        [
            json.dumps(draft(broken)),  # the judge repairs it: original audited, fix accepted
            json.dumps(draft(overlapping)),  # the judge misses it, the validator does not
            "Sure! Here is your scenario: {'oops",  # malformed: recorded and retried
            {"scenario_goal": "x", "knowledge_domain_map": [], "agents": "three"},  # bad shape
            json.dumps(draft(clean)),  # clean
        ],
        [],
    )
    judge = scripted(
        [],
        [
            verdict(False, "an item is unreachable", draft(LEGAL[1])),
            verdict(True, "fine", draft(overlapping)),
            verdict(True, "fine", draft(clean)),
        ],
        model="judge-model",
    )
    p = pipeline(gen, judge, generation=Sampling(0.9, 111), judging=Sampling(0.0, 222))
    result = run(p, number=2)

    # accepted scenarios pass the validator; ids and sector are set
    assert [s.id for s in result.accepted] == ["gen-legal-001", "gen-legal-002"]
    assert all(s.sector == "legal" for s in result.accepted)
    assert all(not [f for f in check(s) if f.severity == "error"] for s in result.accepted)
    assert result.accepted[0].agents[0].pre_interaction_knowledge == LEGAL[1].agents[0].pre_interaction_knowledge  # fmt: skip
    # the audit holds the judged-wrong original and the validator's rejection, with reasons
    reasons = [e["reason"] for e in result.audit]
    assert reasons[0] == "Bad seed: an item is unreachable"
    assert reasons[1].startswith("validator: policy_overlap")
    assert result.summary()["legal"] == {
        "attempts": 5, "accepted": 2, "rejected": 1, "gen_errors": 2,
    }  # fmt: skip
    # malformed replies are recorded with a reason and the start of the reply
    assert [e["stage"] for e in result.errors] == ["generate", "generate"]
    assert "no JSON object" in result.errors[0]["reason"]
    assert "agents" in result.errors[1]["reason"]
    # rejected scenarios come back as bad seeds in later prompts, with the audit's reason
    later = prompts(gen)
    assert "an item is unreachable" not in later[0]
    assert "Why it is bad: Bad seed: an item is unreachable" in later[1]
    assert any("Why it is bad: validator: policy_overlap" in t for t in later[2:])
    # only the clean acceptance became a good seed
    learned_good = [s for s in p.pool.good if s.learned]
    assert [s.record["scenario_id"] for s in learned_good] == ["gen-legal-002"]


def test_both_calls_request_structured_output_with_their_own_model_and_sampling():
    gen = scripted([json.dumps(draft(LEGAL[1]))], [])
    judge = scripted([], [verdict(True, "ok", draft(LEGAL[1]))], model="judge-model")
    run(pipeline(gen, judge, generation=Sampling(0.9, 111), judging=Sampling(0.1, 222)))
    (g,), (j,) = gen.requests, judge.requests
    assert (g["model"], g["response_format"], g["temperature"], g["max_tokens"]) == (
        "gen-model", ScenarioDraft, 0.9, 111)  # fmt: skip
    assert (j["model"], j["response_format"], j["temperature"], j["max_tokens"]) == (
        "judge-model", JudgeVerdict, 0.1, 222)  # fmt: skip
    assert g["messages"][0]["role"] == "system" and "legal sector" in g["messages"][0]["content"]
    assert "exactly 3 agents" in g["messages"][1]["content"]
    # the judge is shown the candidate in the shape it must answer in
    assert json.dumps(draft(LEGAL[1]), ensure_ascii=False) in j["messages"][1]["content"]
    # both response models are expressible as strict JSON schemas
    strict_json_schema(ScenarioDraft), strict_json_schema(JudgeVerdict)


def test_examples_are_sampled_per_call_and_reproducible_by_seed():
    def sampled(seed: int) -> list[str]:
        pool = SeedPool.curated(LEGAL[:8])
        rng = random.Random(seed)
        return [
            stable_hash([s.record for s in good + bad])
            for good, bad in (pool.sample("legal", 3, rng) for _ in range(6))
        ]

    assert sampled(1) == sampled(1)
    assert sampled(1) != sampled(2)
    assert len(set(sampled(1))) > 1  # not one fixed pair


def test_same_seed_and_replies_give_the_same_prompts():
    def prompts_of(seed: int) -> list[str]:
        broken, _ = break_scenario(LEGAL[1])
        replies = [json.dumps(draft(broken)), json.dumps(draft(LEGAL[2]))]
        verdicts = [verdict(False, "unreachable", draft(LEGAL[1])), verdict(True, "ok", draft(LEGAL[2]))]  # fmt: skip
        client = scripted(replies, verdicts)
        run(pipeline(client, seed=seed), number=2)
        return [json.dumps(r["messages"]) for r in client.requests]

    assert prompts_of(3) == prompts_of(3)
    assert prompts_of(3) != prompts_of(4)


def test_judge_failures_and_call_errors_are_counted_never_raised():
    s = draft(LEGAL[4])
    client = scripted(
        [json.dumps(s), RuntimeError("endpoint down"), json.dumps(s), json.dumps(s)],
        [{"is_logically_correct": True}, "not json", verdict(True, "ok", s)],
    )
    result = run(pipeline(client, max_attempts=4))
    assert len(result.accepted) == 1
    assert result.summary()["legal"] == {
        "attempts": 4, "judge_errors": 2, "gen_errors": 1, "accepted": 1,
    }  # fmt: skip
    assert [e["stage"] for e in result.errors] == ["judge", "generate", "judge"]
    assert "corrected_scenario_json" in result.errors[0]["reason"]
    assert "endpoint down" in result.errors[1]["reason"]


def test_duplicates_are_skipped():
    s = draft(LEGAL[5])
    client = scripted([json.dumps(s), json.dumps(s)], [verdict(True, "ok", s)])
    result = run(pipeline(client, max_attempts=1), number=2)
    assert len(result.accepted) == 1 and result.summary()["legal"]["dupes"] == 1


def test_a_reply_in_the_benchmark_shape_is_accepted():
    record = LEGAL[1].model_dump(mode="json", exclude_none=True)
    client = scripted([f"Here it is:\n{json.dumps(record)}\nEnjoy!"], [verdict(True, "ok", record)])
    assert len(run(pipeline(client)).accepted) == 1


# --- the seed pool ----------------------------------------------------------------------------


def test_curated_bad_seeds_each_break_a_review_rule():
    for s in LEGAL[:5]:
        for breaker in BREAKERS:
            bad, reason = breaker(s)
            assert reason and [f for f in check(bad) if f.severity == "error"], breaker.__name__


def test_pool_prefers_learned_mistakes_and_caps_them(tmp_path):
    pool = SeedPool.curated(LEGAL[:4])
    pool.max_learned = 2
    for i in range(3):
        pool.add_bad({"sector": "legal", "agents": [{}] * 3, "n": i}, f"mistake {i}")
    assert [s.reason for s in pool.bad if s.learned] == ["mistake 1", "mistake 2"]
    _, bad = pool.sample("legal", 3, random.Random(0))
    assert bad[0].learned and not bad[1].learned
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps(pool.records()))
    again = SeedPool.from_file(path)
    assert len(again.good) == 4 and {"mistake 1", "mistake 2"} <= {s.reason for s in again.bad}


def test_seeds_file_needs_good_and_bad_entries(tmp_path):
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps([LEGAL[0].model_dump(mode="json")]))
    with pytest.raises(ValueError, match="bad ones with reason"):
        SeedPool.from_file(path)


# --- wire format ------------------------------------------------------------------------------


def test_draft_round_trip_and_parsing_helpers():
    for s in LEGAL[:3]:
        record = to_record(from_scenario(s))
        assert record["agents"] == s.model_dump(mode="json", exclude_none=True)["agents"]
    assert first_json_object('noise {"a": {"b": 1}} tail') == {"a": {"b": 1}}
    assert first_json_object("nothing") is None
    with pytest.raises(ValueError, match="no JSON object"):
        parse_draft("nothing")
    with pytest.raises(ValueError, match="lacks corrected_scenario_json"):
        parse_verdict('{"is_logically_correct": true, "anomalies_reason": ""}')
    twice = draft(LEGAL[0])
    twice["agents"][0]["pre_interaction_knowledge"] *= 2
    with pytest.raises(ValueError, match="two facts alike"):
        to_record(ScenarioDraft.model_validate(twice))


# --- end to end: the CLI against a scripted OpenAI-compatible server --------------------------


def test_cli_generate_against_a_scripted_endpoint(tmp_path):
    pytest.importorskip("openai", reason="the real OpenAI client is in the [llm] extra")
    from fault_server import FaultServer
    from typer.testing import CliRunner

    from sotopia_tom_app.cli import app

    broken, _ = break_scenario(LEGAL[1])
    gens = iter([draft(broken), draft(LEGAL[1])])
    fixes = iter([verdict(False, "unreachable item", draft(LEGAL[1])), verdict(True, "ok", draft(LEGAL[1]))])  # fmt: skip

    def reply(body):
        name = body["response_format"]["json_schema"]["name"]
        return json.dumps(next(fixes) if name == "JudgeVerdict" else next(gens))

    with FaultServer(reply=reply, lifetime_s=60) as server:
        out = tmp_path / "out.json"
        args = ["generate", "--sector", "legal", "--number", "1", "--model", "gen-model",
                "--base-url", server.url, "--judge-model", "judge-model", "--judge-temperature",
                "0.2", "--out", str(out), "--audit", str(tmp_path / "audit.json"), "--errors",
                str(tmp_path / "errors.json"), "--seeds-out", str(tmp_path / "seeds.json")]  # fmt: skip
        result = CliRunner().invoke(app, args)
        bodies = [r["body"] for r in server.requests]
    assert result.exit_code == 0, result.output
    assert [(b["model"], b["response_format"]["json_schema"]["name"], b["temperature"]) for b in bodies] == [
        ("gen-model", "ScenarioDraft", 0.9), ("judge-model", "JudgeVerdict", 0.2)]  # fmt: skip
    assert bodies[0]["response_format"]["json_schema"]["strict"] is True
    assert [s.id for s in scenarios.load(out)] == ["gen-legal-001"]
    audit = json.loads((tmp_path / "audit.json").read_text())
    assert [e["reason"] for e in audit] == ["Bad seed: unreachable item"]
    seeds = json.loads((tmp_path / "seeds.json").read_text())
    assert "Bad seed: unreachable item" in [s.get("reason") for s in seeds]
