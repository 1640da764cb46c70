import pytest

pytest.importorskip("trl")

from training.generate import ServerGenerator


class GrowingServer:
    """A stand-in server whose worker gains a GiB with every batch it serves."""

    def __init__(self) -> None:
        self.gib, self.stopped = 3, False

    def worker_rss(self) -> int:
        self.gib += 1
        return self.gib * 2**30

    def stop(self) -> None:
        self.stopped = True


def test_the_sampling_server_is_restarted_once_its_worker_outgrows_the_bound():
    gen = ServerGenerator(max_worker_gib=5.5)
    gen.server, gen.synced_step = GrowingServer(), 7
    gen._bound_memory()  # 4 GiB: kept
    assert gen.server is not None and gen.restarts == 0
    gen._bound_memory()  # 5 GiB: kept
    server = gen.server
    gen._bound_memory()  # 6 GiB: stopped; the next batch starts a fresh one
    assert server.stopped and gen.server is None and gen.restarts == 1
    assert gen.synced_step is None  # so the current adapter is loaded into the new server


class FakeEngine:
    """Stands in for ``trainer.vllm_generation``: answers as TRL's ``generate`` does (prompt
    ids, completion ids, per-token logprobs as one-element lists, no logprob token ids)."""

    def __init__(self, tok, replies):
        self.replies = [tok(r, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
                        for r in replies]  # fmt: skip
        self.calls = []

    def generate(self, prompts, images, num_generations):
        self.calls.append((prompts, images, num_generations))
        logprobs = [[[-0.5 - k] for k in range(len(c))] for c in self.replies]
        return prompts, self.replies, logprobs, None


class FakeServer:
    def worker_rss(self):
        return 0


def test_trl_engine_samples_tokenise_and_come_back_as_the_servers_do(monkeypatch):
    """The ``trl-vllm`` backend asks TRL's engine for one sample a prompt and returns what the
    server backend returns for the same prompts: the same prompt ids (the chat template, no
    added special tokens), the engine's own completion ids with the EOS kept, the text without
    it, plus the sampled tokens' logprobs (for TRL's importance-sampling correction)."""
    import asyncio
    from types import SimpleNamespace

    from transformers import AutoTokenizer

    from sotopia_tom_env.llm.models import default_model_dir
    from training.generate import TRLVLLMGenerator

    tok = AutoTokenizer.from_pretrained(default_model_dir())
    replies = ['{"action_type":"none","argument":"","to":[]}', '{"action_type":"leave"}']
    prompts = [[{"role": "user", "content": "You are Ana. Speak."}],
               [{"role": "user", "content": "You are Bo. Leave."}]]  # fmt: skip
    engine = FakeEngine(tok, replies)
    trainer = SimpleNamespace(processing_class=tok, vllm_generation=engine,
                              state=SimpleNamespace(global_step=3))  # fmt: skip
    got = TRLVLLMGenerator()(prompts, trainer, seeds=[1, 2])

    server = ServerGenerator()
    server.server, server.synced_step = FakeServer(), 3  # started, and synced at this step

    async def complete_all(ids, seeds):
        await asyncio.sleep(0)
        return [{"token_ids": c, "text": r} for c, r in zip(engine.replies, replies, strict=True)]

    monkeypatch.setattr(server, "_complete_all", complete_all)
    want = server(prompts, trainer, seeds=[1, 2])

    ((asked, images, n),) = engine.calls
    assert images is None and n == 1 and asked == [s.prompt_ids for s in want]
    for g, w in zip(got, want, strict=True):
        assert (g.prompt_ids, g.completion_ids, g.text) == (w.prompt_ids, w.completion_ids, w.text)
        assert g.completion_ids[-1] == tok.eos_token_id and tok.eos_token not in g.text
        assert g.logprobs == [-0.5 - k for k in range(len(g.completion_ids))]
    assert [g.text for g in got] == replies
