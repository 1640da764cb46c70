"""The hostile-input corpus, replayed through ``parse_action`` and through ``env.step``.

Cases live in ``tests/data/hostile_inputs.jsonl``, one per line: ``id``, ``why``, the input
(``text``: a string or a list of parts, where a part ``[s, n]`` stands for ``s * n``;
``bytes_hex``; or ``action``: any JSON value passed as is) and the expected outcome (``expect``:
``error`` with a fragment of the reason in ``error``, or a valid ``speak`` / ``none`` /
``leave``, with ``to`` and optionally ``argument`` for a speak). Inputs that JSON cannot hold
(numpy values, objects that raise, recursive containers, huge Python objects) are built in
:data:`PY_CASES` below.

Every case must parse without an exception, within :data:`BOUND_S` of CPU time (loose; the
calling thread's CPU time, so that neither other jobs on a busy machine nor the idle spinning of
threads that earlier tests left in the worker (torch's OpenMP pool) count;
the 50 ms goal is reported by ``test_corpus_parse_time``, run with ``-s`` to see the figures,
or ``python tests/test_hostile.py``), and the env must record the same outcome in ``infos``
and the transcript.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel

import sotopia_tom_env
from sotopia_tom_env.actions import AgentAction, parse_action
from sotopia_tom_env.routing import Roster

CORPUS = Path(__file__).parent / "data" / "hostile_inputs.jsonl"
ROLES = ["Chief Nursing Officer", "Finance Director", "IT Security Lead"]  # tiny-3-agents
ROSTER = Roster(ROLES)
SENDER = "agent_0"
MAX_CHARS = 2000  # the env's default message limit
BOUND_S = 1.0
GOAL_S = 0.05


@dataclass
class Case:
    """One hostile input and what parsing it must give."""

    id: str
    why: str
    make: Any  # a zero-argument callable building the input (fresh for every use)
    expect: str
    error: str | None = None
    to: list[str] | None = None
    argument: str | None = None


def _text(parts: str | list[Any]) -> str:
    if isinstance(parts, str):
        return parts
    return "".join(p if isinstance(p, str) else p[0] * p[1] for p in parts)


def _input_builder(rec: dict[str, Any]) -> Any:
    if "text" in rec:
        text = _text(rec["text"])
        return lambda: text
    if "bytes_hex" in rec:
        data = bytes.fromhex(rec["bytes_hex"])
        return lambda: data
    value = json.dumps(rec["action"])
    return lambda: json.loads(value)  # a fresh copy: parsing must not rely on it being unused


def load_corpus() -> list[Case]:
    """The JSONL cases."""
    cases = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        cases.append(
            Case(
                id=rec["id"],
                why=rec["why"],
                make=_input_builder(rec),
                expect=rec["expect"],
                error=rec.get("error"),
                to=rec.get("to"),
                argument=rec.get("argument"),
            )
        )
    return cases


# -- inputs JSON cannot hold ---------------------------------------------------------------------


class Raising:
    """An object whose str, repr, comparison, length and iteration all raise."""

    def __str__(self) -> str:
        raise RuntimeError("__str__")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__")

    def __hash__(self) -> int:  # hashable, so it can be a dict key
        return 7

    def __len__(self) -> int:
        raise RuntimeError("__len__")

    def __iter__(self) -> Iterator[Any]:
        raise RuntimeError("__iter__")


class RaisingStr(str):
    """A string whose own methods all raise."""

    __slots__ = ()

    def strip(self, *a: Any) -> str:
        raise RuntimeError("strip")

    def lower(self) -> str:
        raise RuntimeError("lower")

    def replace(self, *a: Any) -> str:
        raise RuntimeError("replace")

    def __str__(self) -> str:
        raise RuntimeError("__str__")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__")


class RaisingMapping(Mapping[str, Any]):
    """A mapping that claims fields and raises on access."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("__getitem__")

    def __iter__(self) -> Iterator[str]:
        return iter(["action_type", "argument", "to"])

    def __len__(self) -> int:
        return 3


class OtherModel(BaseModel):
    """A pydantic model that is not an AgentAction."""

    action_type: str = "speak"


def _deep_list(depth: int, leaf: Any = "Finance Director") -> Any:
    out = leaf
    for _ in range(depth):
        out = [out]
    return out


def _deep_dict(depth: int) -> Any:
    out: Any = "speak"
    for _ in range(depth):
        out = {"a": out}
    return out


def _recursive_list() -> list[Any]:
    x: list[Any] = []
    x.append(x)
    return x


def _recursive_dict() -> dict[str, Any]:
    x: dict[str, Any] = {}
    x["self"] = x
    return x


def _speak(**kw: Any) -> dict[str, Any]:
    return {"action_type": "speak", "argument": "hi", "to": [], **kw}


def _space(**kw: Any) -> dict[str, Any]:
    return {"action_type": np.int64(1), "argument": "hi", "to": np.zeros(3, np.int8), **kw}


def _bits(*bits: int, dtype: Any = np.int8) -> np.ndarray:
    return np.array(bits, dtype=dtype)


PY_TABLE: list[tuple[str, Any, str, str | None, list[str] | None]] = [
    # (id, builder, expect, error fragment, recipients)
    ("none", lambda: None, "none", None, None),
    ("nan-to", lambda: _speak(to=float("nan")), "error", "'to' must be a list of role names", None),
    (
        "inf-argument",
        lambda: _speak(argument=float("inf")),
        "error",
        "argument must be a string",
        None,
    ),
    ("np-str-array-to", lambda: _speak(to=np.array(["a"])), "error", "'to' array must be", None),
    (
        "np-array-type",
        lambda: _speak(action_type=np.array([1, 2])),
        "error",
        "action_type must be",
        None,
    ),
    ("np-0d-type", lambda: _speak(action_type=np.array(1)), "speak", None, []),
    (
        "np-float-type",
        lambda: _speak(action_type=np.float64(1)),
        "error",
        "action_type must be",
        None,
    ),
    (
        "np-nan-type",
        lambda: _speak(action_type=np.float64("nan")),
        "error",
        "action_type must be",
        None,
    ),
    (
        "np-bool-type",
        lambda: _speak(action_type=np.bool_(True)),
        "error",
        "action_type must be",
        None,
    ),
    ("np-uint-type", lambda: _speak(action_type=np.uint8(2)), "leave", None, None),
    ("np-huge-type", lambda: _speak(action_type=np.int64(2**62)), "error", "out of range", None),
    ("space-sample-public", lambda: _space(), "speak", None, []),
    ("space-sample-dm", lambda: _space(to=_bits(0, 1, 1)), "speak", None, ["agent_1", "agent_2"]),
    ("space-bool-bits", lambda: _space(to=_bits(0, 0, 1, dtype=bool)), "speak", None, ["agent_2"]),
    (
        "space-float-bits",
        lambda: _space(to=_bits(0, 1, 0, dtype=float)),
        "error",
        "dtype float64",
        None,
    ),
    (
        "space-nan-bits",
        lambda: _space(to=np.array([np.nan, 1.0])),
        "error",
        "'to' array must be",
        None,
    ),
    ("space-2d-bits", lambda: _space(to=np.ones((3, 3), np.int8)), "error", "shape (3, 3)", None),
    ("space-0d-bits", lambda: _space(to=np.array(1)), "error", "shape ()", None),
    ("space-bit-of-2", lambda: _space(to=_bits(0, 2, 0)), "error", "to[1] must be a 0/1 bit", None),
    (
        "space-negative-bit",
        lambda: _space(to=_bits(0, -1, 0)),
        "error",
        "to[1] must be a 0/1 bit",
        None,
    ),
    ("space-self-bit", lambda: _space(to=_bits(1, 0, 0)), "error", "sender itself", None),
    (
        "space-million-bits",
        lambda: _space(to=np.zeros(10**6, np.int8)),
        "error",
        "at most 64",
        None,
    ),
    ("space-object-array", lambda: _space(to=np.array([Raising()])), "error", "dtype object", None),
    ("space-type-str-bits", lambda: _speak(to=_bits(0, 1, 0)), "speak", None, ["agent_1"]),
    (
        "raising-argument",
        lambda: _speak(argument=Raising()),
        "error",
        "argument must be a string",
        None,
    ),
    ("raising-type", lambda: _speak(action_type=Raising()), "error", "unprintable Raising", None),
    ("raising-to", lambda: _speak(to=Raising()), "error", "'to' must be a list", None),
    (
        "raising-to-entry",
        lambda: _speak(to=[Raising()]),
        "error",
        "to[0] must be a role name",
        None,
    ),
    ("raising-key", lambda: {Raising(): 1}, "error", "field names must be strings", None),
    ("raising-action", lambda: Raising(), "error", "unsupported action of type Raising", None),
    ("raising-mapping", lambda: RaisingMapping(), "error", "unreadable action", None),
    ("raising-str-argument", lambda: _speak(argument=RaisingStr(" hi ")), "speak", None, []),
    ("raising-str-type", lambda: _speak(action_type=RaisingStr("speak")), "speak", None, []),
    (
        "raising-str-name",
        lambda: _speak(to=[RaisingStr("Finance Director")]),
        "speak",
        None,
        ["agent_1"],
    ),
    ("raising-str-text", lambda: RaisingStr('{"action_type": "leave"}'), "leave", None, None),
    (
        "tuple-key",
        lambda: {("action_type",): "speak"},
        "error",
        "field names must be strings",
        None,
    ),
    ("bytes-key", lambda: {b"action_type": "speak"}, "error", "field names must be strings", None),
    ("int-key", lambda: {1: "speak"}, "error", "field names must be strings, got int 1", None),
    ("set-to", lambda: _speak(to={"Finance Director"}), "error", "got set", None),
    ("frozenset-to", lambda: _speak(to=frozenset()), "error", "got frozenset", None),
    ("generator-to", lambda: _speak(to=(n for n in ["x"])), "error", "got generator", None),
    ("range-to", lambda: _speak(to=range(3)), "error", "got range", None),
    ("tuple-to", lambda: _speak(to=("Finance Director",)), "speak", None, ["agent_1"]),
    ("np-str-name", lambda: _speak(to=[np.str_("IT Security Lead")]), "speak", None, ["agent_2"]),
    ("bytes-name", lambda: _speak(to=[b"Finance Director"]), "error", "got bytes", None),
    ("recursive-to", _recursive_list, "error", "unsupported action of type list", None),
    ("recursive-to-field", lambda: _speak(to=_recursive_list()), "error", "to[0] must be", None),
    ("recursive-argument", lambda: _speak(argument=_recursive_dict()), "error", "got dict", None),
    ("deep-list-to", lambda: _speak(to=_deep_list(100_000)), "error", "to[0] must be", None),
    ("deep-dict-type", lambda: _speak(action_type=_deep_dict(100_000)), "error", "got dict", None),
    ("million-names", lambda: _speak(to=["Finance Director"] * 10**6), "error", "at most 64", None),
    ("argument-10mb", lambda: _speak(argument="y" * 10**7), "error", "10000000 characters", None),
    ("name-10mb", lambda: _speak(to=["F" * 10**7]), "error", "names are at most 256", None),
    ("type-10mb", lambda: _speak(action_type="s" * 10**7), "error", "unknown action_type", None),
    ("key-10mb", lambda: {"k" * 10**7: 1}, "error", "unexpected field(s)", None),
    ("many-keys", lambda: {f"k{i}": i for i in range(10**5)}, "error", "more", None),
    ("bytes-10mb", lambda: b"{" * 10**7, "error", "10000000 bytes", None),
    ("bytearray", lambda: bytearray(b'{"action_type": "none"}'), "none", None, None),
    (
        "memoryview",
        lambda: memoryview(b"{}"),
        "error",
        "unsupported action of type memoryview",
        None,
    ),
    ("huge-int-action", lambda: 10**5000, "error", "unsupported action of type int", None),
    ("ellipsis", lambda: ..., "error", "unsupported action of type ellipsis", None),
    ("class-action", lambda: dict, "error", "unsupported action of type type", None),
    ("function-action", lambda: print, "error", "unsupported action", None),
    ("other-model", lambda: OtherModel(), "error", "unsupported action of type OtherModel", None),
    (
        "constructed-agent-action",
        lambda: AgentAction.model_construct(action_type="speak", argument=123, to="x"),
        "error",
        "argument must be a string",
        None,
    ),
    (
        "agent-action-dm",
        lambda: AgentAction.speak("hi", ["IT Security Lead"]),
        "speak",
        None,
        ["agent_2"],
    ),
]

PY_CASES = [
    Case(
        id=f"py-{i}",
        why=f"a Python value JSON cannot hold: {i}",
        make=make,
        expect=exp,
        error=err,
        to=to,
    )
    for i, make, exp, err, to in PY_TABLE
]
CASES = load_corpus() + PY_CASES


def check_outcome(case: Case, action: Any, error: str | None) -> None:
    """Assert that a parse gave the case's expected outcome."""
    if case.expect == "error":
        assert action.action_type == "none", (case.id, action)
        assert error is not None and case.error in error, (case.id, error)
        assert len(error) < 1000, (case.id, len(error))
        return
    assert error is None, (case.id, error)
    assert action.action_type == case.expect, (case.id, action)
    if case.expect == "speak":
        assert list(action.recipients) == case.to, (case.id, action.recipients)
        if case.argument is not None:
            assert action.argument == case.argument, (case.id, action.argument)


@contextmanager
def no_collection() -> Iterator[None]:
    """Time a call without the garbage collector.

    A collection of a worker's whole heap (gigabytes after the model tests) is charged to
    whichever call triggers it: seconds of CPU that are not the call's own.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def timed_parse(case: Case) -> tuple[Any, str | None, float]:
    """Parse the case's input once; the seconds it took exclude building the input."""
    raw = case.make()
    with no_collection():
        t0 = time.thread_time()
        action, error = parse_action(raw, SENDER, ROSTER, MAX_CHARS)
        return action, error, time.thread_time() - t0


def test_corpus_size_and_ids():
    assert len(CASES) >= 150
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert all(c.why for c in CASES)
    assert {c.expect for c in CASES} == {"error", "speak", "none", "leave"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_parse_action_outcome(case):
    action, error, seconds = timed_parse(case)
    check_outcome(case, action, error)
    assert seconds < BOUND_S, (case.id, seconds)


@pytest.fixture(scope="module")
def env():
    return sotopia_tom_env.parallel_env(scenarios="tiny")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_env_step_outcome(env, case):
    env.reset(options={"scenario": "tiny-3-agents"})
    speaker = env.acting_agents()[0]
    assert (speaker, env.roster.roles) == (SENDER, ROLES)
    raw = case.make()
    with no_collection():
        t0 = time.thread_time()
        _, _, _, _, infos = env.step({speaker: raw})
        took = time.thread_time() - t0
    assert took < BOUND_S, case.id
    error = infos[speaker].get("action_error")
    log = env.turn_log[-1]
    assert (log["agent"], log["action_type"]) == (speaker, "none" if error else case.expect)
    if case.expect == "error":
        assert error is not None and case.error in error, (case.id, error)
        assert env.transcript.messages == []
    elif case.expect == "speak":
        assert error is None, (case.id, error)
        (message,) = env.transcript.messages
        assert (message.sender, list(message.recipients)) == (speaker, case.to)
        if case.argument is not None:
            assert message.text == case.argument
    else:
        assert error is None, (case.id, error)


def test_corpus_parse_time():
    """Report the slowest parse over the corpus (best of 3 runs each) against the 50 ms goal."""
    times = {}
    for case in CASES:
        times[case.id] = min(timed_parse(case)[2] for _ in range(3))
    slowest = sorted(times.items(), key=lambda kv: -kv[1])[:5]
    print(
        f"\nhostile corpus: {len(CASES)} inputs; max parse {slowest[0][1] * 1000:.2f} ms "
        f"({slowest[0][0]}); goal {GOAL_S * 1000:.0f} ms; slowest: "
        + ", ".join(f"{k} {v * 1000:.2f} ms" for k, v in slowest)
    )
    assert slowest[0][1] < BOUND_S


if __name__ == "__main__":
    test_corpus_parse_time()
