"""GRPO fine-tuning of players with TRL on the Silver scenario set."""

__all__: list[str] = []
