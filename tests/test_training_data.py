import json
import re

import pytest

import scenarios
from policies.prompts import action_prompt
from sotopia_tom_env import Roster, parse_action
from training.data import MixConfig, build_sft_dataset, kind_counts, mix, turn_examples
from training.separation import GoldLeak, assert_disjoint_from_gold, closest_gold


@pytest.fixture(scope="module")
def silver():
    return scenarios.load("silver")


@pytest.fixture(scope="module")
def rows(silver):
    return turn_examples(silver[:12])


def test_every_silver_scenario_is_far_from_gold(silver):
    assert_disjoint_from_gold(silver)
    assert max(closest_gold(s)[1] for s in silver) < 0.3


def test_gold_is_refused_by_id_and_as_a_near_duplicate():
    gold = scenarios.load("gold")[7]
    with pytest.raises(GoldLeak, match="same id"):
        assert_disjoint_from_gold([gold])
    # a renamed copy with a reworded goal is still caught by its text
    copy = gold.model_copy(update={"scenario_id": "silver-x", "scenario_goal": "Decide."})
    with pytest.raises(GoldLeak, match=gold.scenario_id):
        assert_disjoint_from_gold([copy])


def test_training_data_never_reaches_gold(rows):
    gold_ids = {s.scenario_id for s in scenarios.load("gold")}
    assert rows and not {r["scenario_id"] for r in rows} & gold_ids


def test_prompts_are_the_prompted_players_and_replies_parse(rows, silver):
    by_id = {s.scenario_id: s for s in silver}
    for r in rows:
        s = by_id[r["scenario_id"]]
        role = s.roles[int(r["agent"].rsplit("_", 1)[1])]
        prompt = r["prompt"][0]["content"]
        others = [x for x in s.roles if x != role]
        assert prompt.startswith(action_prompt("basic", role, "", others).split("\n\n")[0])
        assert f"Step {r['step'] + 1} of" in prompt  # the agent's own observation of that turn
        reply = r["completion"][0]["content"]
        _, error = parse_action(reply, r["agent"], Roster(s.roles), 2000)
        assert error is None, r
        # the form structured outputs force at play time (no whitespace between JSON tokens)
        compact = json.dumps(json.loads(reply), ensure_ascii=False, separators=(",", ":"))
        assert reply == compact and reply.startswith('{"action_type":"')


def test_the_mix_stresses_the_dm_turn_and_thins_waits_and_leaves(rows):
    raw = kind_counts(rows)
    mixed = kind_counts(mix(rows, MixConfig(upweight=3, keep_none=0.0, keep_leave=0.5)))
    assert raw["share_dm"] and raw["ask_dm"] and raw["leave"]
    assert mixed["share_dm"] == 3 * raw["share_dm"] and mixed["ask_dm"] == raw["ask_dm"]
    assert mixed["none"] == 0 and mixed["share_public"] == raw["share_public"]
    assert 0 < mixed["leave"] < raw["leave"]


def test_private_items_go_by_dm_and_secrets_never_appear(rows, silver):
    by_id = {s.scenario_id: s for s in silver}
    for r in rows:
        s = by_id[r["scenario_id"]]
        me = s.agents[int(r["agent"].rsplit("_", 1)[1])]
        reply = json.loads(r["completion"][0]["content"])
        secrets = [me.pre_interaction_knowledge[n].text for n in me.goals.sharing_policy.what_not_to_share
                   if n in me.pre_interaction_knowledge]  # fmt: skip
        assert not any(v in reply["argument"] for v in secrets)
        private = [
            i.text for i in me.pre_interaction_knowledge.values() if i.sensitivity == "private"
        ]
        if any(v in reply["argument"] for v in private):
            assert reply["to"], r


def test_the_cached_set_is_reproducible(tmp_path, silver):
    config = MixConfig(seed=3)
    a = build_sft_dataset(silver[:4], config, tmp_path / "a").read_bytes()
    b = build_sft_dataset(silver[:4], config, tmp_path / "b").read_bytes()
    c = build_sft_dataset(silver[:4], MixConfig(seed=4), tmp_path / "b")
    assert a == b and c.read_bytes() != a and len(list((tmp_path / "b").iterdir())) == 2


def test_a_regenerated_scenario_with_the_same_id_is_not_served_from_the_cache(tmp_path, silver):
    config = MixConfig(seed=3)
    first = build_sft_dataset(silver[:2], config, tmp_path)
    edited = silver[1].model_copy(
        update={"scenario_goal": silver[1].scenario_goal + " Decide soon."}
    )
    second = build_sft_dataset([silver[0], edited], config, tmp_path)
    assert second != first and "Decide soon." in second.read_text()


def test_compact_examples_name_recipients_by_id(silver):
    rows = turn_examples(silver[:3], options=("compact",))
    dms = [json.loads(r["completion"][0]["content"]) for r in rows if r["kind"].endswith("_dm")]
    assert dms and all(to.startswith("agent_") for d in dms for to in d["to"])
    assert all("Say in public:" in r["prompt"][0]["content"] or "Never say:" in
               r["prompt"][0]["content"] for r in rows)  # fmt: skip


def test_the_teacher_never_asks_by_a_name_its_seat_has_not_seen(rows, silver):
    """Every fact a reply names is in its prompt: the student has something to copy."""
    for r in rows:
        reply = json.loads(r["completion"][0]["content"])
        for name in re.findall(r"Could you confirm the (.+?)\?", reply["argument"]):
            assert name in r["prompt"][0]["content"]
