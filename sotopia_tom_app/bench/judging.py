"""Judging played episodes with the rule judge or an LLM judge, and where the LLM judge runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rewards import LLMJudge, RuleJudge, Scores, score
from rewards.verdicts import Judgment
from scenarios import Scenario
from sotopia_tom_env.transcript import Transcript

JUDGES = ("rule", "llm")


async def judge_episode(
    judge: Any, scenario: Scenario, transcript: Transcript
) -> tuple[Judgment, Scores]:
    """Verdicts and scores of one episode (async for LLM judges, direct for the rule judge)."""
    if isinstance(judge, LLMJudge):
        judgment = await judge.ajudge(scenario, transcript)
    else:
        judgment = judge.judge(scenario, transcript)
    return judgment, score(judgment, scenario, transcript.rounds)


def check_judge(kind: str) -> str:
    """Return ``kind`` if it names a judge; raise ``ValueError`` naming the choices otherwise."""
    if kind not in JUDGES:
        raise ValueError(f"unknown judge {kind!r}; use one of: {', '.join(JUDGES)}")
    return kind


def make_judge(kind: str, client: Any = None, **llm_options: Any) -> Any:
    """``"rule"`` -> :class:`RuleJudge`; ``"llm"`` -> :class:`LLMJudge` over ``client``.

    Args:
        kind: ``"rule"`` or ``"llm"``.
        client: the judge's chat client (only for ``"llm"``; see :func:`judge_client`).
        **llm_options: :class:`LLMJudge` options such as ``max_tokens`` (only for ``"llm"``).
    """
    if check_judge(kind) == "rule":
        return RuleJudge()
    if client is None:
        raise ValueError("the LLM judge needs a chat client")
    return LLMJudge(client, **llm_options)


def judge_endpoint(
    model: str | None,
    base_url: str | None,
    judge_model: str | None = None,
    judge_base_url: str | None = None,
) -> tuple[str | None, str | None]:
    """The LLM judge's ``(model, base_url)``: its own where given, else the players'.

    Raises:
        ValueError: a judge endpoint without a model to ask there.
    """
    endpoint = (judge_model or model, judge_base_url or base_url)
    if judge_base_url and endpoint[0] is None:
        raise ValueError("--judge-base-url needs --judge-model (the name the endpoint serves)")
    return endpoint


@contextmanager
def judge_client(
    kind: str,
    players_client: Any,
    players: tuple[str | None, str | None],
    judge: tuple[str | None, str | None],
) -> Iterator[Any]:
    """The LLM judge's chat client for the duration of the block (``None`` for the rule judge).

    The players' client is reused when the judge asks the same model at the same endpoint;
    otherwise a client is opened for the judge alone (starting a local vLLM server when the
    judge has no ``base_url``) and closed when the block ends.

    Args:
        kind: the judge kind; only ``"llm"`` opens anything.
        players_client: the players' client, or ``None`` when the players need no LLM.
        players: the players' ``(model, base_url)``.
        judge: the judge's ``(model, base_url)`` (see :func:`judge_endpoint`).
    """
    if check_judge(kind) != "llm":
        yield None
    elif players_client is not None and judge == players:
        yield players_client
    else:
        from sotopia_tom_env import serving  # looked up at call time, so tests can swap it

        with serving.chat_client(*judge) as client:
            yield client
