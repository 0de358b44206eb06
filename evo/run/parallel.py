"""Parallel evaluation and fine-tuning through joblib: local processes, Ray or Dask.

The population is cut into tasks (:mod:`evo.run.chunks`, :mod:`evo.search.tasks`). Because
every policy draws its random numbers from its own seed, a run gives the same results
serially, with any number of local workers, and on a Ray or Dask cluster.

Backends (``parallel:`` in the YAML):
- ``serial``: in this process, no pickling (what tests and tiny runs use). Where the game
  renders in processes (``render_processes`` of 2 or more), the population plays in two lanes,
  two threads of this process with half the copies and half the rendering processes each:
  while one lane waits for its frames, the other runs the networks on its own (the GIL is
  free while a lane waits on its pipes or runs torch).
- ``loky``: joblib's default process pool on this machine.
- ``ray``: ``ray.util.joblib`` on the Ray cluster at ``address``, or on a Ray instance this
  run starts on 127.0.0.1 (the ``ray`` extra), which :mod:`evo.run.reaper` ends with the run.
- ``dask``: joblib's Dask backend on the scheduler at ``address``, or on a local cluster this
  run starts on 127.0.0.1 (the ``dask`` extra).

A worker that dies mid-task (killed, out of memory) fails the whole joblib call on loky and
Ray; the tasks are pure functions of their inputs, so the call is simply made again, up to
``retries`` times, on live workers. Dask runs the task again on another worker by itself and
fails the call only when it gives up (see :func:`evo.run.cluster.worker_died_errors`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Literal, Sequence, TypeVar

import torch
from pydantic import BaseModel, ConfigDict, Field, model_validator

from evo.run.cluster import dask_backend, keep_loky_worker, ray_on_loopback, worker_died_errors
from evo.run.reaper import Reaper
from evo.search.game_cache import WORKER_GAMES, in_lane
from games.common.lifetime import die_with_parent

log = logging.getLogger(__name__)
_ABORT_WAIT_S = 60.0
"""Longest wait, when a run ends under way, for its joblib call to end once its workers are stopped."""
T = TypeVar("T")
R = TypeVar("R")


class StillRunning(Exception):
    """A call's results asked for with a timeout, before its tasks are over (:meth:`Executor.start`)."""


class ParallelConfig(BaseModel):
    """Where episodes are played."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["serial", "loky", "ray", "dask"] = Field(
        "loky", description="serial, loky (local processes), ray or dask."
    )
    n_jobs: int = Field(
        2, ge=1, description="Workers at once, and chunks the population is cut into (on Ray, "
        "each worker holds one CPU of the cluster). 'auto': one per core this machine lets the "
        "run use (its CPU affinity), counted when the experiment is read and written as a number "
        "in the run's config.yaml; a cluster at an address needs the number itself."
    )
    address: str | None = Field(
        None, description="An existing cluster: Ray ('ray://head:10001', or 'auto' / 'head:6379' "
        "on a node of the cluster) or a Dask scheduler ('tcp://scheduler:8786'). Null: the run "
        "starts its own on 127.0.0.1 with n_jobs workers, and stops it at the end."
    )
    retries: int = Field(2, ge=0, description="Times a call is made again after a worker died.")
    render_processes: int = Field(
        1, ge=1, description="Processes each worker's copies of the game render in; the worker "
        "then runs the observation wrappers (detector, encoder) and the population's forward pass "
        "over all of its copies in one batch, on the GPU with device: cuda (Sample Factory's shape; "
        "with backend serial, two batches, one per lane: see lanes). Same episodes as 1.",
    )

    @model_validator(mode="before")
    @classmethod
    def _auto_jobs(cls, data: Any) -> Any:
        """``n_jobs: auto`` made a number: this machine's usable cores."""
        if not isinstance(data, dict) or "n_jobs" not in data:
            return data
        jobs = data["n_jobs"]
        if jobs != "auto":
            try:
                whole = int(jobs) if isinstance(jobs, str) else jobs
            except ValueError:
                whole = None
            if isinstance(whole, bool) or not isinstance(whole, int) or whole < 1:
                raise ValueError(f"n_jobs must be a number of workers (1 or more) or auto, got {jobs!r}")
            return data
        if data.get("address") is not None:
            raise ValueError(f"n_jobs: auto counts this machine's cores, not those of the cluster at "
                             f"{data['address']!r}; give the number of workers")
        return {**data, "n_jobs": usable_cores()}

    @property
    def lanes(self) -> int:
        """Threads the serial backend plays in at once: 2 where the game renders in processes
        (one lane computes while the other's frames render), else 1. Other backends: 1."""
        return 2 if self.backend == "serial" and self.render_processes >= 2 else 1

    @property
    def game_render_processes(self) -> int:
        """Processes one vector game renders in (:attr:`games.registry.GameFactory.render_processes`):
        0, in the player's own process, for ``render_processes: 1``; else the lane's share."""
        return 0 if self.render_processes == 1 else max(1, self.render_processes // self.lanes)


def usable_cores() -> int:
    """Cores this process may run on (its affinity where the system says, else all)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def idle_cores(config: ParallelConfig) -> str | None:
    """One line where workers on this machine (loky's, or a Ray or Dask instance the run starts)
    leave some of its cores idle, as ``auto`` would not; None where they do not, where the run
    plays in its own process, or on a cluster at an address."""
    cores = usable_cores()
    if config.backend == "serial" or config.address is not None or config.n_jobs >= cores:
        return None
    return (f"parallel: {config.n_jobs} worker{'s' if config.n_jobs > 1 else ''} on a machine with {cores} cores "
            f"(parallel.n_jobs=auto plays on all {cores}; same results either way)")


# ---------------------------------------------------------------------------------- executor
def _run(fn: Callable[[T], R], task: T, torch_threads: int, parent: int | None = None) -> R:
    """Worker side of every task: torch gets ``torch_threads`` threads, then ``fn`` runs.

    Set here rather than trusted to the backend: loky caps inner threads through environment
    variables, Ray only for tasks that reserve CPUs, Dask not at all. The worker also asks to
    be killed when its parent dies (a SIGKILLed run leaves no worker, nor the worker's games),
    and a loky worker is kept through the memory it grows by design (:func:`keep_loky_worker`).
    A loky worker (``parent``: the run) whose run died before it asked (a run SIGKILLed while
    its workers were still importing) exits at once: left to run its task, it started game
    copies and engines under init, 138 of them 10 s after a kill 8 s into a run.
    """
    if die_with_parent() and parent is not None and os.getppid() != parent:
        os._exit(1)
    keep_loky_worker()
    if torch.get_num_threads() != torch_threads:
        torch.set_num_threads(torch_threads)
    return fn(task)


def _in_lanes(fn: Callable[[T], R], tasks: Sequence[T], lanes: int, pool: Any) -> Callable[..., list[R]]:
    """``[fn(t) for t in tasks]`` begun on ``pool``'s threads, task ``i`` in lane ``i % lanes``,
    each lane's tasks in order; the function returned waits for the results. Every lane
    finishes before anything is returned or raised, so that no lane still plays a game the
    caller may go on to close."""

    def lane(k: int) -> list[R]:
        with in_lane(k):
            return [fn(t) for t in tasks[k::lanes]]

    futures = [pool.submit(lane, k) for k in range(min(lanes, len(tasks)))]

    def results(timeout: float | None = None) -> list[R]:
        if wait(futures, timeout).not_done:
            raise StillRunning
        out: list[Any] = [None] * len(tasks)
        for k, future in enumerate(futures):
            out[k::lanes] = future.result()  # the first lane's error, if any, raises here
        return out

    return results


def _stop_loky_workers(kill: bool = False) -> None:
    """Shut down loky's pool, waiting for its workers to exit, so that they close their games
    (:data:`evo.search.game_cache.WORKER_GAMES`) while the run is still there; left to themselves
    they idle for 5 minutes, or until the run's interpreter exits. The pool is loky's one reusable executor,
    which joblib keeps in a module global and offers no call to stop; the next call makes a
    new one. ``kill``: workers still playing are killed rather than waited for (their games
    end with them, :func:`games.common.lifetime.die_with_parent`)."""
    from joblib.externals.loky import reusable_executor

    pool = getattr(reusable_executor, "_executor", None)
    if pool is not None:
        with contextlib.suppress(Exception):  # a broken pool may fail to shut down too
            pool.shutdown(wait=True, kill_workers=kill)


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
        self._reaper: Reaper | None = None
        self._pool: Any = None  # an entered joblib.Parallel
        # The serial backend's lanes: threads that live as long as the games they made, since
        # a game's rendering processes die with the thread that started them (die_with_parent).
        self._lanes: Any = None
        # The thread a joblib call waits on while this one goes on (start), and its call.
        self._waiter: ThreadPoolExecutor | None = None
        self._in_flight: Future[Any] | None = None
        self._aborting = False
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
            # Ray's agents outlive a SIGKILLed run by a minute: a watchdog ends them.
            self._reaper = Reaper(prefix="ray-evo-")
            try:
                with ray_on_loopback():
                    ray.init(
                        address="local",  # never an instance that happens to run already
                        num_cpus=self.config.n_jobs,
                        include_dashboard=False,
                        _node_ip_address="127.0.0.1",
                        _temp_dir=self._reaper.folder,  # every process of it holds files there
                        **quiet,
                    )
            except BaseException:
                self._reaper.stop()  # ends what ray.init started of the instance
                raise
            self._reaper.seal()
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
    def overlaps(self) -> bool:
        """Whether :meth:`start` leaves this thread free while tasks run (more than one worker
        or lane); else they run here."""
        return self.parts > 1

    @property
    def parts(self) -> int:
        return self.config.lanes if self.config.backend == "serial" else self.config.n_jobs

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        """``[fn(t) for t in tasks]``, run by the workers (a single task runs here; the serial
        backend's tasks run here, task ``i`` in lane ``i % lanes``)."""
        return self.start(fn, tasks)()

    def start(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Callable[..., list[R]]:
        """:meth:`map` begun; the function returned waits for its results (or raises its error),
        or for ``timeout`` seconds where given (then :class:`StillRunning` while they run).

        Where the tasks run off this thread (a joblib backend's workers, the serial backend's
        lanes), this thread is free until it asks for them: the loop does a generation's
        bookkeeping while the next one plays (:mod:`evo.run.recorder`). Where they run on this
        thread (the serial backend's single lane, a single task), they have run when this
        returns."""
        if self.config.backend == "serial" and self.config.lanes > 1 and len(tasks) > 1:
            if self._lanes is None:
                self._lanes = ThreadPoolExecutor(self.config.lanes, thread_name_prefix="evo-lane")
            return _in_lanes(fn, tasks, self.config.lanes, self._lanes)
        if self.config.backend == "serial" or len(tasks) <= 1:
            out = [fn(t) for t in tasks]
            return lambda timeout=None: out
        if self._waiter is None:
            self._waiter = ThreadPoolExecutor(1, thread_name_prefix="evo-play")
        self._in_flight = future = self._waiter.submit(self._joblib_map, fn, tasks)

        def results(timeout: float | None = None) -> list[R]:
            if wait([future], timeout).not_done:
                raise StillRunning
            return future.result()

        return results

    def _joblib_map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        from joblib import delayed

        died = worker_died_errors(self.config.backend)
        for attempt in range(self.config.retries + 1):
            try:
                parent = os.getpid() if self.config.backend == "loky" else None
                return self._parallel()(delayed(_run)(fn, t, self.torch_threads, parent) for t in tasks)
            except died as exc:
                # The pool is broken (loky) or short of a worker (ray): the next try gets a
                # new one. Tasks are pure functions of their inputs, so redoing them is safe.
                self._close_pool()
                if attempt == self.config.retries or self._aborting:
                    raise
                log.warning("a worker died (%s); running the call again", type(exc).__name__)
        raise AssertionError("unreachable")

    def _parallel(self) -> Any:
        if self._pool is None:
            from joblib import Parallel, parallel_config

            backend = dask_backend(self._client) if self.config.backend == "dask" else self.config.backend
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
        unfinished = self._in_flight is not None and not self._in_flight.done()
        if unfinished:  # the run ends (an error, an interrupt) while workers play: stop them
            self._aborting = True
            if self.config.backend == "loky":
                _stop_loky_workers(kill=True)
        WORKER_GAMES.close()  # the games this process played (the serial backend, single tasks)
        if self._lanes is not None:  # after their games: those end with the threads that made them
            self._lanes.shutdown(wait=True)
            self._lanes = None
        self._close_pool()
        if self.config.backend == "loky":
            _stop_loky_workers()
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
        if self._waiter is not None:  # its call ends with the workers (or the cluster) above
            if self._in_flight is not None:
                wait([self._in_flight], timeout=_ABORT_WAIT_S)
            self._waiter.shutdown(wait=not unfinished)
            self._waiter, self._in_flight = None, None
        if self._reaper is not None:
            self._reaper.stop()
            self._reaper = None

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
