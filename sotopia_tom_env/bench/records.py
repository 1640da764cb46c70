"""Episode records: one self-contained JSON line per finished episode, written append-only.

A record holds the scenario, the transcript, every turn's action and parse error, the judge's
verdicts and the scores, so any report can be rebuilt (or the episode re-judged) from the file
alone. Lines are appended and flushed one at a time, so a killed run loses at most the episode
being written; a torn last line is ignored on reading.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from rewards import Judgment, Scores
from scenarios import Scenario
from sotopia_tom_env.transcript import Transcript

EPISODES_FILE = "episodes.jsonl"


class EpisodeRecord(BaseModel):
    """One played and judged episode."""

    episode_id: str = Field(description="Stable key: policy label, scenario id and seed.")
    policy: str = Field(description="Policy label, e.g. 'ideal' or 'basic'.")
    model: str | None = None
    seed: int = 0
    max_turns: int = 60
    scenario: Scenario
    transcript: Transcript
    turn_log: list[dict[str, Any]] = Field(default_factory=list)
    returns: dict[str, float] = Field(default_factory=dict)
    judgment: Judgment | None = None
    scores: Scores | None = None
    llm: dict[str, Any] = Field(
        default_factory=dict, description="Calls, tokens and latency of the players."
    )
    policy_errors: list[str] = Field(default_factory=list)
    wall_s: float = 0.0


def append_record(path: str | Path, record: BaseModel) -> None:
    """Append one record as a JSON line and flush it to disk."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(record.model_dump_json() + "\n")
        f.flush()
        os.fsync(f.fileno())


def drop_torn_tail(path: str | Path) -> None:
    """Cut an incomplete last line (left by a killed writer) so appending can go on safely."""
    path = Path(path)
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def read_records(path: str | Path, model: type[BaseModel] = EpisodeRecord) -> Iterator[Any]:
    """Records of a JSONL file; an incomplete last line (a killed writer) is skipped."""
    path = Path(path)
    if not path.exists():
        return
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            yield model.model_validate_json(line)
        except (ValidationError, json.JSONDecodeError):
            if n == len(lines) - 1:
                return  # torn final line from an interrupted write
            raise
