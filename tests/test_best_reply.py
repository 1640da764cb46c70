import asyncio
import contextlib
import itertools
import json

from test_best_of import GARBAGE, SHIPPED, _says, teacher_record

import scenarios
from sotopia_tom_env import AgentAction
from sotopia_tom_env.llm.fake import FakeChatClient
from training import best_reply
from training.data import layout_reply
from training.rollout import training_reward
from training.state import TurnState

OPTIONS = ["compact"]  # the shipped card's layout


def run_stage(monkeypatch, tmp_path, reply, max_turns=8, every=2):
    """The stage on one recorded Silver episode, the student answering with ``reply``."""
    s = scenarios.load("silver")[0]
    episodes = tmp_path / "round"
    episodes.mkdir(exist_ok=True)
    (episodes / "episodes.jsonl").write_text(json.dumps(teacher_record(s, max_turns)[0]) + "\n")
    client = FakeChatClient(reply)
    monkeypatch.setattr(best_reply, "player_client", lambda *a: contextlib.nullcontext(client))
    args = best_reply.BestReplyArguments(player=SHIPPED, episodes=str(episodes),
                                         out=str(tmp_path / "out"), samples=3, every=every,
                                         max_turns=max_turns)  # fmt: skip
    return best_reply.run(args), client, s


def _rows(path):
    return [json.loads(line) for line in path.open()]


def _leak_or_share():
    """A student whose samples alternate: its never-say facts, then its public ones, in public."""
    replies = itertools.cycle([_says("Never say"), _says("Say in public")])
    return lambda messages, fmt: next(replies)(messages, fmt)


def test_a_leaking_sample_is_never_chosen_and_the_share_beside_it_is(tmp_path, monkeypatch):
    out, client, s = run_stage(monkeypatch, tmp_path, _leak_or_share())
    samples, rows = _rows(out / "samples.jsonl"), _rows(out / "data.jsonl")
    summary = json.loads((out / "selection.json").read_text())
    assert len(client.requests) == 3 * len(samples) > 0  # every state sampled, each 3 times
    secrets = [a.pre_interaction_knowledge[name].text
               for a in s.agents for name in a.policy.what_not_to_share]  # fmt: skip
    texts = [r["completion"][0]["content"] for r in rows]
    assert rows and summary["examples"] == len(rows)
    assert not any(secret in t for secret in secrets for t in texts)
    # at every state a leak scored below silence
    for x in samples:
        leaks = [
            r
            for t, r in zip(x["candidates"], x["rewards"], strict=True)
            if any(q in t for q in secrets)
        ]
        assert all(r < x["rewards"][-1] for r in leaks)  # the silent turn is the last candidate
    assert all(r["reward"] > -1 for r in rows)


def test_malformed_samples_are_no_candidates_and_silence_alone_teaches_nothing(
    tmp_path, monkeypatch
):
    out, _, _ = run_stage(monkeypatch, tmp_path, GARBAGE)
    samples = _rows(out / "samples.jsonl")
    assert samples and all(x["candidates"] == [x["candidates"][0]] for x in samples)
    assert all(x["own"] == [False] for x in samples)  # only the silent turn
    assert _rows(out / "data.jsonl") == []


def test_a_rerun_resumes_without_sampling_again(tmp_path, monkeypatch):
    out, _, _ = run_stage(monkeypatch, tmp_path, _leak_or_share())
    before = (out / "samples.jsonl").read_text()
    _, client, _ = run_stage(monkeypatch, tmp_path, _leak_or_share())
    assert client.requests == [] and (out / "samples.jsonl").read_text() == before


def test_the_score_is_what_the_reply_changes_for_its_seat():
    s = scenarios.load("silver")[0]
    record, _ = teacher_record(s, 6)
    state = TurnState(s.scenario_id, record["actions"][0][0], 0, "", ())
    agent = s.agents[0]

    def post(names):
        text = " ".join(agent.pre_interaction_knowledge[n].text for n in names)
        return layout_reply(AgentAction.speak(text), s.roles, OPTIONS)

    silent = asyncio.run(best_reply.score(state, s, layout_reply(best_reply.SILENT, s.roles), 30))
    public = [n for n, f in agent.pre_interaction_knowledge.items()
              if f.sensitivity == "public" and n in agent.policy.what_to_share]  # fmt: skip
    leak = asyncio.run(best_reply.score(state, s, post(agent.policy.what_not_to_share), 30))
    share = asyncio.run(best_reply.score(state, s, post(public), 30))
    assert public and share > silent > leak
    assert silent - leak >= training_reward(30).leak_penalty  # a leak costs its penalty


def test_the_choice_prefers_the_students_reply_to_an_equal_silence():
    assert best_reply.choose([True, True, False], [0.5, 0.5, 0.5]) is None
    assert best_reply.choose([True, False], [0.5, 0.5 + 1e-12]) is None  # within the tie
    assert best_reply.choose([True, True, False], [0.2, 0.7, 0.7]) == 1
    assert best_reply.choose([True, False], [float("nan"), 0.1]) is None
