"""Reading and writing scenario files in every layout the benchmark has used.

Accepted containers: a JSON list, ``{"scenarios": [...]}``, a single scenario object, JSONL (one
scenario per line), and a local Hugging Face ``datasets`` folder (``save_to_disk`` output).
Records in the old flat format (``scenario_type``, plain-string knowledge, ``goals`` without a
``sharing_policy``) are converted by :func:`adapt_old_format`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scenarios.schema import Scenario

SHIPPED_SETS = ("tiny", "gold", "gold-v1", "silver", "silver-dev")


class ScenarioFormatError(ValueError):
    """A scenario file cannot be read; the message names the file, record and field."""


def load(name_or_path: str | Path) -> list[Scenario]:
    """Load a shipped scenario set by name, or a scenario file or folder by path.

    Args:
        name_or_path: ``"tiny"``, ``"gold"``, ``"silver"``, a file (.json / .jsonl), a folder of
            such files, or a Hugging Face ``datasets`` folder.

    Returns:
        The scenarios, in file order.

    Raises:
        ScenarioFormatError: if a file is malformed (the message says where).
        FileNotFoundError: if the name is neither a shipped set nor an existing path.

    Example:
        >>> import scenarios
        >>> [s.id for s in scenarios.load("tiny")][:1]
        ['tiny-3-agents']
    """
    if str(name_or_path) in SHIPPED_SETS:
        return _load_shipped(str(name_or_path))
    path = Path(name_or_path)
    if not path.exists():
        raise FileNotFoundError(
            f"{name_or_path!r} is neither a shipped scenario set {SHIPPED_SETS} nor a path"
        )
    if path.is_dir():
        return _load_dir(path)
    return _parse_records(_read_records(path), source=str(path))


def _load_shipped(name: str) -> list[Scenario]:
    root = resources.files("scenarios") / "data"
    singles = [root / f"{name}{ext}" for ext in (".json", ".jsonl")]
    files = [f for f in singles if f.is_file()][:1]
    if not files:
        folder = root / name
        if not folder.is_dir():
            raise FileNotFoundError(f"scenario set {name!r} is not installed with this package")
        files = sorted(
            (f for f in folder.iterdir() if f.name.endswith((".json", ".jsonl"))),
            key=lambda f: f.name,
        )
    out: list[Scenario] = []
    for f in files:
        with resources.as_file(f) as p:
            out.extend(_parse_records(_read_records(p), source=f"{name}/{f.name}"))
    return out


def _load_dir(path: Path) -> list[Scenario]:
    if (path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists():
        return _load_hf_dataset(path)
    files = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl"))
    if not files:
        raise ScenarioFormatError(f"{path}: no .json or .jsonl scenario files in this folder")
    return [s for f in files for s in _parse_records(_read_records(f), source=str(f))]


def _load_hf_dataset(path: Path) -> list[Scenario]:
    try:
        import datasets
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError(
            f"{path} is a Hugging Face datasets folder; install the reader with "
            '`pip install "sotopia-tom-env[train]"` (or `pip install datasets`)'
        ) from e
    ds = datasets.load_from_disk(str(path))
    if isinstance(ds, datasets.DatasetDict):
        rows = [row for split in ds.values() for row in split]
    else:
        rows = list(ds)
    return _parse_records([_from_arrow(r) for r in rows], source=str(path))


def _from_arrow(row: dict[str, Any]) -> dict[str, Any]:
    """Undo what Arrow storage does to the format.

    Nested JSON may be kept as strings, and maps with arbitrary keys become structs holding every
    key of every row (``None`` where a row lacks it).
    """
    row = {k: json.loads(v) if isinstance(v, str) and v[:1] in "[{" else v for k, v in row.items()}
    if isinstance(row.get("knowledge_domain_map"), dict):
        row["knowledge_domain_map"] = {
            k: v for k, v in row["knowledge_domain_map"].items() if v is not None
        }
    for agent in row.get("agents") or []:
        items = agent.get("pre_interaction_knowledge")
        if isinstance(items, dict):
            agent["pre_interaction_knowledge"] = {k: v for k, v in items.items() if v is not None}
    return row


def _read_records(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioFormatError(f"{path}: not UTF-8 text (byte {e.start}: {e.reason})") from None
    if path.suffix == ".jsonl":
        records = []
        for n, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                records.append(_loads(line, f"{path}:{n}"))
        return records
    data = _loads(text, str(path))
    if isinstance(data, dict) and "scenarios" in data:
        data = data["scenarios"]
    if isinstance(data, dict):
        return [data]
    if not isinstance(data, list):
        raise ScenarioFormatError(
            f"{path}: expected a scenario object, a list or {{'scenarios': [...]}}, "
            f"got {type(data).__name__}"
        )
    return data


def _loads(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        msg = f"{where}: invalid JSON at line {e.lineno} col {e.colno}: {e.msg}"
        raise ScenarioFormatError(msg) from None
    except RecursionError:
        raise ScenarioFormatError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as e:  # e.g. an integer over Python's digit limit
        raise ScenarioFormatError(f"{where}: unreadable JSON value ({e})") from None


def _parse_records(records: Iterable[Any], source: str) -> list[Scenario]:
    out = []
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise ScenarioFormatError(
                f"{source}: record [{i}] is a {type(rec).__name__}, not an object"
            )
        out.append(parse_scenario(rec, where=f"{source}: record [{i}]"))
    return out


def parse_scenario(record: dict[str, Any], where: str = "scenario") -> Scenario:
    """Parse one scenario record (new or old format) into a :class:`Scenario`.

    Raises:
        ScenarioFormatError: naming ``where``, the scenario id and each bad field path.
    """
    try:
        if is_old_format(record):
            record = adapt_old_format(record)
    except (AttributeError, TypeError) as e:  # a field of the wrong type in the old layout
        sid = record.get("scenario_id", "?")
        msg = f"{where} (scenario_id={sid}): old-format record with a field of the wrong type ({e})"
        raise ScenarioFormatError(msg) from None
    try:
        return Scenario.model_validate(record)
    except ValidationError as e:
        sid = record.get("scenario_id", "?")
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()
        )
        raise ScenarioFormatError(f"{where} (scenario_id={sid}): {problems}") from None


def is_old_format(record: dict[str, Any]) -> bool:
    """True for the flat pre-release format (no sharing_policy wrapper, plain-string facts)."""
    if "scenario_type" in record:
        return True
    agents = record.get("agents") or []
    return any(
        isinstance(a, dict)
        and isinstance(a.get("goals"), dict)
        and "sharing_policy" not in a["goals"]
        and ("what_to_share" in a["goals"] or "what_not_to_share" in a["goals"])
        for a in agents
    )


def adapt_old_format(record: dict[str, Any]) -> dict[str, Any]:
    """Convert an old-format record to the new format.

    Old records have no sensitivity: an item is private iff it is in the agent's
    ``what_not_to_share``. ``cannot_know_knowledge`` keyed by owner is flattened, the sector is
    the first part of ``scenario_type``, and the missing goal, map and objectives stay empty
    (the validator reports them).
    """
    agents = []
    for a in record.get("agents", []):
        goals = a.get("goals", {})
        share = list(goals.get("what_to_share", []))
        not_share = list(goals.get("what_not_to_share", []))
        post = a.get("post_interaction_knowledge", {})
        cannot = post.get("cannot_know_knowledge", [])
        if isinstance(cannot, dict):
            cannot = [item for items in cannot.values() for item in items]
        agents.append(
            {
                "agent_id": a.get("agent_id"),
                "role": a.get("role"),
                "pre_interaction_knowledge": {
                    k: _old_item(v, k in not_share)
                    for k, v in a.get("pre_interaction_knowledge", {}).items()
                },
                "post_interaction_knowledge": {
                    "desired_knowledge": list(post.get("desired_knowledge", [])),
                    "cannot_know_knowledge": list(cannot),
                },
                "goals": {
                    "primary_objective": goals.get("primary_objective", ""),
                    "sharing_policy": {"what_to_share": share, "what_not_to_share": not_share},
                },
            }
        )
    sector = record.get("sector") or str(record.get("scenario_type", "")).split(" - ")[0]
    return {
        "scenario_id": record.get("scenario_id"),
        "sector": sector.strip().lower() or None,
        "scenario_goal": record.get("scenario_goal", ""),
        "knowledge_domain_map": record.get("knowledge_domain_map", {}),
        "agents": agents,
    }


def _old_item(value: Any, private: bool) -> dict[str, Any]:
    if isinstance(value, dict) and "value" in value:
        return value
    if isinstance(value, dict):  # one old finance file nests a dict of sub-facts
        value = "; ".join(f"{k}: {v}" for k, v in value.items())
    return {"value": value, "sensitivity": "private" if private else "public"}


def dump(scenarios: Iterable[Scenario], path: str | Path) -> None:
    """Write scenarios as a JSON list (``.json``) or one per line (``.jsonl``)."""
    path = Path(path)
    dicts = [s.model_dump(mode="json", exclude_none=True) for s in scenarios]
    if path.suffix == ".jsonl":
        text = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in dicts)
    else:
        text = json.dumps(dicts, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
