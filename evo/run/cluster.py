"""What each joblib backend needs of its own: the error a dead worker raises on it, loky's
workers kept through the memory they grow by design, a local Ray instance kept on loopback,
and joblib's Dask backend made to fail a call whose task Dask gave up on. :class:`evo.run.parallel.Executor` uses them; nothing here holds state."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator


WORKER_GROWTH_BYTES = 4 << 30
"""How far a loky worker's memory may grow past what it held after its first task before loky
takes it for a leak and replaces it (loky's own bound is 300 MB)."""


def keep_loky_worker() -> None:
    """Raise loky's leak bound in this worker to :data:`WORKER_GROWTH_BYTES`.

    Loky replaces a worker whose resident memory grew 300 MB past what it held after its first
    task, warning "A worker stopped while some jobs were given to the executor". A worker of
    this engine grows that much by design after a light first task: fine-tuning's first
    update, a bigger game in its cache, the pixel networks. Replaced, it throws its games away
    and the next task starts them again. The check reads a module global of the worker's own
    process at each look, so setting it inside a task is enough; a worker that really leaks
    is still replaced, gigabytes later. Anywhere but a loky worker this changes nothing.
    """
    from joblib.externals.loky import process_executor

    if getattr(process_executor, "_MAX_MEMORY_LEAK_SIZE", WORKER_GROWTH_BYTES) < WORKER_GROWTH_BYTES:
        process_executor._MAX_MEMORY_LEAK_SIZE = WORKER_GROWTH_BYTES


def worker_died_errors(backend: str) -> tuple[type[BaseException], ...]:
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
def ray_on_loopback() -> Iterator[None]:
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


def dask_backend(client: Any) -> Any:
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
