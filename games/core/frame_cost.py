"""What a slow frame costs: the heavy operations of injected performance bugs, and the clocks
games measure frame time by.

An injected performance bug must really burn CPU, not just report a number: the engine (or a
user's profiler) that times ``step`` itself then sees the same slow frame the game reports.
Every game that injects one imports its work from here, so that one definition of "a heavy
operation of ``heavy_ms`` milliseconds" holds for all of them.
"""

from __future__ import annotations

import resource
import time
from typing import Callable

import numpy as np

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
"""How a game measures frame time: ``wall`` (what a player waits) or ``cpu`` (the CPU time
of the thread that steps the game, which a busy machine's scheduler does not inflate)."""

# Gymnasium's CartPole gravity and pole half-length: the busy work integrates a pole.
_GRAVITY = 9.8
_LENGTH = 0.5


def check_clock(clock: str) -> None:
    """Raise ``ValueError`` naming the clocks when ``clock`` is not one of :data:`CLOCKS`."""
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")


def heavy_operation(heavy_ms: float, clock: str = "wall") -> float:
    """Keep the CPU busy for ``heavy_ms`` milliseconds by ``clock`` (a bug's real cost).

    The work (re-integrating a pole trajectory at a fine time step, over and over) is really
    done, so a frame-time oracle that times ``step`` sees it. By the ``cpu`` clock it is
    ``heavy_ms`` of this thread's CPU time, however long the scheduler makes it take.

    Returns:
        The measured duration in milliseconds, by ``clock``.
    """
    now = CLOCKS[clock]
    t0 = now()
    deadline = t0 + heavy_ms / 1000.0
    theta = np.linspace(-0.2, 0.2, 256)
    while now() < deadline:
        omega = np.zeros_like(theta)
        for _ in range(16):
            omega += 1e-4 * _GRAVITY / _LENGTH * np.sin(theta)
            theta = theta + 1e-4 * omega
    return (now() - t0) * 1000.0


def flood_fill(free: np.ndarray, seed_index: tuple[int, int], heavy_ms: float) -> float:
    """Flood-fill a grid again and again until ``heavy_ms`` of wall time have passed.

    A grid game's heavy operation (the block maze's performance bug): work a level editor's
    reachability check would do, repeated for as long as the bug costs.

    Args:
        free: Bool grid of walkable cells.
        seed_index: (row, col) the fills start from.
        heavy_ms: How long to keep the CPU busy.

    Returns:
        The measured duration in milliseconds.
    """
    t0 = time.perf_counter()
    deadline = t0 + heavy_ms / 1000.0
    while time.perf_counter() < deadline:
        reach = np.zeros_like(free)
        reach[seed_index] = True
        while time.perf_counter() < deadline:
            grown = reach.copy()
            grown[1:, :] |= reach[:-1, :]
            grown[:-1, :] |= reach[1:, :]
            grown[:, 1:] |= reach[:, :-1]
            grown[:, :-1] |= reach[:, 1:]
            grown &= free
            grown[seed_index] = True
            if np.array_equal(grown, reach):
                break
            reach = grown
    return (time.perf_counter() - t0) * 1000.0


class BatchClock:
    """The wall time of one vector step, shared evenly between its copies.

    A vector game steps its copies in a few array operations; what a copy's frame cost is
    then the batch's own time divided by the copies, plus the heavy work that copy alone ran.
    Start it at the top of ``step``; :meth:`frame_ms` at the end.
    """

    def __init__(self) -> None:
        self._t0 = time.perf_counter()

    def frame_ms(self, heavy_ms: np.ndarray) -> np.ndarray:
        """``[N]`` frame times: the batch's time less the heavy work, split evenly, plus each
        copy's own heavy work ``heavy_ms [N]``."""
        batch_ms = (time.perf_counter() - self._t0) * 1000.0 - float(heavy_ms.sum())
        return heavy_ms + batch_ms / heavy_ms.shape[0]


class StepTimer:
    """Times a game's own ``step`` as a player would wait for it, unless the scheduler took
    the CPU away from a step that never waited.

    A step of a small game takes microseconds; on a machine with fewer cores than game copies
    (isolated copies step in parallel) the scheduler often preempts a copy mid-step for a
    whole time slice, milliseconds, which would read as a slow frame the game never drew.
    Linux counts a thread's context switches (``getrusage(RUSAGE_THREAD)``): involuntary ones
    (``ru_nivcsw``, preempted) and voluntary ones (``ru_nvcsw``, it waited: a sleep, a GPU
    fence, I/O). A step that was preempted and never waited is timed by the CPU time its
    thread spent (what it drew, not what it waited for the CPU); any other step by wall time,
    as a player waits for it. Where there is no per-thread count, wall time is used.
    """

    def __init__(self) -> None:
        self._thread = getattr(resource, "RUSAGE_THREAD", None)
        self._wall = self._cpu = 0.0
        self._switches = (0, 0)

    def _switched(self) -> tuple[int, int]:
        if self._thread is None:
            return 0, 0
        usage = resource.getrusage(self._thread)
        return usage.ru_nivcsw, usage.ru_nvcsw

    def start(self) -> None:
        self._switches = self._switched()
        self._cpu = time.thread_time()
        self._wall = time.perf_counter()

    def stop_ms(self) -> float:
        """Milliseconds since :meth:`start`, by the rule above."""
        wall = time.perf_counter() - self._wall
        preempted, waited = (now - then for now, then in zip(self._switched(), self._switches))
        if preempted and not waited:
            return (time.thread_time() - self._cpu) * 1e3
        return wall * 1e3
