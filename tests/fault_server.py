"""A scripted OpenAI-compatible HTTP server that misbehaves on purpose (test-only).

It serves ``POST /v1/chat/completions`` and ``GET /v1/models`` on 127.0.0.1 and answers each
chat request with the next *fault* of its script (then with ``default``):

| fault | what the client sees |
| --- | --- |
| ``ok`` | a valid completion; with a ``json_schema`` response format, a minimal valid instance |
| ``timeout`` | nothing until ``hang_s`` has passed, then the connection closes |
| ``slow`` | a 200 whose body trickles in a byte at a time for ``hang_s`` (defeats read timeouts) |
| ``429`` | HTTP 429 with ``Retry-After`` / ``retry-after-ms`` |
| ``500`` | HTTP 500 whose body echoes the request line and ``Authorization`` header, as some proxies do |
| ``truncated`` | a 200 whose JSON body is cut off mid-way |
| ``invalid_json`` | a valid envelope whose message content is not JSON |
| ``empty_choices`` | a valid envelope with ``choices: []`` |
| ``reset`` | the TCP connection is reset without a reply |
| ``kill`` | ``reset``, then the whole server stops (``restart()`` brings it back on the same port) |

Streaming requests (``"stream": true``) get server-sent events; ``slow`` sends them slowly.
Everything is bounded: hangs end after ``hang_s`` or when the server stops, and the server
stops by itself after ``lifetime_s``. Only the standard library is used.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = (
    "ok",
    "timeout",
    "slow",
    "429",
    "500",
    "truncated",
    "invalid_json",
    "empty_choices",
    "reset",
    "kill",
)

ReplyFn = Callable[[dict[str, Any]], str | None]


class FaultServer:
    """An OpenAI-compatible server on a free loopback port, answering from a fault script.

    Args:
        script: faults for the first chat requests, in order.
        default: the fault once the script is used up.
        hang_s: how long ``timeout`` and ``slow`` last (make it longer than the client timeout).
        reply: ``body -> content`` for ``ok`` replies; ``None`` (or a None result) gives a
            minimal instance of the requested JSON schema, or a short text without one.
        lifetime_s: the server stops by itself after this long.

    Attributes:
        requests: one dict per chat request: ``fault``, ``path``, ``body`` and ``t`` (seconds
            since start).
    """

    def __init__(
        self,
        script: Iterable[str] = (),
        *,
        default: str = "ok",
        hang_s: float = 2.0,
        reply: ReplyFn | None = None,
        lifetime_s: float = 120.0,
    ) -> None:
        self.default, self.hang_s, self.reply, self.lifetime_s = default, hang_s, reply, lifetime_s
        self._script: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self.port = 0
        self.set_script(script, default=default)

    # -- control -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The base URL clients use (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        """Whether the server is accepting connections."""
        return self._httpd is not None

    def set_script(self, script: Iterable[str], *, default: str | None = None) -> None:
        """Replace the script (and optionally the default fault)."""
        faults = list(script) + ([default] if default else [])
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown faults {unknown}; known: {FAULTS}")
        with self._lock:
            self._script = list(script)
            self.default = default or self.default

    def request_count(self, expected: int, timeout_s: float = 5.0) -> int:
        """The number of chat requests, once ``expected`` have arrived or ``timeout_s`` passed.

        A client that gave up on an attempt (its deadline is short) may return before the
        server's handler thread, slow on a busy machine, has logged that request; counting at
        once would then miss it. Waits a little past ``expected`` too, so extras are seen.
        """
        deadline = time.monotonic() + timeout_s
        while len(self.requests) < expected and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.1)
        return len(self.requests)

    def counts(self) -> Counter[str]:
        """Chat requests answered so far, by fault."""
        with self._lock:
            return Counter(r["fault"] for r in self.requests)

    def start(self) -> FaultServer:
        """Listen (on a free port the first time, on the same port after a kill)."""
        self._stop.clear()
        self._httpd = _Server(("127.0.0.1", self.port), _Handler)
        self._httpd.fault_server = self
        self.port = self._httpd.server_address[1]
        self._started = time.monotonic()
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        self._timer = threading.Timer(self.lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop listening and end every hanging request (like a killed process)."""
        httpd, self._httpd = self._httpd, None
        self._stop.set()
        if self._timer is not None:
            self._timer.cancel()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def restart(self) -> FaultServer:
        """Start again on the same port after :meth:`stop` or a ``kill`` fault."""
        self.stop()
        return self.start()

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler -----------------------------------------------------------------

    def _next(self, path: str, body: dict[str, Any]) -> str:
        with self._lock:
            fault = self._script.pop(0) if self._script else self.default
            t = time.monotonic() - self._started
            self.requests.append({"fault": fault, "path": path, "body": body, "t": t})
            return fault

    def _content(self, body: dict[str, Any]) -> str:
        text = self.reply(body) if self.reply else None
        if text is not None:
            return text
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            schema = fmt["json_schema"]["schema"]
            return json.dumps(minimal_instance(schema, schema))
        return "OK."


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # the restarted server binds the same port at once
    fault_server: FaultServer


class _Handler(BaseHTTPRequestHandler):
    """One HTTP/1.0 exchange per connection, so a stop leaves no idle keep-alive sockets."""

    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: tests read the request log instead."""

    def do_GET(self) -> None:
        if self.path.split("?")[0].rstrip("/") == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": "fault-model", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": f"no route for GET {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.split("?")[0].rstrip("/") != "/v1/chat/completions":
            self._json(404, {"error": {"message": f"no route for POST {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "request body is not JSON"}})
            return
        fs = self.server.fault_server
        fault = fs._next(self.path, body)
        getattr(self, "_fault_" + fault)(fs, body)

    # -- faults ------------------------------------------------------------------------------

    def _fault_ok(self, fs: FaultServer, body: dict[str, Any]) -> None:
        content = fs._content(body)
        if body.get("stream"):
            self._stream(content, delay_s=0.0)
        else:
            self._json(200, completion(content))

    def _fault_timeout(self, fs: FaultServer, body: dict[str, Any]) -> None:
        fs._stop.wait(fs.hang_s)  # bounded; a stopped server ends the wait at once
        self.close_connection = True

    def _fault_slow(self, fs: FaultServer, body: dict[str, Any]) -> None:
        content = fs._content(body)
        if body.get("stream"):
            self._stream(content, delay_s=fs.hang_s / 20)
            return
        # Leading spaces (valid JSON) stretch the body to last ``hang_s`` at a byte every
        # 50 ms: every byte arrives well within any read timeout, however long the hang.
        pause = 0.05
        data = json.dumps(completion(content)).encode()
        data = data.rjust(max(len(data), int(fs.hang_s / pause)))
        self._head(200, len(data))
        for i in range(len(data)):
            if fs._stop.wait(pause):
                return
            self._write(data[i : i + 1])

    def _fault_429(self, fs: FaultServer, body: dict[str, Any]) -> None:
        extra = {"Retry-After": "1", "retry-after-ms": "200"}
        self._json(429, {"error": {"message": "rate limited", "type": "rate_limit"}}, extra)

    def _fault_500(self, fs: FaultServer, body: dict[str, Any]) -> None:
        echo = f"{self.command} {self.path}; authorization={self.headers.get('Authorization')}"
        self._json(500, {"error": {"message": f"internal error handling {echo}"}})

    def _fault_truncated(self, fs: FaultServer, body: dict[str, Any]) -> None:
        data = json.dumps(completion(fs._content(body))).encode()
        cut = data[: len(data) // 2]
        self._head(200, len(cut))
        self._write(cut)

    def _fault_invalid_json(self, fs: FaultServer, body: dict[str, Any]) -> None:
        self._json(200, completion("Sure! Here is my answer: {action: speak, to: [everyone"))

    def _fault_empty_choices(self, fs: FaultServer, body: dict[str, Any]) -> None:
        self._json(200, {**completion(""), "choices": []})

    def _fault_reset(self, fs: FaultServer, body: dict[str, Any]) -> None:
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    def _fault_kill(self, fs: FaultServer, body: dict[str, Any]) -> None:
        # Stop listening first (safe here: requests run outside the serve_forever thread), so
        # the client's retry after the reset finds the port closed, as after a real kill.
        fs.stop()
        self._fault_reset(fs, body)

    # -- helpers -----------------------------------------------------------------------------

    def _head(self, status: int, length: int, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def _json(self, status: int, obj: Any, extra: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self._head(status, len(data), extra)
        self._write(data)

    def _stream(self, content: str, delay_s: float) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        stop = self.server.fault_server._stop
        for i in range(0, len(content), 8):
            chunk = completion(content[i : i + 8], stream=True)
            if stop.wait(delay_s) or not self._write(f"data: {json.dumps(chunk)}\n\n".encode()):
                return
        self._write(b"data: [DONE]\n\n")

    def _write(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # the client gave up (its timeout); nothing left to do
            return False
        return True


def completion(content: str, *, stream: bool = False) -> dict[str, Any]:
    """A chat completion (or one stream chunk) carrying ``content``."""
    if stream:
        delta = {"index": 0, "delta": {"content": content}, "finish_reason": None}
        return {"id": "f", "object": "chat.completion.chunk", "created": 0, "model": "fault-model",
                "choices": [delta]}  # fmt: skip
    message = {"role": "assistant", "content": content}
    return {
        "id": "fault-1",
        "object": "chat.completion",
        "created": 0,
        "model": "fault-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": max(1, len(content) // 4),
                  "total_tokens": 10 + max(1, len(content) // 4)},
    }  # fmt: skip


def minimal_instance(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """The smallest value valid for a (strict) JSON schema: first enum value, shortest lists."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return minimal_instance(root["$defs"][name], root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
            return minimal_instance(options[0], root)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal_instance(v, root) for k, v in props.items()}
    if kind == "array":
        return [minimal_instance(schema.get("items", {}), root)] * schema.get("minItems", 0)
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    return {"boolean": False, "null": None}.get(kind)
