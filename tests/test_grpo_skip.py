"""A GRPO batch whose every token is masked (tied groups) costs no model pass and trains the same."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from training.grpo import skipping_tied, teaches, zero_loss  # noqa: E402


class Recorder:
    """Stands in for TRL's GRPOTrainer: records which model passes were asked for."""

    def __init__(self, env_mask):
        self.env_mask, self.calls = env_mask, []

    def _generate(self, prompts):
        return (prompts, [[1, 2]] * len(prompts), self.env_mask)

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep,
                                           *args, **kwargs):  # fmt: skip
        self.calls.append("grad" if torch.is_grad_enabled() else "no-grad")
        return torch.full((input_ids.size(0), logits_to_keep), -1.0), None, None

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        self.calls.append("loss")
        return torch.tensor(1.0, requires_grad=True)


def batch(tool_mask):
    mask = torch.tensor(tool_mask)
    return {"completion_mask": torch.ones_like(mask), "tool_mask": mask}


@pytest.mark.parametrize(
    "env_mask, passes",
    [([[0, 0], [0, 0]], []), ([[0, 0], [1, 1]], ["no-grad", "loss"])],
    ids=["all tied", "one group untied"],
)
def test_model_passes_only_for_a_batch_that_teaches(env_mask, passes):
    trainer = skipping_tied(Recorder)(env_mask)
    model = torch.nn.Linear(2, 1)
    trainer._generate(["a", "b"])
    with torch.no_grad():  # TRL's reference pass
        ref, _, _ = trainer._get_per_token_logps_and_entropies(
            model, torch.zeros(2, 5, dtype=torch.long), None, 2
        )
    assert ref.shape == (2, 2)
    loss = trainer.compute_loss(model, batch(env_mask))
    assert trainer.calls == passes
    assert (loss.item() == 0.0) == (not passes)


def test_a_skipped_batch_gives_every_trainable_parameter_a_zero_gradient():
    """As the masked loss would: Adam then sees the same all-zero gradients, not missing ones."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    model[1].bias.requires_grad_(False)
    loss = zero_loss(model)
    loss.backward()
    assert loss.item() == 0.0
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert all(p.grad is not None and not p.grad.any() for p in trainable)
    assert model[1].bias.grad is None


def test_a_batch_teaches_when_any_completion_token_counts():
    assert not teaches(batch([[0, 0, 0]]))
    assert teaches(batch([[0, 1, 0]]))
    padded = {"completion_mask": torch.tensor([[1, 0]]), "tool_mask": torch.tensor([[0, 1]])}
    assert not teaches(padded)  # the only unmasked env token is padding
    assert teaches({"completion_mask": torch.tensor([[1, 0]])})  # no env mask: TRL's own masking
