"""The resident memory of isolated copies: bounded per copy and, together, by the machine.

A copy's memory is its worker process's and that of every process below it (an engine its
game started), read from ``/proc``. A copy is killed and reported as ``GameOutOfMemory``, a
crash bug of that copy, when it holds more than ``game.max_rss_mb``, or when the machine runs
short (less available than :func:`reserve_mb`) and it is the copy here that grew most since
it started, by at least :data:`GREW_MB`. The second bound holds for the whole run, however many
copies it keeps in however many workers: with a leak in every copy, 120 copies that may each
reach 2 GiB are not bounded by 2 GiB each on a 24 GiB machine, and the kernel's OOM killer
then SIGKILLed copies (and could pick the run itself). A copy that does not grow is never
killed for the machine's sake.

The report says how fast the copy grew ("grew 200 MiB a step over 9 steps"); the message
itself names no number, so that one leak is one bug whichever bound caught it.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Sequence

from games.adapter.worker import Worker
from games.core.base import GameError
from games.common.process_memory import children_by_parent, machine_mb

MEMORY_POLL_S = 0.1
"""How often the workers' resident memory is read against the bounds, also while a step
runs: a copy can go over by what it allocates in this time. Reading every step would cost
more than a step of a small game (a ``/proc`` read is tens of microseconds on a loaded
machine)."""
TREE_REFRESH_S = 2.0
"""How often the processes a game started (an engine) are looked up again; a full pass over
``/proc`` costs milliseconds."""
GREW_MB = 256.0
"""A copy killed for the machine's sake grew at least this much since its process started:
a game's ordinary working set is left alone, a leak is not."""
SAMPLES = 64
"""Memory readings kept per copy, about one a second."""
GROWING_MB = 32.0
"""A copy whose wait runs out while it grew this much since the wait began is still working."""
OUT_OF_MEMORY = "game process kept growing past its memory bound"
"""The message of every ``GameOutOfMemory``: its numbers are in the error's ``detail``."""


def reserve_mb(total_mb: float) -> float:
    """Memory the machine keeps available while copies grow: a tenth of it, at least 1 GiB."""
    return max(1024.0, 0.1 * total_mb)


class MemoryWatch:
    """Kills copies that hold more than ``max_rss_mb`` (None: no bound per copy) or that grow
    while the machine runs short."""

    def __init__(self, workers: Sequence[Worker], max_rss_mb: float | None) -> None:
        self.workers = workers
        self.max_rss_mb = max_rss_mb
        self._polled = 0.0
        self._tree: dict[int, list[int]] = {}
        self._tree_at = float("-inf")
        self._first: dict[int, tuple[int, float]] = {}
        """Per copy, its process and the memory it held when first read."""
        self._steps: dict[int, int] = {}
        """Per copy, the steps its process played since then."""
        self._samples: dict[int, deque[tuple[float, float]]] = {}
        """Per copy, its memory read about once a second over the last minute: (when, MiB)."""


    @property
    def poll_s(self) -> float:
        """How long a wait for replies may last before memory is read again."""
        return MEMORY_POLL_S

    def growing(self, i: int, since: float) -> bool:
        """Copy ``i`` holds :data:`GROWING_MB` more now than when last read at or before
        ``since`` (``time.monotonic()``): a process that allocates is working, not hung (a
        leak's 200 MiB steps took 3.6 s each once the machine was short of memory)."""
        samples = self._samples.get(i)
        if not self.workers[i].running or not samples:
            return False
        before = next((rss for t, rss in reversed(samples) if t <= since), samples[0][1])
        return self.workers[i].rss_mb(self._tree) - before >= GROWING_MB

    def stepped(self, i: int) -> None:
        self._steps[i] = self._steps.get(i, 0) + 1

    def over(self, indices: Sequence[int]) -> dict[int, GameError]:
        """Kill the copies among ``indices`` that are over a bound (read at most every
        :data:`MEMORY_POLL_S`), and say so for each."""
        now = time.monotonic()
        if not indices or now - self._polled < MEMORY_POLL_S:
            return {}
        self._polled = now
        if now - self._tree_at >= TREE_REFRESH_S:
            self._tree, self._tree_at = children_by_parent(), now
        held: dict[int, float] = {}
        for i in indices:
            worker = self.workers[i]
            if not worker.running:
                continue
            held[i] = rss = worker.rss_mb(self._tree)
            pid = worker.process.pid
            if self._first.get(i, (None,))[0] != pid:
                self._first[i], self._steps[i], self._samples[i] = (pid, rss), 0, deque(maxlen=SAMPLES)
            if not self._samples[i] or now - self._samples[i][-1][0] >= 1.0:
                self._samples[i].append((now, rss))
        over = {i: f"game.max_rss_mb = {self.max_rss_mb:g} MiB" for i, rss in held.items()
                if self.max_rss_mb is not None and rss > self.max_rss_mb}
        machine = machine_mb()
        grown = {i: rss - self._first[i][1] for i, rss in held.items() if i not in over}
        if machine is not None and grown and machine[1] < reserve_mb(machine[0]):
            i = max(grown, key=grown.__getitem__)
            if grown[i] >= GREW_MB:
                over[i] = f"the machine had {machine[1]:,.0f} MiB available, under its reserve of " \
                          f"{reserve_mb(machine[0]):,.0f} MiB"
        errors: dict[int, GameError] = {}
        for i, bound in over.items():
            self.workers[i].kill()
            grew, steps = held[i] - self._first[i][1], self._steps.get(i, 0)
            pace = f", {grew / steps:,.1f} MiB a step over {steps} steps" if steps else ""
            errors[i] = GameError(type="GameOutOfMemory", message=OUT_OF_MEMORY, where="",
                                  detail=f"held {held[i]:,.0f} MiB, {grew:,.0f} more than at its start{pace}; {bound}")
        return errors
