"""A small on-disk cache for judge outputs, keyed by a hash of model and prompt."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def default_cache_dir() -> Path:
    """``$SOTOPIA_TOM_CACHE/judge`` or ``~/.cache/sotopia-tom/judge``."""
    root = os.environ.get("SOTOPIA_TOM_CACHE") or Path.home() / ".cache" / "sotopia-tom"
    return Path(root) / "judge"


class DiskCache:
    """One file per entry; writes are atomic, so a killed run never leaves half an entry."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()

    @staticmethod
    def key(*parts: str) -> str:
        """A stable key for the given parts (e.g. model, metric, prompt)."""
        h = hashlib.sha256()
        for p in parts:
            h.update(p.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        """The cached text, or ``None``."""
        path = self._path(key)
        return path.read_text(encoding="utf-8") if path.exists() else None

    def put(self, key: str, text: str) -> None:
        """Store ``text`` under ``key``."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
