"""The run's side of faults told as they happen (:mod:`evo.search.faults`).

While the loop waits for its workers it reads, every :data:`POLL_S` seconds, the faults of the
game's processes they wrote, and has the crash oracle report each (:meth:`oracles.crash.
CrashOracle.report`): the same bug its check of the batch reports later, which the archive
then already holds. A run without the crash oracle reports no crash, early or late.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from evo.run.counters import Counters
from evo.run.parallel import StillRunning
from evo.search.faults import FaultLog, FaultReader
from oracles import Bug
from oracles.crash import CrashOracle

POLL_S = 0.25
"""How often the faults folder is read while the workers play."""
FOLDER = "faults"
"""The folder of the run directory the workers write faults to."""


class EarlyFaults:
    """Reads the faults the workers wrote and hands each to ``keep`` as a crash bug.

    Args:
        oracles: The run's oracles (their crash oracle reports the faults).
        run_dir: The run directory; its :data:`FOLDER` is emptied here.
    """

    def __init__(self, oracles: Sequence[Any], run_dir: Path) -> None:
        self.crash = next((o for o in oracles if isinstance(o, CrashOracle)), None)
        self.reader = None if self.crash is None else FaultReader(Path(run_dir) / FOLDER)

    @property
    def log(self) -> FaultLog | None:
        """What the workers' tasks carry to tell their faults (None: nothing is told early)."""
        return None if self.reader is None else self.reader.log

    def collect(self, results: Callable[..., list[Any]], counters: Counters, copies: int,
                keep: Callable[[Bug, int, float], None]) -> list[Any]:
        """``results()`` of a call of ``copies`` copies; meanwhile each fault told is handed to
        ``keep`` as ``(bug, env_steps, wall_s)`` when it comes, the last ones before returning.

        A fault's wall seconds are when it came; its env steps, the run's steps before the call
        and the telling worker's steps so far as a share of the call's copies."""
        if self.reader is None:
            return results()
        while True:
            try:
                out = results(POLL_S)
                break
            except StillRunning:
                self._give(counters, copies, keep)
        self._give(counters, copies, keep)
        return out

    def _give(self, counters: Counters, copies: int, keep: Callable[[Bug, int, float], None]) -> None:
        assert self.reader is not None and self.crash is not None
        for fault in self.reader.new():
            bug = self.crash.report(fault.error, step=fault.step, state=fault.state, next_state=fault.next_state,
                                    policy=fault.policy, episode_seed=fault.episode_seed, actions=fault.actions)
            steps = counters.env_steps + round(fault.played * copies / max(fault.copies, 1))
            keep(bug, steps, counters.wall_s - (time.time() - fault.time))

    def close(self) -> None:
        """Remove the folder (the faults in it are in ``bugs.jsonl``)."""
        if self.reader is not None:
            shutil.rmtree(self.reader.folder, ignore_errors=True)
