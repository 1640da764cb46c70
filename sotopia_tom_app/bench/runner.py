"""The benchmark runner: policies x scenarios x seeds, played concurrently, saved as they finish.

Every finished episode is appended to ``OUT/episodes.jsonl`` at once (see ``records``), so a run
killed midway loses nothing but the episodes in flight. Running the same command into the same
folder resumes: finished episodes (by ``episode_id``) are skipped and the rest are played. The
run's configuration is saved in ``OUT/config.json``; a different configuration is refused rather
than mixed into the same results, except that naming more policies grows the run (only the new
policies' episodes are played). One run at a time writes into a folder (``lock``): a second
one is refused with :class:`~sotopia_tom_app.bench.lock.FolderInUse`.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

import scenarios as scenario_sets
from policies import SCRIPTED, play_many
from policies.budgets import of_players
from policies.prompts import check_options
from scenarios import Scenario
from sotopia_tom_app.bench.episode import EpisodeFailed, play_recorded, players_model, players_of
from sotopia_tom_app.bench.lock import hold
from sotopia_tom_app.bench.records import (
    EPISODES_FILE,
    EpisodeRecord,
    append_record,
    drop_torn_tail,
    read_episodes,
    read_records,
)
from sotopia_tom_env.env import SotopiaToMEnv
from sotopia_tom_env.llm import LLMError

CONFIG_FILE = "config.json"


class BenchConfig(BaseModel):
    """What a benchmark run plays; saved with the results and checked on resume."""

    scenarios: str = Field(description="Shipped set name or scenario file/folder.")
    scenario_ids: list[str] | None = Field(default=None, description="Only these scenarios.")
    limit: int | None = Field(
        default=None, ge=1, description="Only N scenarios, drawn round-robin over sectors."
    )
    limit_seed: int = Field(default=0, ge=0, description="Seed of the --limit draw.")
    skip_invalid: bool = Field(
        default=False,
        description="Leave out scenarios that fail the review rules instead of refusing the run "
        "(for third-party files: the paper authors' file has one such scenario).",
    )
    limit_sampling: Literal["first", "by-sector"] = Field(
        default="by-sector",
        description="How --limit picks: 'by-sector' (seeded round-robin over sectors), or "
        "'first' (the first N in file order; only configs saved before the draw existed).",
    )
    policies: list[str]
    partners: str | None = Field(
        default=None,
        description="Cross-play: every seat of a scenario in turn is played by the policy under "
        "test and the others by this policy; the report gives the tested seat's own scores.",
    )
    seeds: list[int] = Field(default_factory=lambda: [0])
    model: str | None = Field(
        default=None, description="Player model (None: the embedded default)."
    )
    judge: Literal["rule", "llm"] = "rule"
    judge_model: str | None = Field(
        default=None, description="LLM judge model, when it is not the players' (None: theirs)."
    )
    max_turns: int = Field(default=60, ge=1)
    max_stale_turns: int = Field(
        default=4,
        ge=0,
        description="Silent steps tolerated in a row; one more ends the episode (the env's "
        "default, as in the paper's code; its text says 3).",
    )
    player_options: list[str] | None = Field(
        default_factory=list,
        description="Our refinements of the LLM players (policies.prompts.PLAYER_OPTIONS); "
        "empty: the paper's players. None: saved before options existed, when players had "
        "refinements that no option set reproduces.",
    )
    max_tokens: Annotated[int, Field(ge=1)] | Literal["auto"] | None = Field(
        default="auto",
        description="Token budget of each LLM call of the players: 'auto' (fitted to the call's "
        "purpose when the served model's context is small, policies.budgets), None (none, as "
        "the paper) or a number. None in configs saved before budgets existed.",
    )
    budgets: dict[str, int | None] | None = Field(
        default=None,
        description="The budget of each call purpose the players sent (action, coach, state), "
        "noted once their model is served; it follows from max_tokens, the player options and "
        "the model, so a resumed run does not compare it.",
    )

    save_calls: bool = Field(
        default=True,
        description="Keep each LLM call's prompt and reply in the episode record (the viewer "
        "shows them); off for smaller records.",
    )
    adapters: dict[str, str] = Field(
        default_factory=dict,
        description="The fingerprint of each trained policy's adapter files "
        "(policies.trained.fingerprints): a resumed run refuses other weights under the same "
        "name. Empty in configs saved before fingerprints existed.",
    )

    @field_validator("player_options")
    @classmethod
    def _known_options(cls, value: list[str] | None) -> list[str] | None:
        """Refuse unknown options before anything runs; keep them sorted, so order is no change."""
        return None if value is None else list(check_options(value))


class ConfigMismatch(ValueError):
    """The output folder holds results of a different configuration."""


class ConfigDamaged(ValueError):
    """The output folder's ``config.json`` cannot be read, and episodes depend on it."""


class EpisodeError(RuntimeError):
    """An episode failed for an outside reason (its LLM endpoint); rerunning resumes the run."""


@dataclass(frozen=True)
class Job:
    """One episode to play."""

    policy: str
    scenario: Scenario
    seed: int
    seat: int | None = None  # cross-play: the seat the policy plays, partners in the others

    @property
    def episode_id(self) -> str:
        """The key that makes a run resumable."""
        base = f"{self.policy}/{self.scenario.id}/{self.seed}"
        return base if self.seat is None else f"{base}/agent_{self.seat}"


def select_scenarios(config: BenchConfig) -> list[Scenario]:
    """The scenarios of the run: in file order, or the ``limit`` drawn by sector.

    ``skip_invalid`` first leaves out scenarios with validation errors; ``scenario_ids`` filters
    next; ``limit`` then keeps N of the rest (see :func:`sample_by_sector`), so a small run
    still covers every sector it can.

    Raises:
        ValueError: if a wanted scenario id is not in the set.
        scenarios.InvalidScenario: if a chosen scenario fails validation (before anything runs).
    """
    chosen = scenario_sets.load(config.scenarios)
    if config.skip_invalid:
        reports = scenario_sets.validate_all(chosen)
        chosen = [s for s, r in zip(chosen, reports, strict=True) if not r.errors]
    if config.scenario_ids:
        wanted = set(config.scenario_ids)
        chosen = [s for s in chosen if s.id in wanted]
        missing = wanted - {s.id for s in chosen}
        if missing:
            raise ValueError(f"scenario ids not in {config.scenarios!r}: {sorted(missing)}")
    if config.limit and config.limit_sampling == "first":
        chosen = chosen[: config.limit]
    elif config.limit:
        chosen = sample_by_sector(chosen, config.limit, config.limit_seed)
    scenario_sets.require_valid(chosen, config.scenarios)  # only what runs must be valid
    return chosen


def sample_by_sector(pool: list[Scenario], n: int, seed: int) -> list[Scenario]:
    """``n`` scenarios of ``pool`` taken round-robin over its sectors, in a seeded shuffle.

    The sectors are visited in a shuffled order, each one's scenarios in a shuffled order, one
    per sector per pass; so ``n`` of at least the number of sectors covers every sector, and the
    same pool and seed always give the same list (in the order drawn).

    Example:
        >>> import scenarios
        >>> pool = scenarios.load("gold")
        >>> len({s.sector for s in sample_by_sector(pool, 8, seed=0)})
        8
    """
    rng = random.Random(seed)  # its own generator: the draw depends on nothing but the seed
    by_sector: dict[str, list[Scenario]] = {}
    for s in pool:
        by_sector.setdefault(s.sector or "", []).append(s)
    # Sorted: where a sector first appears in the file must not change the draw.
    queues = [by_sector[k] for k in sorted(by_sector)]
    rng.shuffle(queues)
    for q in queues:
        rng.shuffle(q)
    drawn: list[Scenario] = []
    while len(drawn) < n and any(queues):
        for q in queues:
            if q and len(drawn) < n:
                drawn.append(q.pop(0))
    return drawn


def plan(config: BenchConfig) -> list[Job]:
    """Every episode of the run, all policies of a scenario together.

    So a partial run still compares the policies on the same scenarios.
    """
    return list(iter_jobs(config, select_scenarios(config)))


def iter_jobs(config: BenchConfig, chosen: list[Scenario]) -> Iterator[Job]:
    """The episodes of :func:`plan`, made one at a time as they are asked for.

    A job only points at its scenario, and the runners draw jobs only as episodes finish, so
    asking for 10,000 episodes holds no more in memory than asking for 100.
    """
    for s in chosen:
        seats: list[int | None] = list(range(len(s.agents))) if config.partners else [None]
        for seed in config.seeds:
            for p in config.policies:
                for seat in seats:
                    yield Job(p, s, seed, seat)


@dataclass
class BenchRun:
    """A run in progress: its folder (locked by :func:`open_run`), what it plays, what is done.

    Every executor plays a run through this one object, so the folder is locked, prepared and
    its jobs selected once, whatever plays the episodes.
    """

    config: BenchConfig
    out: Path
    chosen: list[Scenario]
    done: set[str]

    def pending(self, policies: Collection[str] | None = None) -> Iterator[Job]:
        """The unfinished episodes (of ``policies``; ``None``: all), made one at a time."""
        jobs = (j for j in iter_jobs(self.config, self.chosen) if j.episode_id not in self.done)
        return jobs if policies is None else (j for j in jobs if j.policy in policies)

    def count(self, policies: Collection[str] | None = None) -> int:
        """How many episodes :meth:`pending` gives (counted, not listed)."""
        return sum(1 for _ in self.pending(policies))

    def note_budgets(self, client: Any) -> None:
        """Note the players' budgets once their model is served (see :func:`record_budgets`)."""
        self.config = record_budgets(self.out, self.config, client)


@contextmanager
def open_run(
    config: BenchConfig, out: Path, chosen: list[Scenario] | None = None
) -> Iterator[BenchRun]:
    """The one owner of a run's folder: scenarios selected, folder locked and prepared.

    ``chosen`` are the scenarios the caller already selected with :func:`select_scenarios`
    (default: selected here, before the folder is touched). The lock is held until the block
    ends, so a second run into ``out`` is refused at once.

    Raises:
        FolderInUse: another process is writing into ``out``.
        ConfigMismatch: ``out`` holds a run of another configuration.
        ConfigDamaged: ``out`` holds episodes but its configuration cannot be read.
    """
    chosen = select_scenarios(config) if chosen is None else chosen
    with hold(out):
        yield BenchRun(config, out, chosen, prepare_out(out, config))


def prepare_out(out: Path, config: BenchConfig) -> set[str]:
    """Create or check ``out``; return the ids of episodes already finished there.

    Call it while holding the folder's lock (:func:`~sotopia_tom_app.bench.lock.hold`). A
    folder without episodes takes ``config`` whatever its ``config.json`` says (an earlier
    start that failed before playing binds nothing).

    Raises:
        ConfigMismatch: the folder holds episodes of a different configuration (more
            policies with everything else equal is not different: the run grows), or of a
            trained policy whose adapter files have changed since.
        ConfigDamaged: the folder holds episodes but its ``config.json`` cannot be read.
    """
    out.mkdir(parents=True, exist_ok=True)
    drop_torn_tail(out / EPISODES_FILE)
    done = {r.episode_id for r in read_records(out / EPISODES_FILE)}
    saved = original = _saved_config(out / CONFIG_FILE, len(done)) if done else None
    if saved is not None:
        _check_adapters(saved, config, out)
        # budgets are noted by record_budgets, not chosen; adapters were just checked
        saved = saved.model_copy(update={"budgets": config.budgets, "adapters": config.adapters})
    if saved is None or _adds_policies(saved, config):
        _write_atomic(out / CONFIG_FILE, config.model_dump_json(indent=2))
    elif saved == config:
        recorded = original.model_copy(
            update={"adapters": {**original.adapters, **config.adapters}}
        )
        if recorded != original:  # saved before fingerprints, or without some: note them now
            _write_atomic(out / CONFIG_FILE, recorded.model_dump_json(indent=2))
    else:
        diff = ", ".join(
            f"{k}: {getattr(saved, k)!r} -> {getattr(config, k)!r}"
            for k in BenchConfig.model_fields
            if getattr(saved, k) != getattr(config, k)
        )
        raise ConfigMismatch(
            f"{out} holds a run with a different configuration ({diff}); "
            "use another --out folder, or the same options to resume"
        )
    return done


def _check_adapters(saved: BenchConfig, config: BenchConfig, out: Path) -> None:
    """Refuse a trained policy whose adapter files changed since its episodes were played.

    Raises:
        ConfigMismatch: naming the policy and both fingerprints.
    """
    for name, now in config.adapters.items():
        then = saved.adapters.get(name)
        if then is not None and then != now:
            raise ConfigMismatch(
                f"{out} holds episodes of {name} played with other adapter files (fingerprint "
                f"{then} -> {now}); use another --out folder, or restore those weights to resume"
            )


def _adds_policies(saved: BenchConfig, config: BenchConfig) -> bool:
    """``config`` is ``saved`` with more policies: the run grows, its episodes stay valid.

    So a new policy (a trained checkpoint, say) joins a finished run and plays only its own
    episodes, on the same scenarios, seeds and settings as the others.
    """
    same_rest = saved.model_copy(update={"policies": config.policies}) == config
    return same_rest and set(saved.policies) < set(config.policies)


def _saved_config(path: Path, episodes: int) -> BenchConfig | None:
    """The configuration saved in ``path`` (None if there is none).

    Raises:
        ConfigDamaged: naming the file, the line and what is wrong.
    """
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        if not text.strip():
            raise ValueError("the file is empty")
        return BenchConfig.model_validate(_older_limit(json.loads(text)))
    except json.JSONDecodeError as e:
        reason = f"line {e.lineno}, column {e.colno}: {e.msg}"
    except ValidationError as e:
        err = e.errors()[0]
        reason = f"field {'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}"
    except ValueError as e:
        reason = str(e)
    raise ConfigDamaged(
        f"{path}: not a valid run configuration ({reason}); the {episodes} saved episodes are "
        "kept: restore the file, or delete it to go on with the options given now"
    )


def _older_limit(data: Any) -> Any:
    """A config saved before a field existed, marked with what it ran, so resume refuses.

    Before the by-sector draw ``--limit`` took the first N. Before player options the LLM
    players had refinements of their own (``player_options`` None); before budgets they sent
    none unless an option asked (``max_tokens`` None). Scripted-only runs are unaffected.
    """
    if isinstance(data, dict) and data.get("limit") and "limit_sampling" not in data:
        data = {**data, "limit_sampling": "first"}
    llm_players = isinstance(data, dict) and set(data.get("policies") or ()) - SCRIPTED
    if llm_players and "player_options" not in data:
        data = {**data, "player_options": None}
    if llm_players and "max_tokens" not in data:
        data = {**data, "max_tokens": None}
    return data


def record_budgets(out: Path, config: BenchConfig, client: Any) -> BenchConfig:
    """``config`` with the budget of each call purpose its players send, noted in ``out``.

    Called once the players' model is served, because ``"auto"`` depends on its context. The
    caller holds the folder's lock (:func:`~sotopia_tom_app.bench.lock.hold`).
    """
    context = getattr(client, "context_tokens", None)
    table = of_players(config.player_options or (), config.max_tokens, context).as_dict()
    path = out / CONFIG_FILE
    saved = BenchConfig.model_validate_json(path.read_text(encoding="utf-8"))
    _write_atomic(path, saved.model_copy(update={"budgets": table}).model_dump_json(indent=2))
    return config.model_copy(update={"budgets": table})


def _write_atomic(path: Path, text: str) -> None:
    """Write ``path`` so that a crash leaves the old file or the new one, never a torn one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


async def run_bench(config: BenchConfig, out: Path, **options: Any) -> list[EpisodeRecord]:
    """Play every unfinished episode of ``config`` into ``out`` and return all records there.

    :func:`play_bench`, then the folder's records read back; ``options`` are those of
    :func:`play_run`.

    Returns:
        Every episode in ``out``, one record per episode id.
    """
    with open_run(config, out) as run:
        await play_run(run, **options)
        return read_episodes(out / EPISODES_FILE)


async def play_bench(config: BenchConfig, out: Path, **options: Any) -> int:
    """Play every unfinished episode of ``config`` into ``out``; return how many were saved.

    :func:`open_run` (``out`` is created, or resumed if it holds the same configuration), then
    :func:`play_run` with ``options``.

    Raises:
        FolderInUse: another process is writing into ``out``.
    """
    with open_run(config, out) as run:
        return await play_run(run, **options)


async def play_run(
    run: BenchRun,
    *,
    client: Any = None,
    judge: Any,
    concurrency: int = 16,
    on_record: Callable[[EpisodeRecord], None] | None = None,
    policies: Collection[str] | None = None,
) -> int:
    """Play the unfinished episodes of an open run in this process; return how many were saved.

    Memory stays flat however many episodes are asked for: jobs are made as slots free up,
    at most ``concurrency`` episodes are in flight, and each record is written and dropped.

    Args:
        run: the run (:func:`open_run`).
        client: chat client for LLM players (and the LLM judge).
        judge: the judge scoring each finished episode.
        concurrency: episodes in flight at once.
        on_record: called after each record is saved (progress display).
        policies: play only these of ``config.policies`` (``None``: all).

    Raises:
        EpisodeError: an episode failed because its LLM endpoint did (the rest can resume).
        RuntimeError: an episode failed for another reason (the cause is chained).
    """
    sink = ResultSink(run, on_record)

    async def play(job: Job) -> EpisodeRecord:
        return await play_job(job, run.config, client, judge)

    async for job, result in play_many(run.pending(policies), play, concurrency):
        sink.take(job, result)
    return sink.close()


class ResultSink:
    """The one writer of a run: saves each finished episode at once, once per episode id.

    Both executors hand it ``(job, result)`` pairs as episodes finish. A result for an
    episode already saved (a retried task whose first attempt got through) is dropped, so a
    retry never writes an episode twice.
    """

    def __init__(self, run: BenchRun, on_record: Callable[[EpisodeRecord], None] | None) -> None:
        # The run's own set: a later phase of the same run sees what this one saved.
        self.path, self.saved, self.on_record = run.out / EPISODES_FILE, run.done, on_record
        self.failed: list[str] = []
        self.played = 0

    def take(self, job: Job, result: EpisodeRecord | BaseException) -> None:
        """Save ``result``, note an outside failure, or raise for anything else."""
        if isinstance(result, EpisodeFailed | LLMError):
            # An endpoint failure is an outside event: the other episodes go on, this one
            # is left for the next run of the same command.
            self.failed.append(f"{job.episode_id}: {result}")
            return
        if isinstance(result, BaseException):  # anything else may be a bug: stop and show it
            raise RuntimeError(f"episode {job.episode_id} failed: {result!r}") from result
        if result.episode_id in self.saved:
            return
        append_record(self.path, result)
        self.saved.add(result.episode_id)
        self.played += 1
        if self.on_record:
            self.on_record(result)

    def close(self) -> int:
        """The number of episodes saved; raise if some failed for an outside reason.

        Raises:
            EpisodeError: naming how many failed and the first failure.
        """
        if self.failed:
            total = len(self.failed) + self.played
            raise EpisodeError(
                f"{len(self.failed)} of {total} episodes failed because their LLM endpoint "
                f"(or their worker) did (first: {self.failed[0]}); the others are saved: "
                "rerun the same command to retry"
            )
        return self.played


async def play_job(job: Job, config: BenchConfig, client: Any, judge: Any) -> EpisodeRecord:
    """Play, judge and record one episode of a run (:func:`~.episode.play_recorded`)."""
    env = SotopiaToMEnv(
        scenarios=[job.scenario],
        max_turns=config.max_turns,
        max_stale_turns=config.max_stale_turns,
    )

    def of(policy: str) -> Any:
        return players_of(policy, seed=job.seed, client=client,
                          options=tuple(config.player_options or ()), max_tokens=config.max_tokens,
                          record_calls=config.save_calls)  # fmt: skip

    players = tested = of(job.policy)
    if job.seat is not None and config.partners:
        seat, partner = f"agent_{job.seat}", of(config.partners)
        players = lambda a, s: tested(a, s) if a == seat else partner(a, s)  # noqa: E731
    record = await play_recorded(
        env, players, label=job.policy, seed=job.seed, judge=judge, scenario=job.scenario,
        episode_id=job.episode_id, model=players_model(job.policy, client),
    )  # fmt: skip
    if job.seat is None:
        return record
    return record.model_copy(update={"partners": config.partners, "seat": f"agent_{job.seat}"})
