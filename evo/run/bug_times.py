"""When a bug happened: the wall time and the run's env steps at the step that showed it.

A generation's episodes are checked once they are all over, and the whole generation used to
date its bugs by its end: 17 to 100 seconds late on a game of 1000-step episodes. Play records
when each step ended (:data:`games.core.record.CLOCK_KEY`, ``time.time()`` in whichever process
played it), so a bug is dated by the step that showed it. Its env steps are the run's steps
before the batch plus what the batch had played by the bug's step: the copies step side by
side (on several workers), so each had played as many steps, or ended before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core.record import CLOCK_KEY, RolloutBatch
from oracles import Bug


@dataclass(frozen=True)
class BatchClock:
    """When each step of one observed batch ended, to date its bugs.

    Attributes:
        clock: ``[N, T]`` wall clock at the end of each step (0 past an episode's end).
        lengths: ``[N]`` steps of each episode.
        policy, episode_seed: ``[N]`` each episode's policy and seed, to find a bug's episode.
        steps_before: The run's env steps before this batch.
        zero: The wall clock time of the run's second 0 (a resumed run's included).
    """

    clock: np.ndarray
    lengths: np.ndarray
    policy: np.ndarray
    episode_seed: np.ndarray
    steps_before: int
    zero: float

    @classmethod
    def of(cls, batch: RolloutBatch, steps_after: int, zero: float) -> "BatchClock | None":
        """The clock of ``batch`` (observed when the run had played ``steps_after`` steps);
        None for a batch played without one (the probe, a replay)."""
        clock = batch.info.get(CLOCK_KEY)
        if clock is None or clock.dtype == object:
            return None
        return cls(np.asarray(clock, dtype=np.float64), np.asarray(batch.lengths), np.asarray(batch.policy),
                   np.asarray(batch.episode_seed), steps_after - int(np.sum(batch.lengths)), zero)

    def when(self, bug: Bug) -> tuple[int, float] | None:
        """``(env_steps, wall_s)`` of the step that showed ``bug``; None where its episode is
        not in this batch."""
        rows = np.flatnonzero((self.policy == bug.policy) & (self.episode_seed == bug.episode_seed))
        if not rows.size or self.clock.shape[1] == 0:
            return None
        i = int(rows[0])
        t = int(np.clip(bug.step, 0, max(int(self.lengths[i]) - 1, 0)))
        # The batch's copies play side by side: when this one ended step t, each had played
        # (at most) t + 1 steps. Counted so, not by the clocks, the same run gives the same
        # count on any number of workers.
        ended = int(np.minimum(self.lengths, t + 1).sum())
        return self.steps_before + ended, float(self.clock[i, t]) - self.zero
