"""``benchmarks/habits.py`` counts what a seat did from the judge's reading of its transcript."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import scenarios
from sotopia_tom_env.transcript import Transcript

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import habits

TINY = scenarios.load("tiny")[0]  # agent_2 needs agent_0's readmission rate and agent_1's cost


def _episode() -> Transcript:
    t = Transcript(
        scenario_id=TINY.scenario_id,
        sector=TINY.sector,
        scenario_goal=TINY.scenario_goal,
        roles=[a.role for a in TINY.agents],
    )
    rate = "Heart-failure readmission rate: 30-day readmissions at 21.4% over the last 12 months"
    ask_cost = "What is the per-patient program cost?"
    t.add_step([("agent_0", (), "speak", rate)])
    t.add_step([("agent_2", ("agent_1",), "speak", ask_cost)])  # before it arrives, to its holder
    t.add_step([("agent_2", ("agent_1",), "speak", ask_cost)])  # the same words again
    # the rate reached it at step 0: this ask informs nobody, and goes to someone else
    t.add_step([("agent_2", ("agent_1",), "speak", "Could you confirm the heart-failure readmission rate?")])  # fmt: skip
    t.add_step([("agent_2", (), "leave", "")])
    return t


def test_a_seat_is_counted_from_what_the_judge_reads_in_its_messages(tmp_path):
    record = {"policy": "p", "partners": "q", "seat": "agent_2",
              "scenario": TINY.model_dump(mode="json"), "transcript": _episode().model_dump(mode="json")}  # fmt: skip
    (tmp_path / "episodes.jsonl").write_text(json.dumps(record) + "\n")
    row = habits.habits([tmp_path])[(tmp_path.name, "p", "q")]
    assert row["seats"] == 1 and row["msgs"] == 3 and row["left"] == 1.0
    assert row["questions"] == 1.0
    assert row["repeats"] == pytest.approx(1 / 3)
    assert row["asked"] == 2  # both of its needs
    assert row["late"] == 0.5  # the rate, asked after it arrived
    assert row["holder"] == pytest.approx(
        2 / 3
    )  # the cost twice to its holder, the rate to agent_1


def test_public_facts_sent_only_by_direct_message_are_counted(tmp_path):
    t = Transcript(scenario_id=TINY.scenario_id, sector=TINY.sector, scenario_goal=TINY.scenario_goal,
                   roles=[a.role for a in TINY.agents])  # fmt: skip
    staffing = "Pilot nurse staffing: Monitoring hub needs 6 RN FTEs covering 07:00-23:00"
    rate = "Heart-failure readmission rate: 30-day readmissions at 21.4% over the last 12 months"
    t.add_step([("agent_0", ("agent_1",), "speak", staffing)])  # a public fact, by DM only
    t.add_step([("agent_0", ("agent_2",), "speak", rate)])  # by DM, then ...
    t.add_step([("agent_0", (), "speak", rate)])  # ... in public as well
    record = {"policy": "p", "partners": "q", "seat": "agent_0",
              "scenario": TINY.model_dump(mode="json"), "transcript": t.model_dump(mode="json")}  # fmt: skip
    (tmp_path / "episodes.jsonl").write_text(json.dumps(record) + "\n")
    row = habits.habits([tmp_path])[(tmp_path.name, "p", "q")]
    assert row["dm_only"] == 0.5  # of its two public facts, the staffing never went public
