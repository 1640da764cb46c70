"""``benchmarks/cross_play.py`` pairs each tested seat with the same seat in self-play."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import cross_play


def _record(policy: str, partners: str | None, seat: str, cms: list[float]) -> dict:
    agents = {f"Role {i}": {"da": 1.0, "ia": cm, "cm": cm} for i, cm in enumerate(cms)}
    return {"policy": policy, "partners": partners, "seat": seat,
            "scenario": {"scenario_id": "s1"}, "scores": {"per_agent": agents}}  # fmt: skip


def _run(path: Path, records: list[dict]) -> Path:
    path.mkdir()
    (path / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_each_tested_seat_is_compared_with_its_own_seat_in_self_play(tmp_path):
    self_play = _run(tmp_path / "self", [_record("p", None, "all", [0.8, 0.4, 0.6])])
    cross = _run(tmp_path / "cross", [
        _record("p", "q", "agent_0", [0.4, 0.9, 0.9]),  # tested seat 0: 0.4 against 0.8
        _record("p", "q", "agent_2", [0.9, 0.9, 0.3]),  # tested seat 2: 0.3 against 0.6
        _record("q", "p", "agent_1", [0.5, 0.5, 0.5]),  # q has no self-play run: no row
    ])  # fmt: skip
    [row] = cross_play.rows([self_play, cross])
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:3] == ["p", "q", "2"]
    assert cells[5] == "0.350 / 0.700"  # the partners' own scores never count
    assert cells[6].startswith("-0.350") and cells[7] == "50%"
