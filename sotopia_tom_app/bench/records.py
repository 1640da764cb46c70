"""Episode records: one self-contained JSON line per finished episode, written append-only.

A record holds the scenario, the transcript, every turn's action and parse error, the judge's
verdicts and the scores, so any report can be rebuilt (or the episode re-judged) from the file
alone. Lines are appended and flushed one at a time, so a killed run loses at most the episode
being written. Reading never fails on a damaged file: an incomplete last line (a killed writer)
or a damaged line in the middle is skipped with a warning naming the file and line, and every
intact record is kept. The file itself is never rewritten; only an incomplete last line is cut
off (by :func:`drop_torn_tail`, under the folder's lock) before appending goes on.

Episode ids are unique within a results folder: :func:`read_episodes` keeps the first record of
each id, so a duplicate line (from an old concurrent run, or a hand-made copy) is never counted
twice.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, model_validator

from rewards import Judgment, Scores
from scenarios import Scenario
from sotopia_tom_env.transcript import Transcript

EPISODES_FILE = "episodes.jsonl"
# Passed when reading saved lines, so fields added later stay empty in older records instead of
# taking a made-up value (such as "now" for the time an old episode finished).
SAVED = {"saved": True}

log = logging.getLogger(__name__)


class EpisodeRecord(BaseModel):
    """One played and judged episode."""

    episode_id: str = Field(description="Stable key: policy label, scenario id and seed.")
    policy: str = Field(description="Policy label, e.g. 'ideal' or 'basic'.")
    partners: str | None = Field(
        default=None, description="Cross-play: the policy of the other seats (None: self-play)."
    )
    seat: str | None = Field(
        default=None, description="Cross-play: the agent id the policy under test played."
    )
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
    finished_at: str | None = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"),
        description="UTC time (ISO 8601) the record was made; None in records saved before.",
    )

    @classmethod
    def of_episode(
        cls, result: Any, judged: tuple[Judgment, Scores], **fields: Any
    ) -> EpisodeRecord:
        """The record of a played episode (``policies.EpisodeResult``) and its judgment.

        ``fields`` give what the episode itself does not know: ``episode_id``, ``policy``,
        ``model``, ``seed``, ``max_turns`` and ``llm``.
        """
        judgment, scores = judged
        return cls(scenario=result.scenario, transcript=result.transcript,
                   turn_log=result.turn_log, returns=result.returns, judgment=judgment,
                   scores=scores, policy_errors=result.policy_errors, wall_s=result.wall_s,
                   **fields)  # fmt: skip

    @model_validator(mode="before")
    @classmethod
    def _saved_before_times(cls, data: Any, info: ValidationInfo) -> Any:
        if info.context == SAVED and isinstance(data, dict) and "finished_at" not in data:
            return {**data, "finished_at": None}
        return data


def append_record(path: str | Path, record: BaseModel) -> None:
    """Append one record as a JSON line and flush it to disk."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(record.model_dump_json() + "\n")
        f.flush()
        os.fsync(f.fileno())


def drop_torn_tail(path: str | Path, model: type[BaseModel] = EpisodeRecord) -> None:
    """Make the file end with a full line so appending can go on safely.

    An incomplete last line (a writer killed mid-line) is cut off in place; a complete record
    that only lacks its newline is kept and given one. Call it only while holding the folder's
    lock (:func:`sotopia_tom_app.bench.lock.hold`): another writer's line in progress would
    look torn.
    """
    path = Path(path)
    if not path.exists():
        return
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    start = data.rfind(b"\n") + 1
    if _is_record(data[start:], model):
        with open(path, "ab") as f:
            f.write(b"\n")
        return
    log.warning(
        "%s:%d: dropped an incomplete last line (%d bytes) left by an interrupted write",
        path, data.count(b"\n") + 1, len(data) - start,
    )  # fmt: skip
    os.truncate(path, start)


def read_records(path: str | Path, model: type[BaseModel] = EpisodeRecord) -> Iterator[Any]:
    """Every intact record of a JSONL file, in file order (duplicates included).

    A damaged line (not JSON, not a record, not UTF-8) is skipped with a warning naming the
    file and line number; an incomplete last line is skipped the same way. A missing file has
    no records.
    """
    path = Path(path)
    if not path.exists():
        return
    lines = path.read_bytes().split(b"\n")
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            yield model.model_validate_json(raw, context=SAVED)
        except ValueError as e:  # pydantic's ValidationError, also for bad JSON and bad UTF-8
            what = "an incomplete last line" if n == len(lines) else "a damaged record"
            log.warning("%s:%d: skipped %s (%s)", path, n, what, _reason(e))


def read_episodes(path: str | Path) -> list[EpisodeRecord]:
    """The episodes of a results file, one per episode id (the first one saved).

    Example:
        >>> read_episodes("no/such/episodes.jsonl")
        []
    """
    return unique_episodes(read_records(path), source=str(path))


def unique_episodes(
    records: Iterable[EpisodeRecord], source: str = "records"
) -> list[EpisodeRecord]:
    """The first record of each episode id, in order; later duplicates are dropped with a warning."""
    seen: dict[str, EpisodeRecord] = {}
    dropped = 0
    for r in records:
        if r.episode_id in seen:
            dropped += 1
        else:
            seen[r.episode_id] = r
    if dropped:
        log.warning(
            "%s: ignored %d duplicate record(s) of episodes already counted", source, dropped
        )
    return list(seen.values())


def _is_record(raw: bytes, model: type[BaseModel]) -> bool:
    try:
        model.model_validate_json(raw, context=SAVED)
    except ValueError:
        return False
    return True


def _reason(e: ValueError) -> str:
    """The first problem of a failed parse, in one short line."""
    if isinstance(e, ValidationError) and e.errors():
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return f"{where}: {err['msg']}" if where else err["msg"]
    return str(e).splitlines()[0]


def read_judged(path: str | Path, episode_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Rows ``{"episode_id", "scores"}`` of a ``judged-*.jsonl`` file for the given episodes.

    Rows of other episodes or without scores are left out; a damaged line is skipped with a
    warning naming it.
    """
    path, ids, rows = Path(path), set(episode_ids), []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            log.warning("%s:%d: skipped a damaged line", path, n)
            continue
        if isinstance(row, dict) and row.get("episode_id") in ids and isinstance(row.get("scores"), dict):  # fmt: skip
            rows.append({"episode_id": row["episode_id"], "scores": row["scores"]})
    return rows
