"""The resident memory of isolated copies, read against ``game.max_rss_mb``.

A copy's memory is its worker process's and that of every process below it (an engine its
game started), read from ``/proc``; a copy over the bound is killed and reported as
``GameOutOfMemory``, a crash bug of that copy.
"""

from __future__ import annotations

import time
from typing import Sequence

from games.adapter.worker import Worker
from games.core.base import GameError
from games.core.process_memory import children_by_parent

MEMORY_POLL_S = 0.1
"""How often the workers' resident memory is read against ``max_rss_mb``, also while a step
runs: a copy can go over by what it allocates in this time. Reading every step would cost
more than a step of a small game (a ``/proc`` read is tens of microseconds on a loaded
machine)."""
TREE_REFRESH_S = 2.0
"""How often the processes a game started (an engine) are looked up again; a full pass over
``/proc`` costs milliseconds."""


class MemoryWatch:
    """Kills the copies whose processes hold more than ``max_rss_mb`` (None: no bound)."""

    def __init__(self, workers: Sequence[Worker], max_rss_mb: float | None) -> None:
        self.workers = workers
        self.max_rss_mb = max_rss_mb
        self._polled = 0.0
        self._tree: dict[int, list[int]] = {}
        self._tree_at = float("-inf")

    @property
    def poll_s(self) -> float:
        """How long a wait for replies may last before memory is read again."""
        return MEMORY_POLL_S if self.max_rss_mb is not None else float("inf")

    def over(self, indices: Sequence[int]) -> dict[int, GameError]:
        """Kill the copies among ``indices`` whose process holds more than ``max_rss_mb``
        (read at most every :data:`MEMORY_POLL_S`), and say so for each."""
        now = time.monotonic()
        if self.max_rss_mb is None or not indices or now - self._polled < MEMORY_POLL_S:
            return {}
        self._polled = now
        if now - self._tree_at >= TREE_REFRESH_S:
            self._tree, self._tree_at = children_by_parent(), now
        over: dict[int, GameError] = {}
        for i in indices:
            if self.workers[i].running and self.workers[i].rss_mb(self._tree) > self.max_rss_mb:
                self.workers[i].kill()
                over[i] = GameError(
                    type="GameOutOfMemory", where="",
                    message=f"game process held more than game.max_rss_mb = {self.max_rss_mb:g} MiB",
                )
        return over
