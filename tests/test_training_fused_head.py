"""Scoring only the labelled positions: the same loss and gradients, the prompt left unprojected."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
trl_utils = pytest.importorskip("trl.trainer.utils")
from peft import LoraConfig, get_peft_model  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

from training.fused_head import score_labelled_positions_only  # noqa: E402

VOCAB, LENGTH, REPLY = 512, 48, 6


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)  # fmt: skip
    base = LlamaForCausalLM(config)
    # as SFTTrainer does, before PEFT wraps the model
    trl_utils.add_fused_lm_head(base, outputs=("log_probs", "entropy", "is_top1"))
    lora = LoraConfig(r=4, target_modules="all-linear", init_lora_weights=False)
    return get_peft_model(base, lora)


def _step(model, ids, labels):
    """Loss, LoRA gradients and the entropy the trainer logs, from one fused forward pass."""
    model.zero_grad()
    out = model(input_ids=ids, labels=labels, fused_lm_head=True)
    loss = -out.log_probs.sum() / (labels != -100).sum()
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return loss.detach(), grads, out.entropy.detach()


def test_the_loss_and_gradients_are_those_of_scoring_every_position(model):
    ids = torch.randint(0, VOCAB, (2, LENGTH))
    labels = ids.clone()
    labels[:, : LENGTH - REPLY] = -100  # completion-only loss: the reply is labelled
    loss, grads, entropy = _step(model, ids, labels)
    with score_labelled_positions_only():
        compact_loss, compact_grads, compact_entropy = _step(model, ids, labels)
    assert grads, "the LoRA weights should get gradients"
    torch.testing.assert_close(compact_loss, loss)
    torch.testing.assert_close(compact_entropy, entropy)
    for name, grad in grads.items():
        torch.testing.assert_close(compact_grads[name], grad, msg=name)


def test_only_the_labelled_positions_reach_the_vocabulary_projection(model, monkeypatch):
    rows: list[int] = []
    chunked = trl_utils._ChunkedLogProbFunction

    class Recording(chunked):
        @staticmethod
        def forward(ctx, hidden, *args):
            rows.append(hidden.shape[0])
            return chunked.forward(ctx, hidden, *args)

    monkeypatch.setattr(trl_utils, "_ChunkedLogProbFunction", Recording)
    ids = torch.randint(0, VOCAB, (1, LENGTH))
    labels = ids.clone()
    labels[:, : LENGTH - REPLY] = -100
    model(input_ids=ids, labels=labels, fused_lm_head=True)
    with score_labelled_positions_only():
        model(input_ids=ids, labels=labels, fused_lm_head=True)
    model(input_ids=ids, labels=labels, fused_lm_head=True)
    # Every position but the last is scored outside the block, the reply's REPLY inside it,
    # and leaving the block restores TRL's own choice.
    assert rows == [LENGTH - 1, REPLY, LENGTH - 1]
