"""Run a command inside this process group and take the whole group down on SIGTERM.

Usage: ``python group_guard.py GRACE_S -- COMMAND...`` as the leader of a new session.

Why it exists: the vLLM API server catches SIGTERM, but while its engine starts it sits in a
blocking wait that never acts on the signal, and its engine processes do not watch their
parent. So a server whose parent died during startup (the kernel's parent-death signal is a
SIGTERM) lived on, holding memory and cores. This guard receives that signal instead: it
passes SIGTERM to the server, waits up to ``GRACE_S`` seconds for it to exit, then SIGKILLs
every process left in the group, itself included. When the server exits on its own, the guard
exits with its status (128 + signal number when a signal ended it).

Standard library only and run by path, so it starts in milliseconds without importing the
package.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    """Run ``argv[2:]`` as the server, ``argv[0]`` the grace period; return the exit status."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: group_guard.py GRACE_S -- COMMAND...", file=sys.stderr)
        return 2
    grace_s, command = float(argv[0]), argv[2:]
    stop_requested: list[float] = []
    # Installed before the server exists, so no SIGTERM can leave it without a guard; the
    # loop below acts on it (a handler that signals the child would race its creation).
    signal.signal(signal.SIGTERM, lambda signum, frame: stop_requested.append(time.monotonic()))
    child = subprocess.Popen(command)
    deadline = float("inf")
    while child.poll() is None and time.monotonic() < deadline:
        if stop_requested and deadline == float("inf"):
            # A repeat when the whole group was signalled already; vLLM ignores repeats.
            child.send_signal(signal.SIGTERM)
            deadline = stop_requested[0] + grace_s
        time.sleep(0.2)
    if stop_requested:
        # Whatever the server left behind (or the server itself, if it hung), and this guard.
        os.killpg(0, signal.SIGKILL)
    code = child.returncode
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
