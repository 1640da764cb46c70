"""Action parsing: lenient with what LLMs really send, and never raising on garbage."""

from __future__ import annotations

import time

import numpy as np
import pytest

import sotopia_tom_env
from sotopia_tom_env.actions import (
    AgentAction,
    ParsedAction,
    first_json_object,
    parse_action,
    reply_char_limit,
)
from sotopia_tom_env.routing import Roster

ROSTER = Roster(["Chief Nursing Officer", "Finance Director", "IT Security Lead"])
ME = "agent_0"  # the Chief Nursing Officer


def ok(to="[]", text="hi"):
    return f'{{"action_type": "speak", "argument": "{text}", "to": {to}}}'


MALFORMED = [
    # (raw action, a fragment the reason must contain)
    ("", "empty reply"),
    ("   \n\t", "empty reply"),
    ("I think I'll stay quiet for now.", "no valid JSON"),
    ("{not json}", "no valid JSON"),
    ('{"action_type": "speak", "argument": "hi", "to": [}', "no valid JSON"),
    ("[1, 2, 3]", "no valid JSON"),
    ('"speak"', "no valid JSON"),
    ("```json\n{broken\n```", "no valid JSON"),
    ("{'action_type': 'speak', 'argument': 'hi', 'to': []}", "no valid JSON"),
    ('{"action_type": "speak", "argument": "hi", "to": [],}', "no valid JSON"),
    (b"\xff\xfe\xfa", "no valid JSON"),
    ('{"action_type": "shout", "argument": "hi", "to": []}', "unknown action_type 'shout'"),
    ('{"action_type": 3, "argument": "hi", "to": []}', "action_type must be one of"),
    ('{"argument": "hi", "to": []}', "action_type must be one of"),
    ({"action_type": None}, "action_type must be one of"),
    ('{"action_type": "speak", "to": []}', "non-empty argument"),
    (ok(text=""), "non-empty argument"),
    (ok(text="   "), "non-empty argument"),
    ('{"action_type": "speak", "argument": 42, "to": []}', "argument must be a string"),
    ('{"action_type": "speak", "argument": ["a"], "to": []}', "argument must be a string"),
    (ok(to='["Nobody Here"]'), "unknown recipient 'Nobody Here'"),
    (ok(to='["Finance Directr"]'), "did you mean 'Finance Director'"),
    (ok(to='["Chief Nursing Officer"]'), "sender itself"),
    (ok(to='["agent_0"]'), "sender itself"),
    (ok(to='["agent_9"]'), "unknown recipient 'agent_9'"),
    (ok(to="[1]"), "to[0] must be a role name"),
    (ok(to="5"), "'to' must be a list"),
    (ok(to='{"name": "Finance Director"}'), "'to' must be a list"),
    ({"action_type": "speak", "argument": "x" * 1_000_000, "to": []}, "1000000 characters"),
    ({"action_type": "speak", "argument": "hello\x00world", "to": []}, "control characters"),
    ({"action_type": "speak", "argument": "\x07ring", "to": []}, "control characters"),
    ({"action_type": "speak", "argument": "bad \ud800 surrogate", "to": []}, "control characters"),
    (
        '{"action_type": "speak", "argument": "hi", "to": [], "reasoning": "x"}',
        "unexpected field(s) ['reasoning']",
    ),
    (
        {"action_type": "speak", "argument": "hi", "to": [], "to_all": True},
        "unexpected field(s) ['to_all']",
    ),
    (12345, "unsupported action of type int"),
    (["speak", "hi"], "unsupported action of type list"),
    (object(), "unsupported action of type object"),
    ({"action_type": np.int64(7), "argument": "hi", "to": np.zeros(3, np.int8)}, "out of range"),
    (
        {"action_type": np.int64(1), "argument": "hi", "to": np.array([1, 0, 0], np.int8)},
        "sender itself",
    ),
    (
        {"action_type": np.int64(1), "argument": "hi", "to": np.array([0, 0, 0, 0, 1], np.int8)},
        "unknown recipient 'agent_4'",
    ),
    ('Here you go: {"action_type": "speak", "argument": "", "to": []} done', "non-empty argument"),
]


@pytest.mark.parametrize(
    ("raw", "reason"), MALFORMED, ids=[f"case{i}" for i in range(len(MALFORMED))]
)
def test_malformed_action_becomes_none_with_reason(raw, reason):
    action, error = parse_action(raw, ME, ROSTER, max_chars=2000)
    assert action.action_type == "none"
    assert error is not None and reason in error, error


def test_at_least_thirty_malformed_cases():
    assert len(MALFORMED) >= 30


@pytest.mark.parametrize(
    ("raw", "kind", "recipients", "text"),
    [
        (ok(), "speak", (), "hi"),
        ("Sure! " + ok() + " Hope that helps.", "speak", (), "hi"),
        ("```json\n" + ok(to='["Finance Director"]') + "\n```", "speak", ("agent_1",), "hi"),
        (
            '{"action_type": "SPEAK", "argument": "hi", "to": "it security lead"}',
            "speak",
            ("agent_2",),
            "hi",
        ),
        (
            ok(to='["finance   DIRECTOR", "agent_2", "Finance Director"]'),
            "speak",
            ("agent_1", "agent_2"),
            "hi",
        ),
        (
            '{"action_type": "speak", "argument": "line1\r\nline2 🙂", "to": null}',
            "speak",
            (),
            "line1\nline2 🙂",
        ),
        (
            '{"action_type": "speak", "argument": "raw\nnewline", "to": []}',
            "speak",
            (),
            "raw\nnewline",
        ),
        ('{"action_type": "none", "argument": "", "to": []}', "none", (), ""),
        ('{"action_type": "leave", "argument": "bye", "to": ["nobody"]}', "leave", (), ""),
        (None, "none", (), ""),
        (AgentAction.speak("hello", to=["Finance Director"]), "speak", ("agent_1",), "hello"),
        (
            {"action_type": np.int64(1), "argument": "x", "to": np.array([0, 1, 1, 0, 0], np.int8)},
            "speak",
            ("agent_1", "agent_2"),
            "x",
        ),
    ],
)
def test_lenient_inputs_parse(raw, kind, recipients, text):
    action, error = parse_action(raw, ME, ROSTER, max_chars=2000)
    assert error is None
    assert (action.action_type, action.recipients, action.argument) == (kind, recipients, text)


def test_env_flags_malformed_actions_in_infos_and_keeps_going():
    env = sotopia_tom_env.parallel_env(scenarios="tiny")
    env.reset(options={"scenario": "tiny-3-agents"})
    for raw, _ in MALFORMED[:4]:  # a fifth silent turn would end the episode as stale
        speaker = env.acting_agents()[0]
        _, _, _, _, infos = env.step({speaker: raw})
        assert "action_error" in infos[speaker]
        assert all("action_error" not in infos[a] for a in env.agents if a != speaker)
    assert env.transcript.messages == []
    assert [t["action_type"] for t in env.turn_log] == ["none"] * 4
    assert all(t["error"] for t in env.turn_log)
    assert env.agents  # still running


def test_agent_action_schema_is_strict():
    schema = AgentAction.model_json_schema()
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"action_type", "argument", "to"}


# -- regressions: inputs that used to raise or hang ----------------------------------------------

ABC = Roster(["A", "B", "C"])


class _Unprintable:
    def __str__(self):
        raise RuntimeError("no str")

    def __repr__(self):
        raise RuntimeError("no repr")


RAISED_BEFORE = [
    # (raw action, a fragment the reason must contain)
    ('{"action_type":"speak","argument":"x","to":' + "[" * 1000, "nested too deeply"),
    ('{"action_type":"speak","argument":"x","to":[' + "9" * 4301 + "]}", "over 4300 digits"),
    ({"action_type": 1, "argument": "hi", "to": ["x"]}, "unknown recipient 'x'"),
    ({"action_type": "speak", "argument": "hi", "to": float("nan")}, "got float nan"),
    ({"action_type": "speak", "argument": "hi", "to": [2**70]}, "to[0] must be a role name"),
    ({"action_type": "speak", "argument": "hi", "to": np.array(["a"])}, "dtype <U1"),
    ({"action_type": np.array([1, 2]), "argument": "hi", "to": []}, "action_type must be one of"),
    ({"action_type": _Unprintable(), "argument": "hi", "to": []}, "unprintable _Unprintable"),
    ({"action_type": "speak", "argument": _Unprintable(), "to": []}, "argument must be a string"),
    ({"action_type": "speak", "argument": "hi", "to": [_Unprintable()]}, "to[0] must be a role"),
    ({_Unprintable(): "speak"}, "field names must be strings"),
    (b"\x00" * 10, "no valid JSON"),
    ({"action_type": "speak", "argument": "hi", "to": {"B"}}, "got set"),
    ({"action_type": "speak", "argument": "hi", "to": [[[["B"]]]]}, "to[0] must be a role"),
    ({"action_type": "speak", "argument": "hi", "to": ["B"] * 1_000_000}, "at most 64"),
    ({"action_type": "speak", "argument": "hi", "to": ["\ud800"]}, "control characters"),
    ({"action_type": "speak", "argument": "hi", "to": ["B\x00"]}, "control characters"),
    ({"action_type": np.int64(1), "argument": "hi", "to": np.array([np.nan, 1.0])}, "float64"),
    (
        {"action_type": np.int64(1), "argument": "hi", "to": np.ones((9, 9), np.int8)},
        "shape (9, 9)",
    ),
]


@pytest.mark.parametrize(
    ("raw", "reason"), RAISED_BEFORE, ids=[f"case{i}" for i in range(len(RAISED_BEFORE))]
)
def test_inputs_that_used_to_raise_become_none_with_reason(raw, reason):
    action, error = parse_action(raw, "agent_0", ABC, 2000)
    assert action.action_type == "none"
    assert error is not None and reason in error, error


SLOW_BEFORE = [
    "```" + " " * 32000 + "x",  # 14-19 s: a backtracking fence regex
    "```" + " " * 31000 + "x",  # the same, under the reply cap
    "{" * 256_000,  # 20 s
    "{" * 31_000,
    '{"' * 15_000,  # one decode attempt per fragment
    ('{"a":[' + "[]," * 300) * 30,  # attempts that each read to the end
    "x" * 10_000_000,  # never finished
    b"{" * 10_000_000,
]


@pytest.mark.parametrize("raw", SLOW_BEFORE, ids=[f"case{i}" for i in range(len(SLOW_BEFORE))])
def test_hostile_text_is_parsed_quickly(raw):
    t0 = time.thread_time()  # CPU time: other processes' load does not stretch it
    action, error = parse_action(raw, "agent_0", ABC, 2000)
    elapsed = time.thread_time() - t0
    assert action.action_type == "none" and error
    assert elapsed < 1.0, f"{elapsed:.3f} s"  # about 5 ms


def test_reply_cap_is_reported_and_scales_with_the_message_limit():
    assert reply_char_limit(2000) == 32_000 and reply_char_limit(10_000) == 160_000
    _, error = parse_action("x" * 32_001, "agent_0", ABC, 2000)
    assert "reply is 32001 characters; the limit is 32000" in error
    reply = '{"action_type": "speak", "argument": "ok", "to": []}' + " " * 40_000
    assert parse_action(reply, "agent_0", ABC, 10_000) == (
        ParsedAction(action_type="speak", argument="ok"),
        None,
    )


def test_valid_action_after_many_broken_fragments_is_still_found():
    reply = 'I tried {"x and {"y": and {"z": [1, ' * 60 + ok(to='["B"]')
    action, error = parse_action(reply, "agent_0", ABC, 2000)
    assert error is None and action.recipients == ("agent_1",)


def test_first_json_object_is_bounded():
    assert first_json_object('{"a": 1}' + " " * 40_000) is None  # over its default cap
    assert first_json_object('{"a": 1}' + " " * 40_000, max_chars=50_000) == {"a": 1}
    assert first_json_object('{"' * 15_000 + '{"a": 1}') is None  # the attempt cap ran out
    assert first_json_object("[" * 5000 + '{"a": ' + "[" * 5000) is None


def test_space_sample_to_may_be_a_list_of_bits_only_with_an_index_action_type():
    bits = {"action_type": 1, "argument": "hi", "to": [0, 1, 1]}
    assert parse_action(bits, "agent_0", ABC, 2000)[0].recipients == ("agent_1", "agent_2")
    names = {"action_type": "speak", "argument": "hi", "to": [0, 1, 1]}
    assert (
        "to[0] must be a role name string, got int 0"
        in parse_action(names, "agent_0", ABC, 2000)[1]
    )
    text = '{"action_type": 1, "argument": "hi", "to": [0, 1]}'  # an LLM must write names
    assert "action_type must be one of" in parse_action(text, "agent_0", ABC, 2000)[1]
