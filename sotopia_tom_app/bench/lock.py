"""One writer per results folder: an exclusive lock held for the whole run.

Two runs appending to the same ``episodes.jsonl`` would both play every episode and save it
twice. :func:`hold` takes an exclusive ``flock`` on ``OUT/.lock`` (released by the kernel when
the process ends, however it ends) and writes the holder's pid into it, so a second run is
refused at once with :class:`FolderInUse` naming that pid. A bench run takes it once, in
:func:`~sotopia_tom_app.bench.runner.open_run`, whatever executor plays its episodes; taking it
again while held, in this process too, is refused the same way.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["LOCK_FILE", "FolderInUse", "hold"]

LOCK_FILE = ".lock"


class FolderInUse(RuntimeError):
    """Another process is writing results into the same folder."""


@contextmanager
def hold(out: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the exclusive lock of results folder ``out`` (created if missing) for the block.

    Raises:
        FolderInUse: when another process holds it; the message names the folder and its pid.

    Example:
        >>> import tempfile
        >>> with hold(tempfile.mkdtemp()) as folder:
        ...     (folder / LOCK_FILE).exists()
        True
    """
    folder = Path(out)
    fd = _acquire(folder)
    try:
        yield folder
    finally:
        os.close(fd)  # releases the flock; the file stays (removing it would race)


def _acquire(folder: Path) -> int:
    """Create the folder, lock its lock file and write our pid into it; return the descriptor."""
    folder.mkdir(parents=True, exist_ok=True)
    # O_NOFOLLOW: a symlink planted at the lock's name must not redirect our pid write.
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise FolderInUse(f"{folder} is in use by another run (pid {holder})") from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd
