"""Prompted LLM players: Basic, CoT-Privacy, ToM, ToM-Coach, ToM-Belief and Self-Focused.

Each acts for one agent from that agent's observation only. Calls per acting turn (spec §4):

| strategy | calls |
|---|---|
| ``basic``, ``cot``, ``tom`` | 1 action call |
| ``tom_coach`` | a coach note (once any message is visible) + the action call |
| ``tom_belief``, ``self_focused`` | first turn: state initialisation, an update if messages are visible, the action; later turns: an update if new messages arrived, then the action |

The action is requested with structured outputs (the ``AgentAction`` schema). A reply the env
would reject (bad JSON, an unknown recipient, …) gets one retry with the error shown, then the
player stays silent. A failed coach call means no note; a failed state update keeps the previous
state.

By default a player is the paper's: recipients are free text that the env resolves, unbounded
state lists, and no token budget unless the served model's context is small (the embedded
default): then each call gets a budget fitted to its purpose (``policies.budgets``), and a reply
cut by it is handled like any truncated reply. ``options`` (``policies.prompts.PLAYER_OPTIONS``)
turn on our refinements one by one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from policies import budgets, prompts
from policies.base import Policy
from policies.budgets import BudgetChoice, Budgets
from policies.guard import Guard
from policies.state import State, capped, render, state_models
from sotopia_tom_env import AgentAction, AgentID, Roster, parse_action
from sotopia_tom_env.actions import ParsedAction, action_model
from sotopia_tom_env.brief import split_observation
from sotopia_tom_env.llm.client import ChatResult, redact
from sotopia_tom_env.seat import read_seat

STRATEGIES = ("basic", "cot", "tom", "tom_coach", "tom_belief", "self_focused")
_STATEFUL = {"tom_belief": (0, prompts.BELIEF_INIT, prompts.BELIEF_UPDATE),
             "self_focused": (1, prompts.PLAN_INIT, prompts.PLAN_UPDATE)}  # fmt: skip


class PromptedPolicy:
    """An LLM player following one of the paper's prompting strategies.

    Args:
        agent: the agent id it plays.
        client: a chat client (``sotopia_tom_env.llm``).
        strategy: one of :data:`STRATEGIES`.
        temperature: sampling temperature of the action call (auxiliary calls use 0.2).
        max_tokens: generation budget of the action call: ``"auto"`` fits it to the served
            model and the options (``policies.budgets``; none for a large or unknown context,
            so a reasoning model can think before it answers); None sends no budget (the
            paper's choice) whatever the model; a number is that budget.
        aux_max_tokens: the same for the coach note and state calls.
        message_chars: longest message the reply schema allows; by default the env's limit,
            400 under ``short_messages`` (never above the env's limit).
        record_calls: keep each LLM call's prompt and reply (see :meth:`take_calls`), so they
            are saved with the episode; turn it off to keep results files small.
        options: our refinements to turn on, by name (``policies.prompts.PLAYER_OPTIONS``);
            none by default, which plays as the paper's players did.

    Raises:
        ValueError: for an unknown strategy or option.
    """

    def __init__(self, agent: AgentID, client: Any, strategy: str = "basic", *, temperature: float = 0.7,
                 max_tokens: BudgetChoice = "auto", aux_max_tokens: BudgetChoice = "auto",
                 message_chars: int | None = None, record_calls: bool = True,
                 options: Iterable[str] = ()) -> None:  # fmt: skip
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose from {STRATEGIES}")
        self.options = prompts.check_options(options)
        short = "short_messages" in self.options
        self.agent, self.client, self.name = agent, client, strategy
        self.temperature = temperature
        self.message_chars = message_chars or (prompts.SHORT_MESSAGE_CHARS if short else None)
        self.max_tokens, self.aux_max_tokens = max_tokens, aux_max_tokens
        self.budgets = Budgets()  # resolved in reset, once the schema's message cap is known
        self.rejected: list[str] = []  # why replies were refused, for debugging prompts
        self.errors: list[str] = []  # LLM calls that failed for good (credentials redacted)
        self.stats: Counter[str] = Counter()
        self.record_calls = record_calls
        self.calls: list[dict[str, Any]] = []  # this turn's calls, until taken

    def take_calls(self) -> list[dict[str, Any]]:
        """The LLM calls of the last turn not taken yet, oldest first (prompt, reply, options)."""
        calls, self.calls = self.calls, []
        return calls

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Learn who is who (public information in the reset info) and forget the last episode."""
        self.role = info["role"]
        self.roster = Roster(list(info["participants"].values()))
        self.max_chars = info.get("max_message_chars", 2000)
        others = tuple(r for r in self.roster.roles if r != self.role)
        chars = min(self.message_chars or self.max_chars, self.max_chars)
        if "compact" in self.options:  # the compact layout names the others by agent id
            others = tuple(a for a, r in self.roster.role_of.items() if r != self.role)
        if "recipient_enum" in self.options:  # constrained decoding cannot invent a name
            self.reply_model = action_model(others, chars)
        else:
            self.reply_model = action_model(None, chars)
        self.budgets = budgets.resolve(
            self.options, message_chars=chars, action=self.max_tokens, aux=self.aux_max_tokens,
            context_tokens=getattr(self.client, "context_tokens", None),
        )  # fmt: skip
        self.state: State | None = None
        self.initialised = False  # the record is initialised once, as in the paper's players
        self.processed = 0  # visible messages already folded into the state
        self.brief = split_observation(observation["text"])[0]  # all the record's init reads
        ruled = {"guard", "channel"} & set(self.options)
        self.guard = Guard(read_seat(observation["text"])) if ruled else None
        self.begun_calls: list[dict[str, Any]] = []  # calls of begin(), kept for the first turn

    async def begin(self) -> None:
        """Initialise the state record (tom_belief, self_focused) before the first turn.

        Its prompt reads only the seat's brief, so every seat can start it together when the
        episode starts (``play_episode`` awaits each seat's ``begin`` at once): in a turn-based
        episode the init calls are batched instead of made one seat at a time.
        """
        if self.name in _STATEFUL:
            await self._init_record()
            self.begun_calls, self.calls = self.calls, []

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction | str:
        """One acting turn: the auxiliary calls of the strategy, then the action."""
        self.stats["turns"] += 1
        # only this turn's calls are kept, even if nobody takes them (and begin()'s on the first)
        self.calls, self.begun_calls = self.begun_calls, []
        text = observation["text"]
        brief, messages, _ = split_observation(text)
        aux = ""
        if self.name == "tom_coach" and messages:
            aux = await self._coach(text)
        elif self.name in _STATEFUL:
            # info["step"] counts finished steps; the status line announces the next one
            aux = await self._track(brief, messages, info.get("step", 0) + 1)
        return await self._action(text, aux)

    # -- the action call ------------------------------------------------------------------------

    async def _action(self, observation: str, aux: str) -> AgentAction | str:
        others = [r for r in self.roster.roles if r != self.role]
        prompt = prompts.action_prompt(
            self.name, self.role, observation, others, aux, options=self.options
        )
        budget, error = self.budgets.action, None
        for attempt in range(2):
            content = prompt if error is None else prompt + prompts.RETRY.format(error=error)
            result = await self._call(content, self.reply_model, self.temperature, budget, "action")
            if result is None:
                break
            parsed, error = parse_action(result.text, self.agent, self.roster, self.max_chars)
            if error is None:
                self.stats["first_try_ok" if attempt == 0 else "retry_ok"] += 1
                if self.guard is not None and parsed.action_type == "speak":
                    return self._ruled(parsed, result.text, observation)
                # the env parses the model's own words, so format penalties stay honest
                return result.text
            if _was_cut(result):  # say why, so the retry can write less
                error = f"it was cut off at {_limit(budget)} before it was complete ({error})"
            self.stats["invalid_replies"] += 1
            self.rejected.append(error)
        self.stats["fallback_none"] += 1
        return AgentAction.none()

    def _ruled(self, parsed: ParsedAction, raw: str, observation: str) -> AgentAction | str:
        """The reply once the ``guard`` and ``channel`` options have read it (policies.guard)."""
        view = read_seat(observation)
        mine = [m for m in view.messages if m.sender == view.role]
        text, to, changed = parsed.argument, parsed.recipients, False
        if "guard" in self.options:
            text, cut = self.guard.clean(text, mine[-1].text if mine else None)
            if cut:
                changed = True
                self.stats["guard_cuts"] += 1
                if self.record_calls and self.calls:
                    self.calls[-1]["guard_cut"] = cut
        if "channel" in self.options and text and to:
            routed, public = self.guard.route(text, " ".join(m.text for m in mine if not m.to))
            if routed != text or public:
                changed = True
                self.stats["channel_routes"] += 1
                text, to = routed, () if public else to
        if not changed:
            return raw  # the env parses the model's own words, so format penalties stay honest
        return AgentAction.speak(text, to=to) if text else AgentAction.none()

    # -- ToM-Coach ------------------------------------------------------------------------------

    async def _coach(self, observation: str) -> str:
        prompt = prompts.COACH.format(role=self.role, observation=observation)
        # A note cut by its budget is used as far as it goes, as any truncated note would be.
        result = await self._call(prompt, None, 0.2, self.budgets.coach, "coach")
        note = result.text.strip() if result is not None else ""
        return prompts.COACH_WRAPPER.format(note=note) if note else ""

    # -- ToM-Belief and Self-Focused ---------------------------------------------------------------

    async def _track(self, brief: str, messages: list[str], step: int) -> str:
        which, _, update = _STATEFUL[self.name]
        bounded = "capped_beliefs" in self.options
        model = state_models(bounded)[which]
        others = [r for r in self.roster.roles if r != self.role]
        await self._init_record()
        if self.state is not None and len(messages) > self.processed:
            new = "\n".join(messages[self.processed :])
            prompt = update.format(
                role=self.role, brief=brief, state=self.state.model_dump_json(indent=1), new=new,
                step=step,
            )  # fmt: skip
            updated = await self._structured(prompt, model, "state_update")
            if updated is not None:
                self.state, self.processed = updated, len(messages)
            else:
                self.stats["state_update_failures"] += 1  # keep the previous state
        if self.state is None:
            return ""
        self.state = capped(self.state, others, bounded=bounded)
        return render(self.state)

    async def _init_record(self) -> None:
        if self.initialised:  # a failed init is not retried: the seat plays without a record
            return
        self.initialised = True
        which, init, _ = _STATEFUL[self.name]
        others = [r for r in self.roster.roles if r != self.role]
        prompt = init.format(role=self.role, others=", ".join(others), observation=self.brief)
        model = state_models("capped_beliefs" in self.options)[which]
        self.state = await self._structured(prompt, model, "state_init")

    async def _structured(self, prompt: str, model: type[BaseModel], purpose: str) -> Any:
        # A record cut by its budget is incomplete JSON: invalid, so the last good one stays.
        budget = getattr(self.budgets, purpose)
        result = await self._call(prompt, model, 0.2, budget, purpose)
        if result is None:
            return None
        try:
            return model.model_validate_json(result.text)
        except ValidationError:
            self.stats["invalid_state"] += 1
            return None

    async def _call(self, content: str, schema: type[BaseModel] | None, temperature: float,
                    max_tokens: int | None, purpose: str = "call") -> ChatResult | None:  # fmt: skip
        """One LLM call, recorded; None if it failed for good (the error is kept)."""
        self.stats["calls"] += 1
        call = {"purpose": purpose, "temperature": temperature, "max_tokens": max_tokens,
                "prompt": content, "reply": None}  # fmt: skip
        if self.record_calls:
            self.calls.append(call)
        try:
            result = await self.client.chat([{"role": "user", "content": content}], response_format=schema,
                                            temperature=temperature, max_tokens=max_tokens)  # fmt: skip
        except Exception as e:  # an LLM failure costs the turn, never the episode
            self.stats["llm_errors"] += 1
            self.last_error = redact(f"{type(e).__name__}: {e}")
            self.errors.append(f"turn {self.stats['turns']}: {self.last_error}")
            call["error"] = self.last_error
            return None
        call.update(reply=result.text, completion_tokens=result.completion_tokens,
                    finish_reason=result.finish_reason)  # fmt: skip
        self.stats["prompt_tokens"] += result.prompt_tokens
        self.stats["completion_tokens"] += result.completion_tokens
        if _was_cut(result):
            self.stats["budget_cuts"] += 1
        return result


def _was_cut(result: ChatResult) -> bool:
    """Whether generation stopped at the token limit rather than at the model's own end."""
    return result.finish_reason == "length"


def _limit(budget: int | None) -> str:
    return f"its {budget}-token budget" if budget else "the server's token limit"


PolicyT = TypeVar("PolicyT", bound=Policy)


def with_budget(policy: PolicyT, max_tokens: BudgetChoice) -> PolicyT:
    """``policy`` with ``max_tokens`` as the budget of all its calls, if it is a prompted player.

    For an application's ``--max-tokens`` (players come from ``make_policy``); call it before
    the player's ``reset``. ``"auto"`` and the other players are left as they are.
    """
    if isinstance(policy, PromptedPolicy) and max_tokens != "auto":
        policy.max_tokens = policy.aux_max_tokens = max_tokens
    return policy
