"""The scripted 160-Gold benchmark plays the very episodes it played before the layering refactor.

It plays Gold v1 (``gold-v1``), the set those episodes were recorded on: Gold v2 rewrote the
objectives, and v1 stays loadable by name so that earlier numbers can be reproduced exactly.

`tests/data/gold160_digest.json` holds, per policy, the sha256 of that policy's records as
`episodes.jsonl` held them, one line each in episode-id order, less the fields that vary from run
to run (`wall_s`, `finished_at`). It was written by the code before the application moved out of
`sotopia_tom_env` (issue 27), so a refactor that changes a record, a key's order or a score fails
here. Regenerate it only for an intended change of behaviour (last: the training reward's
relay events and informative IA changed every record's `returns`, issue 53; the judge's markdown
and chat-form readings changed leaky's):
`python tests/test_bench_golden.py RUN_FOLDER > tests/data/gold160_digest.json`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from typer.testing import CliRunner

DIGEST = Path(__file__).parent / "data" / "gold160_digest.json"
ARGS = ["--scenarios", "gold-v1", "--max-turns", "30", "--policies", "ideal,leaky,random"]
VARYING = ("wall_s", "finished_at")  # the clock's fields: everything else must repeat exactly


def digests(episodes: Path) -> dict[str, str]:
    """Sha256 per policy of its normalised records (clock fields dropped, sorted by episode id)."""
    lines: dict[str, list[tuple[str, str]]] = {}
    for raw in episodes.read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        for key in VARYING:
            record.pop(key, None)
        # json.dumps keeps the record's key order, so a reordered field changes the digest too.
        line = json.dumps(record, ensure_ascii=False)
        lines.setdefault(record["policy"], []).append((record["episode_id"], line))
    return {
        policy: hashlib.sha256(
            "\n".join(line for _, line in sorted(rows)).encode("utf-8")
        ).hexdigest()
        for policy, rows in sorted(lines.items())
    }


def test_scripted_gold_benchmark_repeats_its_episodes(tmp_path):
    from sotopia_tom_app.cli import app

    out = tmp_path / "gold"
    result = CliRunner().invoke(app, ["bench", *ARGS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    expected = json.loads(DIGEST.read_text(encoding="utf-8"))
    got = digests(out / "episodes.jsonl")
    assert sum(1 for _ in (out / "episodes.jsonl").open()) == 480
    assert got == expected["sha256"]


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    print(json.dumps({"command": "sotopia-tom bench " + " ".join(ARGS),
                      "sha256": digests(folder / "episodes.jsonl")}, indent=2))  # fmt: skip
