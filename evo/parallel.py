"""Parallel evaluation and fine-tuning through joblib: local processes, Ray or Dask.

The population is cut into contiguous chunks, one task each. A task carries flat numpy
genomes, the game factory and one seed per policy, never torch modules or live games; the
worker builds (and keeps) its own vector game and plays its chunk as one batch. Because every
policy draws its random numbers from its own seed, a run gives the same results serially,
with any number of local workers, and on a Ray or Dask cluster.

Backends (``parallel:`` in the YAML):
- ``serial``: in this process, no pickling (what tests and tiny runs use).
- ``loky``: joblib's default process pool on this machine.
- ``ray``: ``ray.util.joblib`` on the Ray cluster at ``address`` (or a local one).
- ``dask``: a ``dask.distributed`` client on the scheduler at ``address`` (or a local one).

A worker that dies mid-task (killed, out of memory) fails the whole joblib call; the tasks
are pure functions of their inputs, so the call is simply made again, up to ``retries``
times, and lands on live workers.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Sequence, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from evo.finetune.a2c import A2CConfig, finetune
from evo.policy import PolicySpec
from evo.rollout import Trajectories, draw_episodes, play, policy_chooser, random_chooser
from games.base import Rollout, VectorGame
from objectives.base import step_rewards

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")


class ParallelConfig(BaseModel):
    """Where episodes are played."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["serial", "loky", "ray", "dask"] = Field(
        "loky", description="serial, loky (local processes), ray or dask."
    )
    n_jobs: int = Field(2, ge=1, description="Workers (and chunks of the population) at once.")
    address: str | None = Field(
        None, description="Ray or Dask cluster address (e.g. 'ray://head:10001', 'tcp://sched:8786'); "
        "null starts a local one."
    )
    retries: int = Field(2, ge=0, description="Times a call is made again after a worker died.")


# ---------------------------------------------------------------------------------- tasks
_GAMES: dict[tuple[str, int], VectorGame] = {}


def _game(factory: Any, n: int) -> VectorGame:
    """This process's vector game of ``n`` copies, made once and kept between tasks."""
    key = (repr(factory), n)
    if key not in _GAMES:
        _GAMES[key] = factory.make_vector(n)
    return _GAMES[key]


def _drop_game(factory: Any, n: int) -> None:
    game = _GAMES.pop((repr(factory), n), None)
    if game is not None:
        with contextlib.suppress(Exception):  # a broken game may fail to close too
            game.close()


def close_games() -> None:
    """Close every game this process keeps."""
    for key in list(_GAMES):
        game = _GAMES.pop(key)
        with contextlib.suppress(Exception):
            game.close()


@dataclass(frozen=True)
class PlayTask:
    """Play ``episodes`` episodes with each of a chunk of policies."""

    factory: Any
    policy_spec: PolicySpec
    genomes: np.ndarray
    ids: np.ndarray
    seeds: np.ndarray
    episodes: int
    random_policy: bool = False


@dataclass
class PlayResult:
    rollouts: list[Rollout]


def run_play(task: PlayTask) -> PlayResult:
    """Worker side of :class:`PlayTask`."""
    n = len(task.ids) * task.episodes
    game = _game(task.factory, n)
    spec = game.game_spec
    draws = draw_episodes(task.seeds, task.episodes, spec.max_steps, spec.n_actions)
    if task.random_policy:
        choose = random_chooser(draws.gumbel)
    else:
        choose = policy_chooser(task.genomes, task.policy_spec, task.episodes, draws.gumbel)
    result = play(game, draws.seeds, np.repeat(task.ids, task.episodes), choose)
    if result.game_broken:
        _drop_game(task.factory, n)
    return PlayResult(result.rollouts)


@dataclass(frozen=True)
class DenseReward:
    """The fine-tuning reward: the objectives' ``step_rewards``, weighted and summed."""

    objectives: tuple[Any, ...]
    weights: tuple[float, ...]

    def __call__(self, rollouts: list[Rollout], traj: Trajectories) -> np.ndarray:
        out = np.zeros_like(traj.rewards)
        for i, r in enumerate(rollouts):
            for objective, w in zip(self.objectives, self.weights):
                if w:
                    out[i, : r.length] += w * step_rewards(objective, r)
        return out


@dataclass(frozen=True)
class TuneTask:
    """Fine-tune a chunk of policies with A2C."""

    factory: Any
    policy_spec: PolicySpec
    genomes: np.ndarray
    ids: np.ndarray
    seeds: np.ndarray
    config: A2CConfig
    reward: DenseReward


@dataclass
class TuneResult:
    genomes: np.ndarray
    batches: list[list[Rollout]] = field(default_factory=list)


def run_tune(task: TuneTask) -> TuneResult:
    """Worker side of :class:`TuneTask`: the tuned genomes and every batch it played."""
    n = len(task.ids) * task.config.episodes
    batches: list[list[Rollout]] = []
    tuned, stats = finetune(
        task.genomes, task.policy_spec, _game(task.factory, n), task.config, task.reward,
        task.seeds, task.ids, on_rollouts=batches.append,
    )
    if stats.game_broken:
        _drop_game(task.factory, n)
    return TuneResult(tuned, batches)


# ---------------------------------------------------------------------------------- executor
def chunks(n: int, parts: int) -> list[slice]:
    """``parts`` contiguous, near-equal slices of ``range(n)`` (fewer if ``n`` is small)."""
    parts = max(1, min(parts, n))
    bounds = np.linspace(0, n, parts + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _worker_died_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = []
    with contextlib.suppress(ImportError):
        from joblib.externals.loky.process_executor import TerminatedWorkerError

        errors.append(TerminatedWorkerError)
    with contextlib.suppress(ImportError):
        from concurrent.futures.process import BrokenProcessPool

        errors.append(BrokenProcessPool)
    with contextlib.suppress(ImportError):
        from ray.exceptions import RayActorError, WorkerCrashedError

        errors += [WorkerCrashedError, RayActorError]
    with contextlib.suppress(ImportError):
        from distributed.scheduler import KilledWorker

        errors.append(KilledWorker)
    return tuple(errors)


class Executor:
    """Maps tasks over the configured joblib backend, in order, retrying dead workers."""

    def __init__(self, config: ParallelConfig) -> None:
        self.config = config
        self._client: Any = None
        self._started_ray = False
        if config.backend == "ray":
            import ray
            from ray.util.joblib import register_ray

            register_ray()
            if not ray.is_initialized():
                ray.init(address=config.address, include_dashboard=False, log_to_driver=False)
                self._started_ray = True
        elif config.backend == "dask":
            from dask.distributed import Client

            self._client = Client(config.address) if config.address else Client(
                processes=True, n_workers=config.n_jobs, threads_per_worker=1, dashboard_address=None
            )

    @property
    def parts(self) -> int:
        return 1 if self.config.backend == "serial" else self.config.n_jobs

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        if self.config.backend == "serial" or len(tasks) <= 1:
            return [fn(t) for t in tasks]
        from joblib import Parallel, delayed, parallel_config

        died = _worker_died_errors()
        for attempt in range(self.config.retries + 1):
            try:
                with parallel_config(backend=self.config.backend, n_jobs=self.config.n_jobs):
                    return Parallel(return_as="list")(delayed(fn)(t) for t in tasks)
            except died as exc:
                if attempt == self.config.retries:
                    raise
                log.warning("a worker died (%s); running the call again", type(exc).__name__)
        raise AssertionError("unreachable")

    def close(self) -> None:
        close_games()
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._started_ray:
            import ray

            ray.shutdown()
            self._started_ray = False

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

