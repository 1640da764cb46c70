"""Sampling backends for the rollout: the trainer's own model, in process.

In-process generation is what tests and the smoke config use (no server to start). It samples
without constrained decoding, so the reply format is learnt, not forced, and the policy-gradient
terms are computed on the tokens the model really chose.
"""

from __future__ import annotations

from typing import Any

from training.rollout import Sample


class InProcessGenerator:
    """Samples one reply per prompt with the model being trained (batched ``generate``).

    Args:
        max_new_tokens: longest reply; a cut-off reply is malformed JSON and pays its penalty.
        temperature: sampling temperature (GRPO needs diverse samples within a group).
        top_p: nucleus sampling.
    """

    def __init__(
        self, max_new_tokens: int = 160, temperature: float = 1.0, top_p: float = 1.0
    ) -> None:
        self.max_new_tokens, self.temperature, self.top_p = max_new_tokens, temperature, top_p

    def __call__(self, prompts: list[list[dict[str, Any]]], trainer: Any) -> list[Sample]:
        """One sample per prompt, in order."""
        import torch
        from trl.models.utils import unwrap_model_for_generation

        tok = trainer.processing_class
        texts = [
            tok.apply_chat_template(p, add_generation_prompt=True, tokenize=False) for p in prompts
        ]
        enc = tok(
            texts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False
        )
        enc = enc.to(trainer.accelerator.device)
        with (
            unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator) as model,
            torch.no_grad(),
        ):
            out = model.generate(**enc, do_sample=True, temperature=self.temperature, top_p=self.top_p,
                                 max_new_tokens=self.max_new_tokens, pad_token_id=tok.pad_token_id)  # fmt: skip
        width = enc["input_ids"].shape[1]
        return [self._sample(tok, enc, out, i, width) for i in range(len(prompts))]

    @staticmethod
    def _sample(tok: Any, enc: Any, out: Any, i: int, width: int) -> Sample:
        prompt_ids = enc["input_ids"][i][enc["attention_mask"][i].bool()].tolist()
        completion = out[i, width:].tolist()
        if (
            tok.eos_token_id in completion
        ):  # keep the EOS (the model must learn to stop), drop padding
            completion = completion[: completion.index(tok.eos_token_id) + 1]
        text = tok.decode(completion, skip_special_tokens=True)
        return Sample(prompt_ids=prompt_ids, completion_ids=completion, logprobs=None, text=text)
