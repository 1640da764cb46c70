"""Scripted dialogues pinning down turns, visibility, endings, seeding and rendering."""

from __future__ import annotations

import pytest

import sotopia_tom_env
from sotopia_tom_env import AgentAction

SPEAK = AgentAction.speak
NONE = AgentAction.none()
LEAVE = AgentAction.leave()


@pytest.fixture
def env():
    e = sotopia_tom_env.parallel_env(scenarios="tiny")
    e.reset(seed=0, options={"scenario": "tiny-3-agents"})
    return e


def play(env, *actions):
    """Give each action to whoever's turn it is; return the last step's outputs."""
    out = None
    for act in actions:
        out = env.step({a: act for a in env.acting_agents()})
    return out


def test_reset_gives_every_agent_its_brief_and_a_mask(env):
    obs, infos = env.reset(options={"scenario": "tiny-3-agents"})
    assert env.agents == ["agent_0", "agent_1", "agent_2"]
    assert "You are Chief Nursing Officer (agent_0)" in obs["agent_0"]["text"]
    assert "It is your turn" in obs["agent_0"]["text"]
    assert "It is Chief Nursing Officer's turn" in obs["agent_1"]["text"]
    assert obs["agent_0"]["action_mask"].tolist() == [
        1,
        1,
        1,
        0,
        1,
        1,
        0,
        0,
    ]  # 5-agent set: slots 3-4 unused
    assert obs["agent_1"]["action_mask"].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert infos["agent_2"]["role"] == "IT Security Lead"


def test_round_robin_order_and_out_of_turn_actions_are_ignored(env):
    assert env.acting_agents() == ["agent_0"]
    env.step({"agent_0": SPEAK("first"), "agent_1": SPEAK("not my turn")})
    assert [m.text for m in env.transcript.messages] == ["first"]
    assert env.acting_agents() == ["agent_1"]
    play(env, SPEAK("second"), SPEAK("third"))
    assert env.acting_agents() == ["agent_0"]
    assert [m.id for m in env.transcript.messages] == ["R0.1", "R0.2", "R0.3"]


def test_direct_message_reaches_only_sender_and_recipient(env):
    obs, _, _, _, infos = play(env, SPEAK("budget is 777", to=["Finance Director"]))
    assert "budget is 777" in obs["agent_0"]["text"] and "budget is 777" in obs["agent_1"]["text"]
    assert "budget is 777" not in obs["agent_2"]["text"]
    assert infos["agent_2"]["new_messages"] == []
    assert infos["agent_1"]["new_messages"][0]["recipient_roles"] == ("Finance Director",)


def test_leavers_are_skipped_and_two_leaves_end_a_three_agent_episode(env):
    _, _, terms, _, _ = play(env, LEAVE)
    assert not any(terms.values())
    assert env.acting_agents() == ["agent_1"]
    play(env, SPEAK("hello"), SPEAK("hi"))
    assert env.acting_agents() == ["agent_1"]  # agent_0 has left, so its turn is skipped
    _, _, terms, truncs, _ = play(env, LEAVE)
    assert all(terms.values()) and not any(truncs.values())
    assert env.agents == []
    assert (
        env.transcript.messages[0].line()
        == "[R0.1] Chief Nursing Officer (leave, public): left the conversation"
    )


def test_left_agent_can_only_wait(env):
    obs, *_ = play(env, LEAVE)
    assert obs["agent_0"]["action_mask"].tolist()[:3] == [1, 0, 0]
    assert "You have left the conversation" in obs["agent_0"]["text"]


def test_stale_conversation_terminates_after_more_than_max_stale_turns(env):
    for _ in range(4):
        _, _, terms, _, _ = play(env, NONE)
        assert not any(terms.values())
    _, _, terms, _, _ = play(env, NONE)
    assert all(terms.values())


def test_speaking_resets_the_stale_count(env):
    play(env, NONE, NONE, NONE, NONE, SPEAK("still here"), NONE, NONE, NONE, NONE)
    assert env.agents


def test_truncation_at_max_turns():
    env = sotopia_tom_env.parallel_env(scenarios="tiny", max_turns=5)
    env.reset(options={"scenario": "tiny-4-agents"})
    for i in range(5):
        _, _, terms, truncs, _ = env.step({a: SPEAK(f"m{i}") for a in env.acting_agents()})
    assert all(truncs.values()) and not any(terms.values())
    assert env.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})


def test_simultaneous_order_lets_everyone_act_in_one_block():
    env = sotopia_tom_env.parallel_env(scenarios="tiny", turn_order="simultaneous")
    env.reset(options={"scenario": "tiny-3-agents"})
    obs, *_ = env.step(
        {
            "agent_0": SPEAK("a"),
            "agent_1": NONE,
            "agent_2": SPEAK("c", to=["Chief Nursing Officer"]),
        }
    )
    assert [m.id for m in env.transcript.messages] == ["R0.1", "R0.2"]
    assert "c" in infos_text(obs, "agent_0") and obs["agent_1"]["action_mask"][1] == 1


def infos_text(obs, agent):
    return obs[agent]["text"].split("## Conversation")[1]


def test_options_scenario_by_id_object_and_unknown(tiny):
    env = sotopia_tom_env.parallel_env(scenarios="tiny")
    env.reset(options={"scenario": "tiny-5-agents"})
    assert len(env.agents) == 5
    env.reset(options={"scenario": tiny[0]})
    assert env.scenario.id == "tiny-3-agents"
    with pytest.raises(ValueError, match="unknown scenario 'nope'"):
        env.reset(options={"scenario": "nope"})


def test_bigger_scenario_than_the_env_supports_is_refused(tiny):
    env = sotopia_tom_env.parallel_env(scenarios=[tiny[0]])
    with pytest.raises(ValueError, match="5 agents"):
        env.reset(options={"scenario": tiny[2]})


def test_seeded_sampling_is_reproducible_and_covers_the_set():
    env = sotopia_tom_env.parallel_env(scenarios="tiny")
    picks = []
    for seed in range(12):
        env.reset(seed=seed)
        picks.append(env.scenario.id)
    again = []
    for seed in range(12):
        env.reset(seed=seed)
        again.append(env.scenario.id)
    assert picks == again
    assert len(set(picks)) == 3


def test_same_seed_and_actions_give_the_same_episode():
    def run():
        env = sotopia_tom_env.parallel_env(scenarios="tiny")
        env.reset(seed=7)
        for i in range(6):
            env.step({a: SPEAK(f"msg {i}", to=[]) for a in env.acting_agents()})
        return env.transcript.model_dump()

    assert run() == run()


def test_unknown_agent_in_actions_is_a_programmer_error(env):
    with pytest.raises(ValueError, match="agent_7"):
        env.step({"agent_7": NONE})


def test_bad_constructor_argument_names_the_field():
    with pytest.raises(ValueError, match="max_turns"):
        sotopia_tom_env.parallel_env(max_turns=0)
    with pytest.raises(ValueError, match="turn_ordr"):
        sotopia_tom_env.parallel_env(turn_ordr="simultaneous")


def test_render_modes(capsys):
    env = sotopia_tom_env.parallel_env(scenarios="tiny", render_mode="ansi")
    env.reset(options={"scenario": "tiny-3-agents"})
    play(env, SPEAK("public hello"), SPEAK("dm", to=["IT Security Lead"]))
    text = env.render()
    assert "[SCENARIO] id=tiny-3-agents" in text and "private to=IT Security Lead" in text
    human = sotopia_tom_env.parallel_env(scenarios="tiny", render_mode="human")
    human.reset(options={"scenario": "tiny-3-agents"})
    play(human, SPEAK("shown live"))
    assert "shown live" in capsys.readouterr().out


def test_turn_log_records_every_acting_turn(env):
    play(env, SPEAK("x"), "garbage", NONE)
    assert [(t["agent"], t["action_type"], bool(t["error"])) for t in env.turn_log] == [
        ("agent_0", "speak", False),
        ("agent_1", "none", True),
        ("agent_2", "none", False),
    ]
