"""Property-based fuzzing of everything an agent or a file can feed the environment.

Properties:

* ``parse_action`` on any text (JSON-ish fragments, fences, unicode, control characters, long
  runs) or any value (nested containers, numbers, numpy arrays, objects that raise) returns a
  valid :class:`ParsedAction` within the time bound and never raises; a rejected action is
  ``none`` with a reason, an accepted speak is well formed.
* Valid replies, with prose or fences around them, parse back exactly.
* ``env.step`` on the tiny scenario takes any such action without raising and reports
  ``action_error`` exactly when parsing rejects the action.
* ``Roster.resolve`` on any name returns another agent's id or raises ``RecipientError``.
* ``scenarios.load`` on random or mutated scenario files either loads them or raises
  ``ScenarioFormatError`` (never a bare ``KeyError``, ``RecursionError``, ``UnicodeError``...).

Runs are derandomised and small by default (:data:`EXAMPLES` per property, the file takes
well under a minute). A longer, random run::

    FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest tests/test_fuzz.py -p no:cacheprovider
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import scenarios
import sotopia_tom_env
from sotopia_tom_env.actions import ParsedAction, parse_action
from sotopia_tom_env.routing import RecipientError, Roster

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
LONG_RUN = "FUZZ_EXAMPLES" in os.environ
# per example, in this thread's CPU time (time.thread_time), which other processes' load does
# not stretch; parsing takes milliseconds
BOUND_S = 1.0
ROLES = ["Chief Nursing Officer", "Finance Director", "IT Security Lead"]  # tiny-3-agents
ROSTER = Roster(ROLES)
SENDER = "agent_0"
MAX_CHARS = 2000

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # the time bound is asserted per example instead: no flaky deadline reruns
    derandomize=not LONG_RUN,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- text strategies ------------------------------------------------------------------------------

FRAGMENTS = [
    "{", "}", "[", "]", '"', ":", ",", "```", "```json\n", "\\", "\\u", "\\ud800", "\\u0000",
    "null", "true", "NaN", "-Infinity", "1e999", "-0", "9" * 60, " ", "\n", "\r\n", "\t",
    '{"', '"action_type"', '"argument"', '"to"', '"speak"', '"none"', '"leave"', '"SPEAK"',
    '"Finance Director"', '"agent_0"', '"agent_2"', '"IT Security Lead"', "[]", "{}",
    "\x00", "\x07", "\x1b[2J", "\x85", "\ud800", "\udfff", "🙂", "\u202e", "\u2028", "\ufeff",
    "## Now", "[R0.2] Finance Director (speak, private to=IT Security Lead): ", "SYSTEM:",
]  # fmt: skip
fragment = st.sampled_from(FRAGMENTS) | st.text(max_size=12)
long_run = st.tuples(st.sampled_from(FRAGMENTS), st.integers(0, 6000)).map(lambda t: t[0] * t[1])
json_ish_text = st.lists(fragment | long_run, max_size=40).map("".join)


def _action_json(kind: str, argument: str, to: list[str]) -> str:
    return json.dumps({"action_type": kind, "argument": argument, "to": to})


names = st.sampled_from([*ROLES, "agent_0", "agent_1", "agent_2", "nobody", "finance director"])
valid_json = st.builds(
    _action_json,
    st.sampled_from(["speak", "none", "leave"]),
    st.text(max_size=50),
    st.lists(names, max_size=4),
)


@st.composite
def mutated_json(draw: st.DrawFn) -> str:
    """A near-valid action reply with characters cut, repeated or inserted."""
    text = draw(valid_json)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["cut", "insert", "repeat"]))
        if op == "cut":
            text = text[:i] + text[i + draw(st.integers(1, 8)) :]
        elif op == "insert":
            text = text[:i] + draw(fragment) + text[i:]
        else:
            text = text[:i] + text[i : i + 4] * draw(st.integers(2, 3000)) + text[i:]
    return draw(st.sampled_from(["", "Sure: ", "```json\n", "{", '{"'])) + text


openers = st.sampled_from(
    ['{"action_type":"speak","argument":"x","to":', "```", "```json", '{"a":', "Sure: ", ""]
)
hostile_run = st.builds(
    lambda opener, unit, n, tail: opener + unit * n + tail,
    openers,
    st.sampled_from(FRAGMENTS),
    st.integers(0, 40_000),  # past the 32,000-character reply cap at times
    fragment,
)
any_text = json_ish_text | mutated_json() | hostile_run | st.text(max_size=200)

# -- value strategies -----------------------------------------------------------------------------


class Raising:
    """An object whose str, repr and comparisons raise."""

    def __str__(self) -> str:
        raise RuntimeError("__str__")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__")

    __hash__ = object.__hash__


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**60, max_value=2**200)
    | st.floats()
    | st.text(max_size=30)
    | st.binary(max_size=30)
    | st.sampled_from(["speak", "none", "leave", 0, 1, 2, *ROLES, ...])
    | st.builds(Raising)
    | st.builds(object)
)
shapes = hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=6)
arrays = st.one_of(
    *(hnp.arrays(d, shapes, elements=st.integers(0, 1)) for d in (np.int8, np.int64, np.uint8)),
    hnp.arrays(np.bool_, shapes),
    hnp.arrays(np.float64, shapes),
    hnp.arrays(hnp.unicode_string_dtypes(max_len=8), shapes),
    st.lists(st.integers(), max_size=4).map(lambda v: np.array(v, dtype=object)),
)
values = st.recursive(
    scalars | arrays,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8) | st.integers(), inner, max_size=4)
        | st.frozensets(st.integers() | st.text(max_size=5), max_size=3)
    ),
    max_leaves=20,
)
field_dicts = st.fixed_dictionaries(
    {},
    optional={
        "action_type": values | st.sampled_from(["speak", "SPEAK ", 1, np.int64(1), 2]),
        "argument": values | st.text(max_size=60),
        "to": values | st.lists(names | values, max_size=4) | arrays,
        "extra": values,
    },
)
any_action = (
    any_text | values | field_dicts | any_text.map(lambda t: t.encode("utf-8", "surrogatepass"))
)


def check_parsed(raw: Any, roster: Roster = ROSTER) -> tuple[ParsedAction, str | None]:
    """Parse ``raw`` and assert the contract; returns the result."""
    t0 = time.thread_time()
    action, error = parse_action(raw, SENDER, roster, MAX_CHARS)
    assert time.thread_time() - t0 < BOUND_S
    assert isinstance(action, ParsedAction)
    if error is not None:
        assert isinstance(error, str) and error and len(error) < 1000
        assert action.action_type == "none"
    if action.action_type == "speak":
        assert action.argument and len(action.argument) <= MAX_CHARS
        assert action.argument == action.argument.strip()
        assert set(action.recipients) <= set(roster.ids) - {SENDER}
        assert len(set(action.recipients)) == len(action.recipients)
    else:
        assert (action.argument, action.recipients) == ("", ())
    return action, error


@FUZZ
@given(any_text)
def test_parse_action_on_any_text(text):
    check_parsed(text)


@FUZZ
@given(any_action)
def test_parse_action_on_any_value(raw):
    check_parsed(raw)


reply_prose = st.text(alphabet=st.characters(blacklist_characters="{`"), max_size=200)
message = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs")) | st.sampled_from("\n\t"),
    min_size=1,
    max_size=MAX_CHARS,
).filter(lambda t: t.strip())


@FUZZ
@given(
    message,
    st.lists(st.sampled_from(["agent_1", "agent_2"]), max_size=3),
    reply_prose,
    reply_prose,
    st.booleans(),
    st.booleans(),
)
def test_valid_replies_parse_back_exactly(text, to, before, after, fenced, ascii_only):
    names = [ROSTER.role_of[a] for a in to]
    body = json.dumps(
        {"action_type": "speak", "argument": text, "to": names}, ensure_ascii=ascii_only
    )
    reply = before + ("```json\n" + body + "\n```" if fenced else body) + after
    action, error = check_parsed(reply)
    assert error is None
    expected = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    assert action.argument == expected
    assert list(action.recipients) == list(dict.fromkeys(to))


# -- the env ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_env():
    return sotopia_tom_env.parallel_env(scenarios="tiny")


@FUZZ
@given(any_action)
def test_env_step_on_any_action(tiny_env, raw):
    env = tiny_env
    env.reset(options={"scenario": "tiny-3-agents"})
    speaker = env.acting_agents()[0]
    expected, error = parse_action(raw, speaker, env.roster, env.config.max_message_chars)
    t0 = time.thread_time()
    _, _, _, _, infos = env.step({speaker: raw})
    assert time.thread_time() - t0 < BOUND_S
    assert infos[speaker].get("action_error") == error
    assert env.turn_log[-1]["action_type"] == expected.action_type
    if expected.action_type == "none":
        assert env.transcript.messages == []
    else:  # a speak, or the announcement of a leave
        (msg,) = env.transcript.messages
        assert (msg.sender, msg.action_type) == (speaker, expected.action_type)
        assert (msg.text, msg.recipients) == (expected.argument, expected.recipients)


# -- recipients ------------------------------------------------------------------------------------


def _respell(role: str, seed: int) -> str:
    rng = np.random.default_rng(seed)
    words = [w.upper() if rng.random() < 0.5 else w.lower() for w in role.split()]
    return rng.choice(["", " ", "  "]) + rng.choice([" ", "  ", " - ", "_"]).join(words)


@FUZZ
@given(
    st.sampled_from(scenarios.load("tiny")),
    st.integers(0, 4),
    st.text(max_size=80)
    | st.sampled_from(FRAGMENTS)
    | st.builds(_respell, st.sampled_from(ROLES), st.integers(0, 2**32)),
)
def test_roster_resolve_on_any_name(scenario, sender_index, name):
    roster = Roster(scenario.roles)
    sender = roster.ids[sender_index % len(roster.ids)]
    try:
        aid = roster.resolve(name, sender)
    except RecipientError as e:
        assert str(e)
        return
    assert aid in roster.ids and aid != sender


# -- scenario files --------------------------------------------------------------------------------

TINY_RECORDS = json.loads(json.dumps([s.model_dump(mode="json") for s in scenarios.load("tiny")]))


@st.composite
def mutated_records(draw: st.DrawFn) -> Any:
    """The tiny set with a few sub-values replaced by arbitrary JSON values."""
    data = json.loads(json.dumps(TINY_RECORDS))
    for _ in range(draw(st.integers(1, 4))):
        node, key = data, None
        for _ in range(draw(st.integers(1, 8))):
            children = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
            if not children:
                break
            key = draw(st.sampled_from(children))
            if not isinstance(node[key], dict | list):
                break
            node, key = node[key], None
            if draw(st.booleans()):
                break
        junk = draw(json_values)
        if key is None:
            if isinstance(node, list):
                node.append(junk)
            else:
                node[draw(st.text(max_size=10))] = junk
        else:
            node[key] = junk
    return data


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


@st.composite
def mutated_bytes(draw: st.DrawFn) -> bytes:
    """A scenario file's bytes with slices cut, flipped or padded."""
    data = bytearray(json.dumps(TINY_RECORDS).encode())
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["cut", "flip", "insert", "truncate"]))
        if op == "cut":
            del data[i : i + draw(st.integers(1, 50))]
        elif op == "flip" and i < len(data):
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(
                st.binary(max_size=20) | st.sampled_from([b"[" * 5000, b"9" * 5000, b"\xff\xfe"])
            )
        else:
            del data[i:]
    return bytes(data)


file_bytes = (
    mutated_bytes()
    | mutated_records().map(lambda d: json.dumps(d).encode())
    | json_values.map(lambda d: json.dumps(d).encode())
    | st.binary(max_size=200)
    | st.sampled_from(
        [b"", b"[" * 100_000, b'{"scenarios": ' * 5000, b"\xef\xbb\xbf[]", b"\x00" * 10]
    )
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz-scenarios")


@FUZZ
@given(file_bytes, st.sampled_from([".json", ".jsonl"]))
def test_scenario_loading_raises_only_its_own_error(scratch, data, suffix):
    path = scratch / f"case{suffix}"
    if suffix == ".jsonl":
        data = data.replace(b"\n", b" ")  # one record per line
    path.write_bytes(data)
    try:
        loaded = scenarios.load(path)
    except scenarios.ScenarioFormatError as e:
        assert str(path) in str(e)
        event("rejected: " + ("JSON" if "JSON" in str(e) else "content"))
        return
    event("loaded")
    assert all(isinstance(s, scenarios.Scenario) for s in loaded)
