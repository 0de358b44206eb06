"""The oracles' checks of a batch, run beside the objectives' work on the same batch.

Between two generations every worker stands idle while the run's own process scores the
episodes, trains what learns (RND's predictors) and runs the oracles (the visual oracle's
texture judge, placing every detection). The oracles' checks depend on nothing the objectives
do with the batch, so :class:`Checks` runs them on a thread of their own, one batch after the
other in the order they were played, while the objectives score and learn; the loop takes
their bugs (:meth:`Checks.settle`) before anything reads the bugs or an oracle's state: before
the oracles learn from the batch, and before a generation's row and checkpoint. Everything
is done in the order a run without the thread does it, so the same bugs, objectives and
tables come out; only the seconds differ.

One thing would change order: an objective told of new bugs (``Component.found``) before it
scores the batch that found them. The thread is used only where no objective listens for
bugs (:func:`background_safe`).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Sequence

from evo.run.bug_times import BatchClock
from evo.run.rates import Snapshots
from games.core.component import Component, Replay
from games.core.record import RolloutBatch
from oracles import Bug


def check_each(oracles: Sequence[Component], rollouts: RolloutBatch) -> list[list[Bug]]:
    """Each oracle's bugs for this batch, in the oracles' order (:func:`oracles.check_all`,
    kept apart per oracle for its ``confirm``)."""
    return [oracle.check(rollouts) for oracle in oracles]


def background_safe(objectives: Sequence[Component]) -> bool:
    """Whether the checks may run beside the objectives: none of them overrides
    :meth:`~games.core.component.Component.found`, which the bugs would reach later than without
    the thread."""
    return all(type(o).found is Component.found for o in objectives)


class Checks:
    """The oracles' checks of each observed batch, in order, on a thread or here.

    Args:
        oracles: The run's oracles, checked in this order (as :func:`oracles.check_all`).
        background: Run the checks on a thread of their own; else at once, in the caller.
    """

    def __init__(self, oracles: Sequence[Component], background: bool) -> None:
        self.oracles = list(oracles)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="evo-oracles") if background else None
        self._pending: list[tuple[Future[list[Bug]] | list[Bug], int, BatchClock | None, Snapshots | None]] = []

    def submit(self, rollouts: RolloutBatch, env_steps: int, zero: float | None = None) -> None:
        """Check ``rollouts`` (the run had played ``env_steps`` steps once they were observed;
        ``zero``: the wall clock time of the run's second 0, to date each bug by its step)."""
        clock = None if zero is None else BatchClock.of(rollouts, env_steps, zero)
        snapshots = Snapshots.of(rollouts)
        if self._pool is None:
            self._pending.append((check_each(self.oracles, rollouts), env_steps, clock, snapshots))
        else:
            self._pending.append((self._pool.submit(check_each, self.oracles, rollouts), env_steps, clock, snapshots))

    def settle(self, replay: Replay | None = None) -> list[tuple[list[Bug], int, BatchClock | None, Snapshots | None]]:
        """Every submitted batch's bugs, its ``env_steps``, its clock (None: date its bugs
        by now) and the snapshots its episodes took (:mod:`evo.run.rates`), in the order
        submitted, once all are checked; with ``replay``, each oracle's bugs as it confirms them
        (:meth:`oracles.base.Oracle.confirm`). An oracle's error is raised here, after the
        checks before it."""
        pending, self._pending = self._pending, []
        settled = []
        for job, steps, clock, snapshots in pending:
            found = job.result() if isinstance(job, Future) else job
            if replay is not None:
                found = [oracle.confirm(bugs, replay) if bugs else bugs for oracle, bugs in zip(self.oracles, found)]
            settled.append(([bug for bugs in found for bug in bugs], steps, clock, snapshots))
        return settled

    def close(self) -> None:
        """Wait for checks under way, then end the thread."""
        self._pending = []
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
