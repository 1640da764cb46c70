"""A Ray worker setup hook that kills its worker process once, on a chosen episode (tests only).

When ``$SOTOPIA_TOM_CRASH`` names a JSON file ``{"episode_id": ..., "marker": ...}``, the first
worker to start that episode creates the marker and exits at once (``os._exit``: no cleanup,
like an out-of-memory kill); its replay finds the marker and plays the episode. Without the
file nothing changes; with ``"always": true`` in it, every attempt dies.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def install() -> None:
    """Wrap the episode function the Ray workers call (run once per worker process)."""
    from sotopia_tom_app.bench import ray_executor

    play_job = ray_executor.play_job

    async def crashing(job: Any, *args: Any) -> Any:
        _maybe_crash(job.episode_id)
        return await play_job(job, *args)

    ray_executor.play_job = crashing


def _maybe_crash(episode_id: str) -> None:
    plan = Path(os.environ.get("SOTOPIA_TOM_CRASH") or "/nonexistent")
    if not plan.exists():
        return
    target = json.loads(plan.read_text())
    if target["episode_id"] != episode_id:
        return
    if target.get("always"):  # an episode that kills every worker playing it
        os._exit(1)
    try:  # O_EXCL: only the first attempt dies, wherever the replay lands
        os.close(os.open(target["marker"], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return
    os._exit(1)
