"""The header of a benchmark report: what was run, how, when and with which package version."""

from __future__ import annotations

import importlib.metadata
import json
import logging
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sotopia_tom_app.bench.records import EPISODES_FILE, EpisodeRecord

log = logging.getLogger(__name__)


def run_info(out: Path, records: list[EpisodeRecord]) -> dict[str, str]:
    """The header of the report: what was run, how, when and with which package version.

    Taken from ``config.json`` where it exists and readable, completed from the records (the
    real model names, the judge, the newest episode's date); a config key this code does not
    know is listed as it is, so new run options show up without a change here.
    """
    config = _read_config(out / "config.json")
    info = {
        "scenario set": str(config.get("scenarios", "?")),
        "scenarios played": _scenarios_played(config, records),
        "policies": ", ".join(config.get("policies") or sorted({r.policy for r in records})),
        "seeds": ", ".join(map(str, config.get("seeds") or sorted({r.seed for r in records}))),
        "max turns": _joined(config.get("max_turns") or sorted({r.max_turns for r in records})),
        "player model": _player_model(config.get("model"), records),
        "judge": _judge_name(config, records),
        "player options": _player_options(records),
        "finished": _finished(out, records),
        "package": f"sotopia-tom-env {_version()}",
        "bootstrap": "95% percentile intervals, 2,000 resamples",
    }
    known = {"scenarios", "scenario_ids", "limit", "policies", "seeds", "max_turns", "model",
             "judge", "judge_model"}  # fmt: skip
    for key in sorted(set(config) - known):
        info[key.replace("_", " ")] = _joined(config[key])
    return info


def _read_config(path: Path) -> dict[str, Any]:
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        log.warning("%s: not read for the report header (%s)", path, e)
        return {}
    return config if isinstance(config, dict) else {}


def _scenarios_played(config: dict[str, Any], records: list[EpisodeRecord]) -> str:
    played = len({r.scenario.id for r in records})
    how = []
    if config.get("scenario_ids"):
        how.append("chosen ids " + ", ".join(config["scenario_ids"]))
    if config.get("limit"):
        how.append(f"--limit {config['limit']}")
    return f"{played}" + (f" ({'; '.join(how)})" if how else "")


def _player_model(configured: Any, records: list[EpisodeRecord]) -> str:
    """The configured model, with "default" (or nothing) resolved to what the records name."""
    if configured not in (None, "", "default"):
        return str(configured)
    seen = sorted({r.model for r in records if r.model})
    if seen:
        return ", ".join(seen)
    if all(not r.llm.get("calls") for r in records):
        return "none (scripted players only)"
    return "the embedded default (name not recorded)"


def _judge_name(config: dict[str, Any], records: list[EpisodeRecord]) -> str:
    seen = sorted({r.judgment.judge for r in records if r.judgment is not None})
    name = ", ".join(seen) or str(config.get("judge", "?"))
    if config.get("judge_model"):
        name += f" (model {config['judge_model']})"
    return name


def _player_options(records: list[EpisodeRecord]) -> str:
    """Sampling options per kind of LLM call, as seen in the recorded calls."""
    options: dict[str, set[str]] = defaultdict(set)
    for r in records:
        for turn in r.turn_log:
            for call in turn.get("calls") or ():
                if isinstance(call, dict):
                    opts = f"temperature {call.get('temperature')}, max tokens {call.get('max_tokens')}"
                    options[str(call.get("purpose", "call"))].add(opts)
    if not options:
        return "none recorded (scripted players, or LLM calls not saved)"
    return "; ".join(f"{k}: {' / '.join(sorted(v))}" for k, v in sorted(options.items()))


def _finished(out: Path, records: list[EpisodeRecord]) -> str:
    """When the newest episode finished: its saved time, else the results file's time."""
    times = [r.finished_at for r in records if r.finished_at]
    if times:
        return max(times).replace("T", " ")
    stamp = (out / EPISODES_FILE).stat().st_mtime
    when = datetime.fromtimestamp(stamp, UTC).isoformat(sep=" ", timespec="seconds")
    return f"{when} (time of {EPISODES_FILE})"


def _version() -> str:
    try:
        return importlib.metadata.version("sotopia-tom-env")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _joined(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
