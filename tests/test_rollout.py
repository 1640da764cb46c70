import asyncio
import json
import math
import random
from types import SimpleNamespace

import pytest

import scenarios
from sotopia_tom_env import AgentAction
from training.data import reply_text
from training.rollout import (
    COMPONENTS,
    EnvRollout,
    Sample,
    continuation_seed,
    finish,
    play_from,
    reward_functions,
    teacher_reply,
    teacher_states,
    turn_score,
)
from training.state import prompt_key


@pytest.fixture(scope="module")
def silver():
    return scenarios.load("silver")[:3]


@pytest.fixture(scope="module")
def turns(silver):
    """Each scenario's teacher turn states, with the teacher's action at each."""
    out = {}
    for s in silver:
        states = teacher_states([s])
        actions = [json.loads(text) for _, text in states[-1].history]
        out[s.scenario_id] = [(st, actions[st.step]) for st in states if st.step < len(actions)]
    return out


class FakeGenerator:
    """Replies from a script, one per prompt; token ids are word positions, so they are checkable."""

    def __init__(self, replies):
        self.replies, self.calls = list(replies), 0

    def __call__(self, prompts, trainer, seeds=None):
        out = []
        for p in prompts:
            text = self.replies[self.calls % len(self.replies)]
            self.calls += 1
            ids = [1000 + k for k, _ in enumerate(text.split())]
            out.append(
                Sample(
                    prompt_ids=[len(p[-1]["content"])], completion_ids=ids, logprobs=None, text=text
                )
            )
        return out


def _first_share(turns):
    """A turn whose teacher action is a disclosure, and that action."""
    return next(
        (t, a)
        for t, a in turns
        if a["action_type"] == "speak" and a["argument"].startswith("Sharing")
    )


def _secret(s, seat):
    me = s.agents[int(seat.rsplit("_", 1)[1])]
    name = me.goals.sharing_policy.what_not_to_share[0]
    return f"{name}: {me.pre_interaction_knowledge[name].text}"


def test_the_teacher_action_earns_more_than_silence_a_leak_or_garbage(silver, turns):
    s = silver[0]
    state, teacher = _first_share(turns[s.scenario_id])
    good = play_from(state, s, json.dumps(teacher))
    silent = play_from(state, s, '{"action_type": "none", "argument": "", "to": []}')
    leak = play_from(
        state, s, json.dumps({"action_type": "speak", "argument": _secret(s, state.seat), "to": []})
    )
    garbage = play_from(state, s, "I think we should all share {{{")
    # The teacher says next turn what a silent sample left out, so silence costs only time.
    assert good["env_reward"] >= silent["env_reward"] > leak["env_reward"]
    assert good["cpv"] == 0 and leak["cpv"] > 0
    assert garbage["malformed"] == 1 and good["malformed"] == 0
    assert garbage["env_reward"] < good["env_reward"]


def test_groups_share_a_state_and_each_completion_gets_its_own_seat_reward(silver, turns):
    s = silver[1]
    states = [t for t, _ in turns[s.scenario_id]][:2]
    rollout = EnvRollout(states, silver, FakeGenerator(
        ['{"action_type": "none", "argument": "", "to": []}',
         json.dumps({"action_type": "speak", "argument": _secret(s, states[0].seat), "to": []}),
         "not json at all", '{"action_type": "leave", "argument": "", "to": []}']))  # fmt: skip
    prompts = [[{"role": "user", "content": st.prompt}] for st in states for _ in range(4)]
    out = rollout(prompts, trainer=None)
    assert out["state"] == [st.key for st in states for _ in range(4)]  # groups: same turn state
    assert out["seat"] == [st.seat for st in states for _ in range(4)]
    for k, prompt in enumerate(prompts):  # each row is scored on its own reply, for its own seat
        st = states[k // 4]
        expected = play_from(st, s, rollout.generate.replies[k % 4])
        assert out["env_reward"][k] == pytest.approx(expected["env_reward"])
        assert prompt_key(prompt) == st.key
    assert out["logprobs"] is None


def test_only_the_sampled_reply_carries_gradient(silver, turns):
    s = silver[2]
    state = turns[s.scenario_id][0][0]
    reply = '{"action_type": "speak", "argument": "Hello everyone, glad to be here", "to": []}'
    out = EnvRollout([state], silver, FakeGenerator([reply]))(
        [[{"role": "user", "content": state.prompt}]], None
    )
    # exactly the reply's tokens: nothing of the partners' turns or of the env is in the completion
    assert out["completion_ids"] == [[1000 + k for k in range(len(reply.split()))]]


def test_a_group_whose_samples_tie_is_masked_out_of_the_loss(silver, turns):
    s = silver[2]
    state = turns[s.scenario_id][0][0]
    silent = '{"action_type": "none", "argument": "", "to": []}'
    leak = json.dumps({"action_type": "speak", "argument": _secret(s, state.seat), "to": []})
    prompt = [{"role": "user", "content": state.prompt}]
    tied = EnvRollout([state], silver, FakeGenerator([silent]))([prompt] * 4, None)
    mixed = EnvRollout([state], silver, FakeGenerator([silent, leak]))([prompt] * 4, None)
    assert len(set(tied["env_reward"])) == 1 and not any(map(any, tied["env_mask"]))
    assert all(all(m) for m in mixed["env_mask"])
    # logged: which samples were masked, and how many distinct replies their group had
    assert tied["tied"] == [1.0] * 4 and tied["distinct"] == [0.25] * 4
    assert mixed["tied"] == [0.0] * 4 and mixed["distinct"] == [0.5] * 4


def test_the_teacher_takes_over_after_the_sample_and_reacts_to_it(silver, turns):
    """What the sample said is not said again; what it left out is said later."""
    s = silver[0]
    first = turns[s.scenario_id][0]
    state, teacher = first
    assert teacher["argument"].startswith("Sharing") and not teacher["to"]
    env, _, _ = finish(state, s, json.dumps(teacher), 40, None)
    mine = [m.text for m in env.transcript.messages if m.sender == state.seat]
    assert mine.count(teacher["argument"]) == 1
    silent = '{"action_type": "none", "argument": "", "to": []}'
    env, _, _ = finish(state, s, silent, 40, None)
    mine = [m.text for m in env.transcript.messages if m.sender == state.seat]
    assert mine.count(teacher["argument"]) == 1  # the teacher said it on the seat's next turn


def test_reward_columns_feed_trl_and_a_judge_failure_is_unscored(silver, turns):
    s = silver[0]
    state = turns[s.scenario_id][0][0]

    class Broken:
        name = "broken"

        def judge(self, scenario, transcript):
            raise RuntimeError("judge down")

    from rewards import JudgeReward

    failed = play_from(state, s, "{}", reward=lambda _: JudgeReward(Broken()))
    assert all(math.isnan(failed[c]) for c in ("env_reward", *COMPONENTS))
    funcs, weights = reward_functions()
    assert weights[0] == 1 and not any(weights[1:])
    cols = {k: [v, 0.5] for k, v in failed.items()}
    assert funcs[0](["a", "b"], **cols) == [None, 0.5]


def test_the_probe_keeps_the_states_whose_samples_differ_in_reward(silver, turns):
    s = silver[2]
    state = turns[s.scenario_id][0][0]
    silent = '{"action_type": "none", "argument": "", "to": []}'
    leak = json.dumps({"action_type": "speak", "argument": _secret(s, state.seat), "to": []})
    prompt = [{"role": "user", "content": state.prompt}]
    assert EnvRollout([state], silver, FakeGenerator([silent])).probe([prompt], None, 4) == [False]
    mixed = FakeGenerator([silent, leak])
    assert EnvRollout([state], silver, mixed).probe([prompt], None, 4) == [True]
    assert mixed.calls == 4  # one group of the probe's size


def test_grpo_trains_on_the_probed_states_and_a_resumed_run_on_the_same(tmp_path):
    from types import SimpleNamespace

    from datasets import Dataset

    from training.grpo import probed

    class Probe:
        def __init__(self, verdicts):
            self.verdicts, self.calls = verdicts, 0

        def probe(self, prompts, trainer, samples):
            self.calls += 1
            return self.verdicts[: len(prompts)]

    data = Dataset.from_list([{"prompt": [{"role": "user", "content": str(k)}]} for k in range(4)])
    args = SimpleNamespace(per_device_train_batch_size=2, gradient_accumulation_steps=4,
                           num_generations=4)  # fmt: skip
    trainer = SimpleNamespace(args=args)  # a step takes 2 states
    kept = probed(data, Probe([True, False, True, False]), trainer, 4, tmp_path)
    assert [p[0]["content"] for p in kept["prompt"]] == ["0", "2"]
    again = Probe([False] * 4)  # a resumed run reads the saved verdicts, it does not sample anew
    assert len(probed(data, again, trainer, 4, tmp_path)) == 2 and again.calls == 0
    with pytest.raises(ValueError, match="found 1 of 4 turn states"):
        probed(data, Probe([False, True, False, False]), trainer, 4, tmp_path / "other")
    with pytest.raises(ValueError, match="the states changed"):
        probed(data.select([0, 1]), again, trainer, 4, tmp_path)


class BatchLog(FakeGenerator):
    """A FakeGenerator that records the size of every call."""

    def __init__(self, replies):
        super().__init__(replies)
        self.sizes = []

    def __call__(self, prompts, trainer, seeds=None):
        self.sizes.append(len(prompts))
        return super().__call__(prompts, trainer, seeds)


def test_a_student_continuation_keeps_what_the_sample_left_out(silver, turns):
    silent = '{"action_type": "none", "argument": "", "to": []}'

    def by_teacher_of(turn):
        state, teacher = turn
        prompt = [{"role": "user", "content": state.prompt}]
        return (
            state,
            teacher,
            prompt,
            EnvRollout([state], silver, FakeGenerator([silent]))([prompt], None),
        )

    # a seat whose teacher-continued episode earns a reward (InfoMgmt is 0 while IA is 0)
    shares = (
        t for s in silver for t in turns[s.scenario_id] if t[1]["argument"].startswith("Sharing")
    )
    state, teacher, prompt, by_teacher = next(
        r for r in map(by_teacher_of, shares) if r[3]["env_reward"][0] > 0
    )
    student = BatchLog([silent])  # the sample and every later turn of the seat: silence
    by_student = EnvRollout([state], silver, student, continuation="student")([prompt], None)
    # the teacher repairs the omission a turn later; a silent student never does
    assert by_student["da"][0] < by_teacher["da"][0]
    assert by_student["env_reward"][0] < by_teacher["env_reward"][0]
    assert len(student.sizes) > 1  # the seat's later turns were the student's
    # the teacher's reply, continued by the same silent student, discloses more than silence
    then_silent = BatchLog([json.dumps(teacher)] + [silent] * 99)
    shares = EnvRollout([state], silver, then_silent, continuation="student")([prompt], None)
    assert shares["da"][0] > by_student["da"][0]


def test_the_student_turns_of_a_group_are_sampled_in_batches(silver, turns):
    states = [turns[s.scenario_id][0][0] for s in silver]
    prompts = [[{"role": "user", "content": st.prompt}] for st in states for _ in range(4)]
    silent = '{"action_type": "none", "argument": "", "to": []}'
    student = BatchLog([silent])
    out = EnvRollout(states, silver, student, max_turns=20, continuation="student")(prompts, None)
    assert len(out["env_reward"]) == 12 and not any(math.isnan(r) for r in out["env_reward"])
    # the first call is the group's samples, each later one every episode still waiting
    assert student.sizes[0] == 12 and max(student.sizes[1:]) == 12
    assert sum(student.sizes) - 12 <= 12 * 20 and len(student.sizes) <= 21
    # with the teacher playing on, the samples are the only call
    teacher = BatchLog([silent])
    EnvRollout(states, silver, teacher, max_turns=20, continuation="teacher")(prompts, None)
    assert teacher.sizes == [12]


def test_a_turn_level_rollout_pays_each_reply_its_one_step_score(silver, turns):
    """``continuation="none"``: nobody plays on; a reply earns what it does at its turn (the
    best-of-K stage's score), a leak costs its penalty, garbage its format penalty, and a group
    of equal replies is masked out."""
    s = silver[0]
    state, teacher = _first_share(turns[s.scenario_id])
    replies = [
        json.dumps(teacher),
        '{"action_type": "none", "argument": "", "to": []}',
        json.dumps({"action_type": "speak", "argument": _secret(s, state.seat), "to": []}),
        "not json at all",
    ]
    prompt = [{"role": "user", "content": state.prompt}]
    out = EnvRollout([state], silver, FakeGenerator(replies), continuation="none")(
        [prompt] * 4, None
    )
    share, silent, leak, garbage = out["env_reward"]
    assert share > silent > leak and garbage == pytest.approx(silent - 0.05)
    for reply, got in zip(replies, out["env_reward"], strict=True):
        assert got == asyncio.run(turn_score(state, s, reply, 40))[1]
    assert all(all(m) for m in out["env_mask"])
    tied = EnvRollout([state], silver, FakeGenerator(replies[1:2]), continuation="none")
    assert not any(map(any, tied([prompt] * 4, None)["env_mask"]))


def test_an_unknown_continuation_is_refused(silver):
    with pytest.raises(ValueError, match="continuation must be one of"):
        EnvRollout([], silver, FakeGenerator(["x"]), continuation="replay")


class SeededStudent:
    """Samples as a seeded server would: its reply is a function of the prompt and the seed.

    The first call (the group's samples, unseeded) returns ``sample``; in later calls (the
    student playing on) a coin drawn from the seed picks ``leak`` or silence.
    """

    def __init__(self, sample, leak):
        self.sample, self.leak, self.seeds = sample, leak, []

    def __call__(self, prompts, trainer, seeds=None):
        self.seeds.append(seeds)
        if seeds is None:
            texts = [self.sample] * len(prompts)
        else:
            texts = [self.leak if random.Random(seed).random() < 0.5 else self.sample
                     for seed in seeds]  # fmt: skip
        return [Sample([1], [2], None, t) for t in texts]


def test_a_groups_samples_are_played_on_with_common_random_numbers(silver, turns):
    s = silver[0]
    first = turns[s.scenario_id][0][0]
    states = [st for st, _ in turns[s.scenario_id] if st.seat == first.seat][:2]
    prompts = [[{"role": "user", "content": st.prompt}] for st in states for _ in range(4)]
    silent = '{"action_type": "none", "argument": "", "to": []}'
    leaks = {"action_type": "speak", "argument": _secret(s, states[0].seat), "to": []}
    gen = SeededStudent(silent, json.dumps(leaks))
    out = EnvRollout(states, silver, gen, max_turns=20, continuation="student")(
        prompts, SimpleNamespace(state=SimpleNamespace(global_step=3))
    )
    assert gen.seeds[0] is None  # the group's samples themselves are drawn independently
    assert sum(map(len, gen.seeds[1:])) > 8
    # identical samples drew identical continuations (leaking at the same turns), so they tie
    # and the tie is masked out; drawn independently, their leaks would tell them apart
    assert max(out["cpv"]) > 0
    assert len(set(out["env_reward"][:4])) == 1 and len(set(out["env_reward"][4:])) == 1
    assert out["tied"] == [1.0] * 8
    # a seed is the same within a group at a turn, new at each turn, state and training step
    key = states[0].key
    assert continuation_seed(key, 3, 5) == continuation_seed(key, 3, 5)
    assert (
        len(
            {
                continuation_seed(key, 3, 5),
                continuation_seed(key, 3, 6),
                continuation_seed(states[1].key, 3, 5),
                continuation_seed(key, 4, 5),
            }
        )
        == 4
    )


def test_the_teacher_reply_at_a_state_is_what_it_did_there_in_its_own_episode(silver, turns):
    """Its counters are rebuilt from the seat's earlier turns, waiting and leaving included."""
    s = silver[1]
    for state, action in turns[s.scenario_id]:
        assert json.loads(teacher_reply(state, s, max_turns=40)) == action, state.step
    assert {a["action_type"] for _, a in turns[s.scenario_id]} >= {"speak", "leave"}


class WordTokenizer:
    """A stand-in for the trainer's tokenizer: one id per word, and an EOS id."""

    eos_token_id = 7

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [100 + k for k, _ in enumerate(text.split())]}


class LeakThenSilence(BatchLog):
    """Samples ``leak`` for the group, then keeps the seat silent when it plays on."""

    def __init__(self, leak):
        super().__init__(['{"action_type": "none", "argument": "", "to": []}'])
        self.leak = leak

    def __call__(self, prompts, trainer, seeds=None):
        out = super().__call__(prompts, trainer, seeds)
        return (
            [Sample(x.prompt_ids, x.completion_ids, None, self.leak) for x in out]
            if len(self.sizes) == 1
            else out
        )


def test_a_guided_group_holds_the_teachers_reply_and_scores_it_like_the_others(silver, turns):
    s = silver[0]
    state, action = _first_share(turns[s.scenario_id])
    prompt = [{"role": "user", "content": state.prompt}]
    leak = json.dumps({"action_type": "speak", "argument": _secret(s, state.seat), "to": []})
    trainer = SimpleNamespace(processing_class=WordTokenizer(),
                              state=SimpleNamespace(global_step=0))  # fmt: skip
    student = LeakThenSilence(leak)
    out = EnvRollout([state], silver, student, continuation="student", guide="teacher")(
        [prompt] * 4, trainer
    )
    teacher = teacher_reply(state, s, max_turns=40)
    assert json.loads(teacher) == action
    # the first sample is the teacher's reply, ending in EOS, on the group's own prompt
    assert out["completion_ids"][0] == [100 + k for k in range(len(teacher.split()))] + [7]
    assert out["prompt_ids"][0] == out["prompt_ids"][1]
    # played on by the student like the others (its later turns: silence) and scored alike
    assert out["cpv"][0] == 0 < out["cpv"][1] and out["da"][0] > out["da"][1]
    assert len(student.sizes) > 1
    edge = out["env_reward"][0] - out["env_reward"][1]
    assert edge >= 2.0 and out["guide_edge"] == [pytest.approx(edge)] * 4
    assert all(all(m) for m in out["env_mask"]) and out["logprobs"] is None
    assert "guide_edge_reward" in [f.__name__ for f in reward_functions(guided=True)[0]]


def test_a_leave_guide_ends_the_seat_and_is_paid_for_what_it_left_unsaid(silver, turns):
    s = silver[0]
    state, _ = _first_share(turns[s.scenario_id])
    prompt = [{"role": "user", "content": state.prompt}]
    trainer = SimpleNamespace(processing_class=WordTokenizer(),
                              state=SimpleNamespace(global_step=0))  # fmt: skip
    student = BatchLog([reply_text(AgentAction.none())])
    out = EnvRollout([state], silver, student, continuation="student", guide="leave")(
        [prompt] * 4, trainer
    )
    leave = reply_text(AgentAction.leave())
    assert out["completion_ids"][0] == [100 + k for k in range(len(leave.split()))] + [7]
    # the seat that left is never asked again: later batches hold the three others only
    assert student.sizes[0] == 4 and set(student.sizes[1:]) == {3}
    # leaving before its facts are said costs what silence costs, and is scored like it
    assert out["da"][0] == pytest.approx(out["da"][1]) and out["cpv"][0] == 0
    assert out["guide_edge"][0] == pytest.approx(out["env_reward"][0] - out["env_reward"][1])


def test_an_unknown_guide_is_refused():
    with pytest.raises(ValueError, match="guide must be one of"):
        EnvRollout([], [], FakeGenerator([]), guide="oracle")


def test_grpo_reads_the_states_of_several_episode_files_or_their_folders(silver, tmp_path):
    from training.grpo import GRPOScriptArguments, _states

    history = teacher_states([silver[0]])[-1].history
    record = {"scenario_id": silver[0].scenario_id, "actions": [list(a) for a in history]}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "episodes.jsonl").write_text(json.dumps(record) + "\n")
    one = _states(GRPOScriptArguments(episodes=str(tmp_path / "a" / "episodes.jsonl")), silver)
    both = _states(GRPOScriptArguments(episodes=f"{tmp_path / 'a'},{tmp_path / 'b' / 'episodes.jsonl'}"), silver)  # fmt: skip
    assert one and [s.prompt for s in both] == [s.prompt for s in one] * 2


def test_grpo_names_the_episodes_it_cannot_find_before_loading_anything(silver, tmp_path):
    """A stage run before the one that plays its episodes says which is missing and what to run."""
    from training.grpo import GRPOScriptArguments, _states

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "episodes.jsonl").write_text("")
    gone = tmp_path / "round-1"
    with pytest.raises(ValueError, match=rf"no recorded episodes at {gone}.*run the stage"):
        _states(GRPOScriptArguments(episodes=f"{tmp_path / 'a'},{gone}"), silver)
