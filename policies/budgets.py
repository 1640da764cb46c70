"""Token budgets of the prompted players' LLM calls: one per call purpose.

A small model does not stop by itself: SmolLM2-135M's coach notes and state records run on
until a budget or the server's repetition guard ends them, and on a CPU every token costs
about 40 ms. So when the served model's context is small (the embedded default, or any model a
server serves with at most :data:`SMALL_CONTEXT_TOKENS` tokens of context), each call gets a
budget fitted to what the call must hold:

| purpose | what it must hold | budget (tokens) |
|---|---|---|
| ``action`` | the JSON action, its message at the schema's cap | cap / 3 characters a token + 48 (2000 characters: 715; 400: 182) |
| ``coach`` | the note of at most 150 words the coach prompt asks for | 150 words x 1.5 = 225 |
| ``state_init`` | a new belief or plan record: beliefs about up to 4 others, progress | 4 x 72 + 96 = 384 |
| ``state_update`` | the record again, its memory (10) and risks (5) full | 384 + 15 x 24 = 744 |

and no budget is above an eighth of the served context. The prompts are the same with or
without budgets. A model with a large or unknown context (a hosted endpoint) gets no budget, as
the paper's players did. What a player sends:

1. an explicit number (``PromptedPolicy(max_tokens=..., aux_max_tokens=...)``, ``--max-tokens
   N``) wins over everything;
2. else the fitted budgets under ``short_messages`` (with its 400-character message cap), or
   with ``"auto"`` (the default) for a small context; None (``--max-tokens none``) asks for no
   fitted budget, so the paper's players send none however small the context;
3. ``reply_ceiling`` then caps whatever is left (no budget included) at :data:`CEILING_TOKENS`.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import asdict, dataclass, fields
from typing import Literal

from policies.prompts import SHORT_MESSAGE_CHARS
from policies.state import MEMORY_CAP, RISK_CAP

BudgetChoice = int | Literal["auto"] | None
"""A budget as asked for: a number of tokens, ``"auto"`` (fitted to the served model) or None
(no budget: the server's own limit applies)."""

SMALL_CONTEXT_TOKENS = 8192
"""Served with at most this much context, a model gets the fitted budgets by default. A local
CPU server serves a model folder with no more (``server_config.CPU_MAX_MODEL_LEN``), and
SmolLM2's own context is 8,192 tokens."""
CONTEXT_SHARE = 8  # no budget above an eighth of the context: the prompt keeps the rest
CEILING_TOKENS = 1024  # reply_ceiling: 2000 characters of message and the JSON around it fit

# Sizes measured with SmolLM2's tokenizer, with room to spare, so that a valid reply fits.
CHARS_PER_TOKEN = 3  # English prose with names and figures ran 3.8-4.1 characters a token
ACTION_JSON_TOKENS = 48  # the fields, quotes and up to four recipients (23 tokens with two)
COACH_NOTE_WORDS = 150  # the upper end of the "100-150 words" prompts.COACH asks for
TOKENS_PER_WORD = 1.5  # a coach note with its headings and bullets measured 1.43
MAX_OTHERS = 4  # a scenario has 3-5 agents
BELIEF_TOKENS = 72  # one participant's beliefs, a short phrase a list: 58 measured
PROGRESS_TOKENS = 96  # the sharing progress with a few items a list (57 measured), or a plan
ENTRY_TOKENS = 24  # a memory or risk entry of one short sentence: 17-18 measured


@dataclass(frozen=True)
class Budgets:
    """Most tokens each kind of call may generate; None: no budget (the server's own limit).

    Example:
        >>> Budgets(action=715, coach=225, state_init=384, state_update=744).capped(512)
        Budgets(action=512, coach=225, state_init=384, state_update=512)
    """

    action: int | None = None
    coach: int | None = None
    state_init: int | None = None
    state_update: int | None = None

    def capped(self, ceiling: int) -> Budgets:
        """Every budget at most ``ceiling`` (a missing budget becomes ``ceiling``)."""
        each = {f.name: getattr(self, f.name) for f in fields(self)}
        return Budgets(**{k: ceiling if b is None else min(b, ceiling) for k, b in each.items()})

    def as_dict(self) -> dict[str, int | None]:
        """``{"action": ..., "coach": ..., ...}`` (for a run's configuration)."""
        return asdict(self)


def is_small(context_tokens: int | None) -> bool:
    """Whether a model served with this context gets the fitted budgets by default."""
    return context_tokens is not None and context_tokens <= SMALL_CONTEXT_TOKENS


def fitted(message_chars: int, context_tokens: int | None = None) -> Budgets:
    """The budget of each call purpose, from the reply schema's message cap and the context.

    Example:
        >>> fitted(2000, 8192)
        Budgets(action=715, coach=225, state_init=384, state_update=744)
        >>> fitted(400, 2048)  # a small context: at most an eighth of it each
        Budgets(action=182, coach=225, state_init=256, state_update=256)
    """
    init = MAX_OTHERS * BELIEF_TOKENS + PROGRESS_TOKENS
    table = Budgets(
        action=math.ceil(message_chars / CHARS_PER_TOKEN) + ACTION_JSON_TOKENS,
        coach=math.ceil(COACH_NOTE_WORDS * TOKENS_PER_WORD),
        state_init=init,
        state_update=init + (MEMORY_CAP + RISK_CAP) * ENTRY_TOKENS,
    )
    return table.capped((context_tokens or SMALL_CONTEXT_TOKENS) // CONTEXT_SHARE)


def resolve(
    options: Collection[str],
    *,
    message_chars: int,
    context_tokens: int | None,
    action: BudgetChoice = "auto",
    aux: BudgetChoice = "auto",
) -> Budgets:
    """The budgets a player sends (see the module docstring for the order).

    Args:
        options: the player options (``policies.prompts.PLAYER_OPTIONS``).
        message_chars: the longest message the player's reply schema allows.
        context_tokens: the served model's context, None when unknown.
        action: the action call's budget as asked for.
        aux: the coach note's and the state calls' budget as asked for.

    Example:
        >>> resolve((), message_chars=2000, context_tokens=8192)
        Budgets(action=715, coach=225, state_init=384, state_update=744)
        >>> resolve((), message_chars=2000, context_tokens=8192, action=None, aux=None)
        Budgets(action=None, coach=None, state_init=None, state_update=None)
        >>> resolve(("reply_ceiling",), message_chars=2000, context_tokens=None, action=64)
        Budgets(action=64, coach=1024, state_init=1024, state_update=1024)
    """
    table, small = fitted(message_chars, context_tokens).as_dict(), is_small(context_tokens)
    return Budgets(
        **{
            purpose: _one(action if purpose == "action" else aux, fit, options, small)
            for purpose, fit in table.items()
        }
    )


def _one(asked: BudgetChoice, fit: int | None, options: Collection[str], small: bool) -> int | None:
    """One purpose's budget: the number asked for, else the fitted one or none, then the ceiling."""
    if isinstance(asked, int):
        return asked
    fits = "short_messages" in options or (asked == "auto" and small)
    budget = fit if fits else None
    if "reply_ceiling" in options:
        budget = min(budget or CEILING_TOKENS, CEILING_TOKENS)
    return budget


def of_players(
    options: Collection[str],
    max_tokens: BudgetChoice,
    context_tokens: int | None,
    env_message_chars: int = 2000,
) -> Budgets:
    """The budgets a run's prompted players send (for its configuration and its messages).

    ``env_message_chars`` is the env's message cap (``EnvConfig.max_message_chars``);
    ``short_messages`` lowers the players' own, as :class:`~policies.PromptedPolicy` does.
    """
    chars = env_message_chars
    if "short_messages" in options:
        chars = min(SHORT_MESSAGE_CHARS, env_message_chars)
    return resolve(options, message_chars=chars, context_tokens=context_tokens,
                   action=max_tokens, aux=max_tokens)  # fmt: skip


def parse_choice(text: str) -> BudgetChoice:
    """A budget as a user writes it: ``auto``, ``none`` or a positive number of tokens.

    Raises:
        ValueError: for anything else, saying what is accepted.

    Example:
        >>> parse_choice("auto"), parse_choice("None"), parse_choice("256")
        ('auto', None, 256)
    """
    word = text.strip().lower()
    if word in ("auto", "none"):
        return "auto" if word == "auto" else None
    if word.isdigit() and int(word) > 0:
        return int(word)
    raise ValueError(
        f"{text!r}: give 'auto' (budgets fitted to the served model), 'none' (no budget, "
        "as the paper) or a positive number of tokens"
    )
