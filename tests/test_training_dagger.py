import contextlib
import json

import pytest

from sotopia_tom_env.llm.fake import FakeChatClient
from training import dagger

SILENT = '{"action_type":"none","argument":"","to":[]}'
SHIPPED = "training/adapters/cpu-small"


def play_round(monkeypatch, out, reply):
    """One DAgger round of one Silver scenario, its player answering ``reply`` to every call."""
    client = FakeChatClient(lambda messages, fmt: reply)
    monkeypatch.setattr(dagger, "player_client", lambda *a: contextlib.nullcontext(client))
    args = dagger.DaggerArguments(player=SHIPPED, out=str(out), every=10_000, max_turns=8)
    return dagger.run(args)


def test_an_episode_whose_student_calls_failed_is_not_saved_and_is_played_on_resume(
    tmp_path, monkeypatch, capsys
):
    with pytest.raises(dagger.EpisodeFailed, match="1 of 1 DAgger episodes failed"):
        play_round(monkeypatch, tmp_path, TimeoutError("the server did not answer"))
    assert not (tmp_path / "episodes.jsonl").exists() and not (tmp_path / "data.jsonl").exists()
    assert "EpisodeFailed: " in capsys.readouterr().out  # said why, per episode

    assert play_round(monkeypatch, tmp_path, SILENT) == tmp_path  # the rerun plays it
    (record,) = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert record["actions"] and all(
        json.loads(a) == json.loads(SILENT) for _, a in record["actions"]
    )
    rows = (tmp_path / "data.jsonl").read_text().splitlines()
    assert len(rows) == len(record["actions"])  # one labelled state per student turn
