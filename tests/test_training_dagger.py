import contextlib
import json

import pytest

from sotopia_tom_env.llm.fake import FakeChatClient
from training import dagger

SILENT = '{"action_type":"none","argument":"","to":[]}'
SHIPPED = "training/adapters/cpu-small"


def play_round(monkeypatch, out, reply, unique=True):
    """One DAgger round of one Silver scenario, its player answering ``reply`` to every call."""
    client = FakeChatClient(lambda messages, fmt: reply)
    monkeypatch.setattr(dagger, "player_client", lambda *a: contextlib.nullcontext(client))
    args = dagger.DaggerArguments(
        player=SHIPPED, out=str(out), every=10_000, max_turns=8, unique_labels=unique
    )
    return dagger.run(args)


def test_an_episode_whose_student_calls_failed_is_not_saved_and_is_played_on_resume(
    tmp_path, monkeypatch, capsys
):
    with pytest.raises(dagger.EpisodeFailed, match="1 of 1 DAgger episodes failed"):
        play_round(monkeypatch, tmp_path, TimeoutError("the server did not answer"))
    assert not (tmp_path / "episodes.jsonl").exists() and not (tmp_path / "data.jsonl").exists()
    assert "EpisodeFailed: " in capsys.readouterr().out  # said why, per episode

    assert play_round(monkeypatch, tmp_path, SILENT, unique=False) == tmp_path  # the rerun plays it
    (record,) = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert record["actions"] and all(
        json.loads(a) == json.loads(SILENT) for _, a in record["actions"]
    )
    rows = (tmp_path / "data.jsonl").read_text().splitlines()
    assert len(rows) == len(record["actions"])  # one labelled state per student turn


def test_a_seats_teacher_reply_is_labelled_once_an_episode(tmp_path, monkeypatch):
    # A silent student leaves every seat where it was: the teacher says the same thing again.
    play_round(monkeypatch, tmp_path / "every", SILENT, unique=False)
    every = [json.loads(x) for x in (tmp_path / "every" / "data.jsonl").open()]
    play_round(monkeypatch, tmp_path / "once", SILENT)
    once = [json.loads(x) for x in (tmp_path / "once" / "data.jsonl").open()]
    key = lambda r: (r["agent"], json.dumps(r["completion"]))  # noqa: E731
    assert len({key(r) for r in every}) < len(every)  # the case the option is for
    assert [key(r) for r in once] == list(dict.fromkeys(key(r) for r in every))  # first of each
    assert {r["step"] for r in once} <= {r["step"] for r in every}
