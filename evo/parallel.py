"""Parallel evaluation and fine-tuning through joblib: local processes, Ray or Dask.

The population is cut into contiguous chunks, one task each. A task carries an agent spec or
flat numpy genomes, the game factory and one seed per policy, never torch modules or live
games; the worker builds (and keeps) its own vector game and plays its chunk as one batch.
Because every policy draws its random numbers from its own seed, a run gives the same
results serially, with any number of local workers, and on a Ray or Dask cluster.

Backends (``parallel:`` in the YAML):
- ``serial``: in this process, no pickling (what tests and tiny runs use).
- ``loky``: joblib's default process pool on this machine.
- ``ray``: ``ray.util.joblib`` on the Ray cluster at ``address``, or on a Ray instance this
  run starts on 127.0.0.1 (the ``ray`` extra).
- ``dask``: joblib's Dask backend on the scheduler at ``address``, or on a local cluster this
  run starts on 127.0.0.1 (the ``dask`` extra).

A worker that dies mid-task (killed, out of memory) fails the whole joblib call on loky and
Ray; the tasks are pure functions of their inputs, so the call is simply made again, up to
``retries`` times, on live workers. Dask runs the task again on another worker by itself and
fails the call only when it gives up (see :func:`_worker_died_errors`).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Literal, Sequence, TypeVar

import numpy as np
import torch
from pydantic import BaseModel, ConfigDict, Field

from evo.agents.base import AgentSpec
from evo.finetune import Diagnostics, UpdateConfig, finetune
from evo.policy import PolicySpec
from evo.rollout import draw_episodes, play
from games.base import VectorGame
from games.lifetime import die_with_parent
from games.rollout import RolloutBatch
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
    n_jobs: int = Field(
        2, ge=1, description="Workers at once, and chunks the population is cut into (on Ray, "
        "each worker holds one CPU of the cluster)."
    )
    address: str | None = Field(
        None, description="An existing cluster: Ray ('ray://head:10001', or 'auto' / 'head:6379' "
        "on a node of the cluster) or a Dask scheduler ('tcp://scheduler:8786'). Null: the run "
        "starts its own on 127.0.0.1 with n_jobs workers, and stops it at the end."
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
    """Play ``episodes`` episodes with each of a chunk of agents.

    Attributes:
        factory: The game factory (the worker makes and keeps its vector game).
        agent: What plays (:class:`evo.agents.base.AgentSpec`), built in the worker.
        ids: ``[P]`` policy ids recorded in the rollouts.
        seeds: ``[P]`` one seed per policy: its episode seeds and its sampling noise.
        episodes: Episodes each policy plays.
        columns: Optional record columns to keep (what objectives and oracles require).
        episode_seeds: ``[P * episodes]`` seeds replacing the drawn ones where not negative
            (copies that return to an archived cell, :mod:`evo.explore`); None: all drawn.
    """

    factory: Any
    agent: AgentSpec
    ids: np.ndarray
    seeds: np.ndarray
    episodes: int
    columns: frozenset[str] = frozenset()
    episode_seeds: np.ndarray | None = None


@dataclass
class PlayResult:
    rollouts: RolloutBatch


def run_play(task: PlayTask) -> PlayResult:
    """Worker side of :class:`PlayTask`."""
    n = len(task.ids) * task.episodes
    game = _game(task.factory, n)
    spec = game.game_spec
    draws = draw_episodes(task.seeds, task.episodes, spec.max_steps, spec.n_actions)
    agent = task.agent.build(task.episodes, draws.gumbel)
    chosen = task.episode_seeds
    seeds = draws.seeds if chosen is None else np.where(chosen >= 0, chosen, draws.seeds)
    result = play(game, seeds, np.repeat(task.ids, task.episodes), agent, columns=task.columns)
    if result.game_broken:
        _drop_game(task.factory, n)
    return PlayResult(result.rollouts)


@dataclass(frozen=True)
class DenseReward:
    """The fine-tuning reward: the objectives' ``step_rewards``, weighted and summed."""

    objectives: tuple[Any, ...]
    weights: tuple[float, ...]

    def __call__(self, rollouts: RolloutBatch, horizon: int) -> np.ndarray:
        out = np.zeros((len(rollouts), horizon))
        for i, r in enumerate(rollouts):
            for objective, w in zip(self.objectives, self.weights):
                if w:
                    out[i, : r.length] += w * step_rewards(objective, r)
        return out


@dataclass(frozen=True)
class TuneTask:
    """Fine-tune a chunk of policies with a registered algorithm (``a2c``, ``ppo``)."""

    factory: Any
    policy_spec: PolicySpec
    genomes: np.ndarray
    ids: np.ndarray
    seeds: np.ndarray
    algorithm: str
    config: UpdateConfig
    reward: DenseReward
    columns: frozenset[str] = frozenset()
    """Optional record columns of the batches played (the oracles watch them too)."""


@dataclass
class TuneResult:
    """What a worker sends back: the tuned genomes, every batch it played (for the oracles)
    and each policy's RL diagnostics averaged over its updates (for ``generations.csv``)."""

    genomes: np.ndarray
    diagnostics: Diagnostics
    batches: list[RolloutBatch] = field(default_factory=list)


def run_tune(task: TuneTask) -> TuneResult:
    """Worker side of :class:`TuneTask`: the tuned genomes and every batch it played."""
    n = len(task.ids) * task.config.episodes
    batches: list[RolloutBatch] = []
    tuned, stats = finetune(
        task.genomes, task.policy_spec, _game(task.factory, n), task.algorithm, task.config,
        task.reward, task.seeds, task.ids, on_rollouts=batches.append, columns=task.columns,
    )
    if stats.game_broken:
        _drop_game(task.factory, n)
    return TuneResult(tuned, stats.diagnostics, batches)


# ---------------------------------------------------------------------------------- executor
def chunks(n: int, parts: int) -> list[slice]:
    """``parts`` contiguous, near-equal slices of ``range(n)`` (fewer if ``n`` is small)."""
    parts = max(1, min(parts, n))
    bounds = np.linspace(0, n, parts + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _run(fn: Callable[[T], R], task: T, torch_threads: int) -> R:
    """Worker side of every task: torch gets ``torch_threads`` threads, then ``fn`` runs.

    Set here rather than trusted to the backend: loky caps inner threads through environment
    variables, Ray only for tasks that reserve CPUs, Dask not at all. The worker also asks to
    be killed when its parent dies (a SIGKILLed run leaves no worker, nor the worker's games).
    """
    die_with_parent()
    if torch.get_num_threads() != torch_threads:
        torch.set_num_threads(torch_threads)
    return fn(task)


def _worker_died_errors(backend: str) -> tuple[type[BaseException], ...]:
    """What a joblib call on ``backend`` raises when a worker process dies under a task.

    - loky: ``TerminatedWorkerError`` (the pool is broken; the next call gets a new one).
    - ray: ``RayActorError`` (``ActorDiedError``): ``ray.util.joblib`` runs tasks on a pool of
      actors, which Ray neither restarts nor retries; the next call makes a new pool.
    - dask: the scheduler itself runs a task again on another worker when its worker dies,
      and raises ``KilledWorker`` only once the task has taken down
      ``distributed.scheduler.allowed-failures`` (default 3) workers.
    """
    if backend == "loky":
        from joblib.externals.loky.process_executor import TerminatedWorkerError

        return (TerminatedWorkerError,)
    if backend == "ray":
        from ray.exceptions import RayActorError

        return (RayActorError,)
    if backend == "dask":
        from distributed.scheduler import KilledWorker

        return (KilledWorker,)
    return ()


@contextlib.contextmanager
def _ray_on_loopback() -> Iterator[None]:
    """Keep a local Ray instance on 127.0.0.1.

    On Linux Ray turns ``_node_ip_address="127.0.0.1"`` into the machine's outward address
    and serves on it, ready for other nodes to join; with clusters switched off, as Ray runs
    on macOS and Windows, every server of the instance stays on loopback.
    """
    from ray._private import ray_constants

    saved = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved


def _dask_backend(client: Any) -> Any:
    """joblib's Dask backend on ``client``, except that a task Dask gives up on fails the call.

    joblib (1.6) sets the error of such a task (``KilledWorker``, once it has taken down
    ``allowed-failures`` workers) on the task's future but never calls back, and the call
    waits forever. Handing the error to the callback makes the call raise it.
    """
    from joblib._dask import DaskDistributedBackend

    class DaskBackend(DaskDistributedBackend):
        def submit(self, func: Any, callback: Any = None) -> Any:
            future = super().submit(func, callback)

            def failed(done: Any) -> None:
                if not done.cancelled() and done.exception() is not None and callback is not None:
                    callback(done.exception())

            future.add_done_callback(failed)
            return future

    return DaskBackend(client=client)


class Executor:
    """Maps tasks over the configured joblib backend, in order, retrying dead workers.

    The worker pool lives from the first call to :meth:`close`, so that workers keep their
    imports and games between calls (Ray's joblib backend would otherwise start new actors
    for every call).

    Args:
        config: The experiment's ``parallel`` section.
        torch_threads: Threads torch may use in each worker.
    """

    def __init__(self, config: ParallelConfig, torch_threads: int = 1) -> None:
        self.config = config
        self.torch_threads = torch_threads
        self._backend_args: dict[str, Any] = {}
        self._client: Any = None
        self._cluster: Any = None
        self._started_ray = False
        self._pool: Any = None  # an entered joblib.Parallel
        if config.backend == "ray":
            self._start_ray()
        elif config.backend == "dask":
            self._start_dask()

    def _start_ray(self) -> None:
        import ray
        from ray.util.joblib import register_ray

        register_ray()
        # One CPU per pool actor, so that Ray spreads them over the cluster's free CPUs.
        self._backend_args = {"ray_remote_args": {"num_cpus": 1}}
        if ray.is_initialized():  # the caller's own Ray session: use it, leave it open
            return
        quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
        if self.config.address is not None:
            ray.init(address=self.config.address, **quiet)
        else:
            with _ray_on_loopback():
                ray.init(
                    address="local",  # never an instance that happens to run already
                    num_cpus=self.config.n_jobs,
                    include_dashboard=False,
                    _node_ip_address="127.0.0.1",
                    **quiet,
                )
        self._started_ray = True

    def _start_dask(self) -> None:
        from distributed import Client, LocalCluster

        if self.config.address is None:
            self._cluster = LocalCluster(
                host="127.0.0.1",
                n_workers=self.config.n_jobs,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # No dashboard, but the scheduler still serves its health check: any free port,
                # not 8787, which another cluster on this machine may hold.
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            )
        self._client = Client(self._cluster or self.config.address)

    @property
    def parts(self) -> int:
        return 1 if self.config.backend == "serial" else self.config.n_jobs

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        """``[fn(t) for t in tasks]``, run by the workers (a single task runs here)."""
        if self.config.backend == "serial" or len(tasks) <= 1:
            return [fn(t) for t in tasks]
        from joblib import delayed

        died = _worker_died_errors(self.config.backend)
        for attempt in range(self.config.retries + 1):
            try:
                return self._parallel()(delayed(_run)(fn, t, self.torch_threads) for t in tasks)
            except died as exc:
                # The pool is broken (loky) or short of a worker (ray): the next try gets a
                # new one. Tasks are pure functions of their inputs, so redoing them is safe.
                self._close_pool()
                if attempt == self.config.retries:
                    raise
                log.warning("a worker died (%s); running the call again", type(exc).__name__)
        raise AssertionError("unreachable")

    def _parallel(self) -> Any:
        if self._pool is None:
            from joblib import Parallel, parallel_config

            backend = _dask_backend(self._client) if self.config.backend == "dask" else self.config.backend
            with parallel_config(backend, n_jobs=self.config.n_jobs, **self._backend_args):
                pool = Parallel()
            self._pool = pool.__enter__()
        return self._pool

    def _close_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):  # a broken pool may fail to close too
                pool.__exit__(None, None, None)

    def close(self) -> None:
        close_games()
        self._close_pool()
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        if self._started_ray:
            import ray

            ray.shutdown()
            self._started_ray = False

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
