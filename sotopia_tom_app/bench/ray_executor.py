"""Playing a benchmark on a Ray cluster: workers play episodes, the driver alone writes them.

Each worker is a Ray actor holding its own chat clients and playing up to ``concurrency``
episodes at once with the same code as the local runner (:func:`~.runner.play_job`). The
driver hands out jobs as slots free up, takes each finished episode as soon as Ray has it and
saves it through the same :class:`~.runner.ResultSink` as the local runner: one writer, one
line per episode, under the folder's lock, in the order episodes finish. Nothing is kept for
a batch at the end, so stopping the driver loses only the episodes in flight.

A worker process that dies (out of memory, a killed node) is restarted by Ray and its
unfinished episodes are played again (``max_restarts`` / ``max_task_retries``); finished ones
already reached the driver. An episode is seeded by its job alone, so a replayed episode is
the same episode, and the sink saves each episode id once.

Ray is an optional extra (``pip install "sotopia-tom-env[ray]"``), imported only here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sotopia_tom_app.bench.episode import EpisodeFailed
from sotopia_tom_app.bench.records import EpisodeRecord
from sotopia_tom_app.bench.runner import (
    BenchConfig,
    BenchRun,
    Job,
    ResultSink,
    open_run,
    play_job,
)
from sotopia_tom_env.llm import LLMError

# Per worker: Ray restarts a dead worker process this often and replays its unfinished calls.
RETRIES = 3

Endpoint = tuple[str | None, str | None]  # (model, base_url)


@dataclass(frozen=True)
class Endpoints:
    """Where the workers' LLM players and LLM judge are; each worker opens its own clients.

    ``None`` for a side that needs no LLM (scripted players, the rule judge). A ``base_url``
    naming ``localhost`` reaches the server on the worker's own node, so one vLLM server per
    GPU node serves the workers placed there.
    """

    players: Endpoint | None = None
    judge: Endpoint | None = None


class EpisodeWorker:
    """Plays episodes of one run (a Ray actor; a plain object in tests)."""

    def __init__(self, config: BenchConfig, endpoints: Endpoints, concurrency: int = 16) -> None:
        from sotopia_tom_app.bench.judging import judge_client, make_judge
        from sotopia_tom_env.serving import chat_client

        self.config = config
        self._stack = ExitStack()  # the clients live as long as the worker process
        players = endpoints.players
        self.client = (
            self._stack.enter_context(chat_client(*players, max_concurrency=concurrency))
            if players
            else None
        )
        judge_ep = endpoints.judge or (None, None)
        judge_llm = self._stack.enter_context(
            judge_client(config.judge, self.client, players or (None, None), judge_ep)
        )
        self.judge = make_judge(config.judge, judge_llm)

    async def play(self, job: Job) -> EpisodeRecord | str:
        """The episode's record, or why its LLM endpoint failed it (a string, to pickle)."""
        try:
            return await play_job(job, self.config, self.client, self.judge)
        except (EpisodeFailed, LLMError) as e:
            return f"{type(e).__name__}: {e}"


def play_bench_ray(config: BenchConfig, out: Path, **options: Any) -> int:
    """Play every unfinished episode of ``config`` on Ray into ``out``; return how many saved.

    :func:`~.runner.open_run` (``out`` is created, or resumed if it holds the same
    configuration), then :func:`play_run_ray` with ``options``.

    Raises:
        FolderInUse: another process is writing into ``out``.
    """
    with open_run(config, out) as run:
        return play_run_ray(run, **options)


def play_run_ray(
    run: BenchRun,
    *,
    endpoints: Endpoints | None = None,
    concurrency: int = 16,
    workers: int | None = None,
    address: str | None = None,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> int:
    """Play the unfinished episodes of an open run on Ray; return how many were saved.

    Joins the cluster at ``address`` (``"auto"``: the one started on this machine with
    ``ray start``), or starts a local one with two CPUs; a Ray session already open in this
    process is used as it is.

    Args:
        run: the run (:func:`~.runner.open_run`).
        endpoints: the LLM servers the workers use (default: none, for scripted players and
            the rule judge).
        concurrency: episodes in flight per worker.
        workers: worker processes (default: one per CPU of the cluster).
        address: the Ray cluster to join.
        on_record: called after each record is saved (progress display).

    Raises:
        EpisodeError: episodes failed because their LLM endpoint did, or their worker was
            lost for good (the rest are saved; rerunning resumes).
        RuntimeError: an episode failed for another reason (the cause is chained).
    """
    ray = import_ray()
    started = _connect(ray, address)
    try:
        sink = ResultSink(run, on_record)
        actors = start_workers(ray, run.config, endpoints or Endpoints(), workers, concurrency)
        try:
            for job, result in stream(ray, actors, run.pending(), concurrency):
                sink.take(job, result)
        finally:  # free their CPUs now: a cluster that stays up may run the next bench
            for actor in actors:
                ray.kill(actor)
        return sink.close()
    finally:
        if started:
            ray.shutdown()


def import_ray() -> Any:
    """The ``ray`` module, or an error saying how to install it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError('the Ray executor needs Ray: pip install "sotopia-tom-env[ray]"') from e
    return ray


def _connect(ray: Any, address: str | None) -> bool:
    """Join or start a Ray cluster unless one is open; True when this call opened it."""
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, logging_level="ERROR")
    else:  # a small local cluster: the machine's other work keeps the rest
        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    return True


def start_workers(
    ray: Any, config: BenchConfig, endpoints: Endpoints, workers: int | None, concurrency: int
) -> list[Any]:
    """Start the worker actors, spread over the cluster's nodes.

    More workers than CPUs share them (a fraction each): a worker that cannot be placed would
    hold its episodes forever.
    """
    cpus = max(1.0, ray.cluster_resources().get("CPU", 1.0))
    n = workers or int(cpus)
    actor = ray.remote(EpisodeWorker).options(
        num_cpus=min(1.0, cpus / n),
        max_concurrency=concurrency,
        max_restarts=RETRIES,
        max_task_retries=RETRIES,
        scheduling_strategy="SPREAD",
    )
    return [actor.remote(config, endpoints, concurrency) for _ in range(n)]


def stream(
    ray: Any, actors: list[Any], jobs: Iterator[Job], concurrency: int
) -> Iterator[tuple[Job, EpisodeRecord | BaseException]]:
    """Yield ``(job, record or error)`` as each episode finishes, keeping every worker busy.

    Jobs are drawn only when a worker has a free slot, so at most ``concurrency`` episodes per
    worker exist at any time, wherever they are. A worker lost for good gets no more jobs; if
    none is left, the remaining jobs are yielded as failed, so the run says what it missed.
    """
    load = [0] * len(actors)
    live = set(range(len(actors)))
    flying: dict[Any, tuple[Job, int]] = {}

    def submit() -> None:
        while live:
            i = min(live, key=load.__getitem__)
            if load[i] >= concurrency or (job := next(jobs, None)) is None:
                return
            flying[actors[i].play.remote(job)] = (job, i)
            load[i] += 1

    submit()
    while flying:
        ready, _ = ray.wait(list(flying), num_returns=1)
        for ref in ready:
            job, i = flying.pop(ref)
            load[i] -= 1
            outcome = _outcome(ray, ref)
            if isinstance(outcome, WorkerLost):
                live.discard(i)
            yield job, outcome
        submit()
    for job in jobs:  # only when every worker is lost
        yield job, WorkerLost("not played: every worker was lost")


class WorkerLost(EpisodeFailed):
    """The episode's worker died more often than Ray restarts it."""


def _outcome(ray: Any, ref: Any) -> EpisodeRecord | BaseException:
    """The finished call's record, or the error to hand the sink."""
    try:
        result = ray.get(ref)
    except ray.exceptions.RayActorError as e:
        return WorkerLost(f"its worker was lost: {e}")
    except ray.exceptions.RayTaskError as e:  # a bug in playing: the sink stops the run
        return e.as_instanceof_cause()
    return EpisodeFailed(result) if isinstance(result, str) else result
