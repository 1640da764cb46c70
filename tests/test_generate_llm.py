"""The LLM scenario pipeline with a fake client: accept, correct-and-audit, reject, judge error, duplicate."""

from __future__ import annotations

import asyncio
import json

import scenarios
from scenarios.generate.llm import (
    GenerationResult,
    ScenarioPipeline,
    first_json_object,
    stable_hash,
)
from scenarios.generate.seeds import break_scenario, seed_pair
from sotopia_tom_env.llm import FakeChatClient

GOOD = [s for s in scenarios.load("gold") if s.sector == "legal" and len(s.agents) == 3]


def as_json(s):
    return s.model_dump(mode="json", exclude_none=True)


def verdict(ok, reason, corrected):
    return json.dumps(
        {
            "is_logically_correct": ok,
            "anomalies_reason": reason,
            "corrected_scenario_json": corrected,
        }
    )


def scripted(generations, judgments):
    gens, judges = iter(generations), iter(judgments)

    def reply(messages, fmt):
        text = messages[0]["content"]
        return next(judges) if text.startswith("You check") else next(gens)

    return FakeChatClient(reply)


def run(client, number=1, attempts=4):
    pipeline = ScenarioPipeline(client, max_attempts=attempts, backoff_s=0)
    return asyncio.run(pipeline.run("legal", 3, number))


def test_judged_correct_candidate_is_accepted():
    s = as_json(GOOD[1])
    result = run(scripted([f"Here it is:\n{json.dumps(s)}\nEnjoy!"], [verdict(True, "fine", s)]))
    assert [x.id for x in result.accepted] == ["gen-legal-001"]
    assert result.accepted[0].sector == "legal" and result.audit == []
    assert result.summary() == {"legal": {"attempts": 1, "accepted": 1}}


def test_corrected_candidate_is_accepted_and_original_audited_with_reason():
    bad, _ = break_scenario(GOOD[2])
    result = run(
        scripted([json.dumps(as_json(bad))], [verdict(False, "X failed", as_json(GOOD[2]))])
    )
    assert len(result.accepted) == 1
    assert result.audit == [{"scenario": as_json(bad), "reason": "Bad seed: X failed"}]


def test_corrected_scenario_that_still_fails_validation_is_rejected():
    bad, _ = break_scenario(GOOD[3])
    result = run(
        scripted([json.dumps(as_json(bad))], [verdict(True, "looks fine", as_json(bad))]),
        attempts=1,
    )
    assert result.accepted == []
    (entry,) = result.audit
    assert entry["reason"].startswith("validator: ") and "goal_reachability" in entry["reason"]
    assert result.summary()["legal"] == {"attempts": 1, "rejected": 1}


def test_judge_error_and_garbage_generation_are_counted_and_retried():
    s = as_json(GOOD[4])
    client = scripted(
        ["no json here", json.dumps(s), json.dumps(s)],
        ['{"is_logically_correct": true}', verdict(True, "ok", s)],
    )
    result = run(client)
    assert len(result.accepted) == 1
    assert result.summary()["legal"] == {
        "attempts": 3,
        "gen_errors": 1,
        "judge_errors": 1,
        "accepted": 1,
    }


def test_duplicates_are_skipped():
    s = as_json(GOOD[5])
    client = scripted(
        [json.dumps(s), json.dumps(dict(reversed(list(s.items()))))], [verdict(True, "ok", s)]
    )
    result = run(client, number=2, attempts=1)
    assert len(result.accepted) == 1 and result.summary()["legal"]["dupes"] == 1


def test_prompts_carry_sector_agent_count_and_the_seed_pair():
    s = as_json(GOOD[1])
    client = scripted([json.dumps(s)], [verdict(True, "ok", s)])
    run(client)
    gen_prompt = client.requests[0]["messages"][0]["content"]
    good, bad, reason = seed_pair("legal", 3)
    assert "legal sector" in gen_prompt and "exactly 3 agents" in gen_prompt
    assert good in gen_prompt and bad in gen_prompt and reason in gen_prompt


def test_helpers():
    assert first_json_object('noise {"a": {"b": 1}} tail') == {"a": {"b": 1}}
    assert first_json_object('{"a": 1,') == {"a": 1}
    assert first_json_object("nothing") is None
    assert stable_hash({"x": 1, "y": [1, 2]}) == stable_hash({"y": [1, 2], "x": 1})
    assert GenerationResult().summary() == {}
