"""How a bench run is played: its LLM clients, its phases (one per set of weights), its executor.

The command line checks the options and owns the output; this module opens the servers and
clients each phase needs and plays the phase's episodes through the runner (local) or the Ray
executor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sotopia_tom_app.bench.ray_executor import Endpoint, Endpoints
from sotopia_tom_app.bench.runner import BenchRun


@dataclass(frozen=True)
class Backends:
    """Where a run's LLMs come from: the players' and the judge's endpoints, or a Ray cluster.

    ``base_url`` None starts a local server; ``ray`` (the workers' endpoints) None plays in
    this process.
    """

    model: str | None = None
    base_url: str | None = None
    judge: Endpoint = (None, None)
    ray: Endpoints | None = None
    workers: int | None = None
    address: str | None = None


def play(run: BenchRun, backends: Backends, concurrency: int) -> None:
    """Play the run's unfinished episodes: on Ray, or here one phase (set of weights) at a time."""
    from policies import SCRIPTED

    if backends.ray:
        if any(p not in SCRIPTED for p in run.config.policies):
            run.note_budgets(None)  # the workers' --base-url endpoints do not say their context
        play_on_ray(run, backends, concurrency)
        return
    for only, weights in phases(run.config.policies, backends.base_url, run.config.partners):
        left = run.count(only)
        if left:
            play_phase(run, backends, concurrency, (only, weights), left)


def play_phase(
    run: BenchRun, backends: Backends, concurrency: int, phase: tuple[set[str], Any], left: int
) -> None:
    """Play the ``left`` episodes of one phase's policies on the weights they need.

    ``phase`` is ``(policies, weights)`` as :func:`phases` gives it: one adapter is served merged
    into the base model, several (or one beside the base model) through LoRA.
    """
    from policies import SCRIPTED
    from sotopia_tom_app.bench.judging import judge_client

    only, weights = phase
    partners = run.config.partners
    need = any(p not in SCRIPTED for p in (*only, *([partners] if partners else [])))
    model, base_url = backends.model, backends.base_url
    spec = weights if weights is not None and not isinstance(weights, tuple) else None
    lora = weights if isinstance(weights, tuple) else ()
    with (
        merged_client(model, spec, concurrency)
        if spec
        else players_client(need, model, base_url, lora, concurrency) as client,
        # The merged weights are not the base model: an LLM judge gets its own.
        judge_client(
            run.config.judge, None if spec else client, (model, base_url), backends.judge
        ) as judge_llm,
    ):
        if need:
            run.note_budgets(client)
        asyncio.run(play_local(run, client, judge_llm, concurrency, left, only))


class OptionError(ValueError):
    """An option value that cannot work; the command line reports it against ``option``."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


@contextmanager
def players_client(
    needed: bool,
    model: str | None,
    base_url: str | None,
    trained: Any = (),
    concurrency: int = 16,
    episodes: int | None = None,
) -> Iterator[Any]:
    """The players' chat client for ``concurrency`` requests (and ``episodes``) in flight.

    A local server also loads the trained adapters named, and then serves the base model
    through a zero adapter (``policies.trained.BASE_ADAPTER`` says why).
    """
    from policies.trained import BASE_ADAPTER, lora_server_args
    from sotopia_tom_env.serving import chat_client

    if not needed:
        yield None
        return
    server_args = () if base_url else lora_server_args(trained)
    with chat_client(
        model, base_url, max_concurrency=concurrency, server_args=server_args, episodes=episodes
    ) as client:
        yield client.routed(BASE_ADAPTER) if server_args else client


def ray_endpoints(
    executor: str,
    address: str | None,
    workers: int | None,
    players: Endpoint | None,
    judge: Endpoint | None,
) -> Endpoints | None:
    """The Ray workers' LLM endpoints (None for the local executor), checked before anything runs.

    Workers cannot share a server this process would start, so every LLM needs ``--base-url``.

    Raises:
        OptionError: naming the option that cannot work with the executor chosen.
    """
    if executor != "ray":
        for flag, value in (("--address", address), ("--workers", workers)):
            if value is not None:
                raise OptionError(flag, "it is for the Ray executor: give --executor ray too")
        return None
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise OptionError("--executor", 'ray needs Ray: pip install "sotopia-tom-env[ray]"')
    for who, ep in (("players'", players), ("judge's", judge)):
        if ep is not None and not ep[1]:
            raise OptionError(
                "--executor",
                f"with Ray the {who} LLM needs --base-url (a server on each node, e.g. "
                "http://localhost:8000/v1, or one shared endpoint); see docs/scale.md",
            )
    return Endpoints(players=players, judge=judge)


def play_on_ray(run: BenchRun, backends: Backends, concurrency: int) -> None:
    """Play the run's unfinished episodes on Ray, with a bar of episodes on stderr."""
    from tqdm import tqdm

    from sotopia_tom_app.bench.ray_executor import play_run_ray

    with tqdm(total=run.count(), unit="ep", desc="episodes") as bar:
        play_run_ray(run, endpoints=backends.ray, concurrency=concurrency,
                     workers=backends.workers, address=backends.address,
                     on_record=lambda _: bar.update())  # fmt: skip


def phases(
    names: list[str], base_url: str | None, partners: str | None = None
) -> list[tuple[set[str], Any]]:
    """The bench's policies grouped by the weights they play with, as ``(names, weights)``.

    ``weights`` is None (the base model, or scripted players), one adapter spec (served merged
    into the base model), or a tuple of specs for an episode that mixes an adapter with another
    one or with the base model (cross-play with ``partners``: served through LoRA, 13 times
    slower on CPU). A local run plays the base model's policies first, then each adapter's on
    its own server (``policies.trained`` says why); an endpoint of your own (``--base-url``)
    serves them all at once.
    """
    from policies import SCRIPTED
    from policies.trained import parse_trained

    if base_url:
        return [(set(names), None)]
    groups: dict[Any, tuple[set[str], Any]] = {}
    for n in names:  # trained:X and trained:X+cot share the same weights
        players = [n, partners] if partners else [n]
        specs = {s.path: s for p in players if (s := parse_trained(p)) is not None}
        base = any(parse_trained(p) is None and p not in SCRIPTED for p in players)
        if not specs:
            weights = None
        elif len(specs) == 1 and not base:
            weights = next(iter(specs.values()))
        else:
            weights = tuple(specs[k] for k in sorted(specs))
        key = (frozenset(specs), base and bool(specs))
        groups.setdefault(key, (set(), weights))[0].add(n)
    return sorted(groups.values(), key=lambda phase: phase[1] is not None)


@contextmanager
def merged_client(model: str | None, spec: Any, concurrency: int) -> Iterator[Any]:
    """A client of a local server of ``spec``'s adapter merged into ``model``.

    Records keep the base model's name; the requests reach the merged weights.
    """
    from policies.trained import merged_model
    from sotopia_tom_env.llm.models import resolve_model, served_model_name
    from sotopia_tom_env.serving import chat_client

    base = resolve_model(model)
    merged = str(merged_model(spec, base))
    with chat_client(merged, served_name=spec.served_name, max_concurrency=concurrency) as client:
        yield client.with_model(served_model_name(base)).routed(spec.served_name)


async def play_local(
    run: BenchRun,
    client: Any,
    judge_llm: Any,
    concurrency: int,
    total: int,
    policies: set[str] | None = None,
) -> None:
    """Play ``total`` unfinished episodes of ``policies`` in this process, with a bar on stderr."""
    from tqdm import tqdm

    from sotopia_tom_app.bench.judging import make_judge
    from sotopia_tom_app.bench.progress import CallProgress
    from sotopia_tom_app.bench.runner import play_run
    from sotopia_tom_env.llm import ClientStats

    # The calls and tokens move while episodes are in flight, not only when one ends.
    stats = client.stats if client is not None else ClientStats()
    with tqdm(total=total, unit="ep", desc="episodes") as bar:
        async with CallProgress(bar, stats) as progress:

            def tick(record: Any) -> None:
                progress.last = record.episode_id[:40]
                bar.update()

            await play_run(run, client=client, judge=make_judge(run.config.judge, judge_llm),
                           concurrency=concurrency, on_record=tick, policies=policies)  # fmt: skip
