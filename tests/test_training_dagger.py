import asyncio
import json

import scenarios
from sotopia_tom_env.llm.fake import FakeChatClient
from training.dagger import collect

SILENT = '{"action_type":"none","argument":"","to":[]}'


def run_round(client, out):
    chosen = scenarios.load("silver")[:1]
    return asyncio.run(collect(chosen, client, out, strategy="basic", options=("compact",),
                               max_turns=8, concurrency=1))  # fmt: skip


def test_an_episode_whose_student_calls_failed_is_not_saved_and_is_played_on_resume(tmp_path):
    down = FakeChatClient(lambda messages, fmt: TimeoutError("the server did not answer"))
    assert run_round(down, tmp_path) == 0
    assert not (tmp_path / "episodes.jsonl").exists() and not (tmp_path / "data.jsonl").exists()

    assert run_round(FakeChatClient(lambda messages, fmt: SILENT), tmp_path) == 1
    (record,) = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert record["actions"] and all(
        json.loads(a) == json.loads(SILENT) for _, a in record["actions"]
    )
    rows = (tmp_path / "data.jsonl").read_text().splitlines()
    assert len(rows) == len(record["actions"])  # one labelled state per student turn
