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
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ValidationError

from policies import prompts
from policies.state import BeliefState, SelfFocusedState, State, capped, render
from sotopia_tom_env import AgentAction, AgentID, Roster, parse_action
from sotopia_tom_env.actions import action_model
from sotopia_tom_env.brief import split_observation
from sotopia_tom_env.llm.client import redact

STRATEGIES = ("basic", "cot", "tom", "tom_coach", "tom_belief", "self_focused")
_STATEFUL = {"tom_belief": (BeliefState, prompts.BELIEF_INIT, prompts.BELIEF_UPDATE),
             "self_focused": (SelfFocusedState, prompts.PLAN_INIT, prompts.PLAN_UPDATE)}  # fmt: skip


class PromptedPolicy:
    """An LLM player following one of the paper's prompting strategies.

    Args:
        agent: the agent id it plays.
        client: a chat client (``sotopia_tom_env.llm``).
        strategy: one of :data:`STRATEGIES`.
        temperature: sampling temperature of the action call (auxiliary calls use 0.2).
        max_tokens: generation budget of the action call; by default enough for the longest
            allowed message even at one character per token, so the JSON always closes.
        message_chars: longest message the reply schema allows (never above the env's limit).
        record_calls: keep each LLM call's prompt and reply (see :meth:`take_calls`), so they
            are saved with the episode; turn it off to keep results files small.
    """

    def __init__(self, agent: AgentID, client: Any, strategy: str = "basic", *, temperature: float = 0.7,
                 max_tokens: int | None = None, aux_max_tokens: int = 768, message_chars: int = 400,
                 record_calls: bool = True) -> None:  # fmt: skip
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose from {STRATEGIES}")
        self.agent, self.client, self.name = agent, client, strategy
        self.temperature, self.aux_max_tokens, self.message_chars = (
            temperature,
            aux_max_tokens,
            message_chars,
        )
        self.max_tokens = max_tokens or message_chars + 100  # + the JSON around the message
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
        # The reply schema names the valid recipients, so constrained decoding cannot invent one.
        self.reply_model = action_model(others, min(self.message_chars, self.max_chars))
        self.state: State | None = None
        self.processed = 0  # visible messages already folded into the state

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction | str:
        """One acting turn: the auxiliary calls of the strategy, then the action."""
        self.stats["turns"] += 1
        self.calls = []  # only this turn's calls are kept, even if nobody takes them
        text = observation["text"]
        brief, messages, _ = split_observation(text)
        aux = ""
        if self.name == "tom_coach" and messages:
            aux = await self._coach(text)
        elif self.name in _STATEFUL:
            aux = await self._track(brief, messages, info.get("step", 0))
        return await self._action(text, aux)

    # -- the action call ------------------------------------------------------------------------

    async def _action(self, observation: str, aux: str) -> AgentAction | str:
        others = [r for r in self.roster.roles if r != self.role]
        prompt = prompts.action_prompt(self.name, self.role, observation, others, aux)
        error = None
        for attempt in range(2):
            content = prompt if error is None else prompt + prompts.RETRY.format(error=error)
            reply = await self._call(
                content, self.reply_model, self.temperature, self.max_tokens, "action"
            )
            if reply is None:
                break
            _, error = parse_action(reply, self.agent, self.roster, self.max_chars)
            if error is None:
                self.stats["first_try_ok" if attempt == 0 else "retry_ok"] += 1
                return (
                    reply  # the env parses the model's own words, so format penalties stay honest
                )
            self.stats["invalid_replies"] += 1
            self.rejected.append(error)
        self.stats["fallback_none"] += 1
        return AgentAction.none()

    # -- ToM-Coach ------------------------------------------------------------------------------

    async def _coach(self, observation: str) -> str:
        prompt = prompts.COACH.format(role=self.role, observation=observation)
        note = await self._call(prompt, None, 0.2, self.aux_max_tokens, "coach")
        return prompts.COACH_WRAPPER.format(note=note.strip()) if note and note.strip() else ""

    # -- ToM-Belief and Self-Focused ---------------------------------------------------------------

    async def _track(self, brief: str, messages: list[str], step: int) -> str:
        model, init, update = _STATEFUL[self.name]
        others = [r for r in self.roster.roles if r != self.role]
        if self.state is None:
            prompt = init.format(role=self.role, others=", ".join(others), observation=brief)
            self.state = await self._structured(prompt, model)
            self.processed = 0
        if self.state is not None and len(messages) > self.processed:
            new = "\n".join(messages[self.processed :])
            prompt = update.format(
                role=self.role, brief=brief, state=self.state.model_dump_json(indent=1), new=new
            )
            updated = await self._structured(prompt, model)
            if updated is not None:
                self.state, self.processed = updated, len(messages)
            else:
                self.stats["state_update_failures"] += 1  # keep the previous state
        if self.state is None:
            return ""
        self.state = capped(self.state, others)
        return render(self.state)

    async def _structured(self, prompt: str, model: type[BaseModel]) -> Any:
        reply = await self._call(prompt, model, 0.2, self.aux_max_tokens, "state")
        if reply is None:
            return None
        try:
            return model.model_validate_json(reply)
        except ValidationError:
            self.stats["invalid_state"] += 1
            return None

    async def _call(self, content: str, schema: type[BaseModel] | None, temperature: float,
                    max_tokens: int, purpose: str = "call") -> str | None:  # fmt: skip
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
        call["reply"] = result.text
        self.stats["prompt_tokens"] += result.prompt_tokens
        self.stats["completion_tokens"] += result.completion_tokens
        return result.text
