"""What every run kind combines: one experiment's parts, built once, in one run directory.

pymoo's way: a run is parts a reader can see, not one object that does everything.

- :class:`~evo.run.state.RunState`: where the run is (counters, random streams, coverage, the
  frontier, the bug archive) and its budget (``state.done()``, pymoo's termination);
- :class:`~evo.run.evaluator.Evaluator`: plays policies on the workers and scores them
  (``evaluate``), or fine-tunes them (``tune``); every episode played is counted and checked;
- :class:`~evo.run.recorder.Recorder`: keeps the run directory, a generation at a time
  (``finish``: its row, checkpoint, tables and bugs, run while the next generation plays);
- :class:`Run`: builds them and holds what they share (the built game and components, the
  workers); a run kind subclasses it and writes :meth:`Run.run`, its loop, with those parts.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from dataclasses import replace
from pathlib import Path
from typing import ClassVar, Iterator

import torch

from evo.run.built import Built
from evo.run.checks import Checks, background_safe
from evo.run.chunks import run_batch
from evo.run.config import Experiment
from evo.run.counters import BugsFn, ProgressFn
from evo.run.device import check_runnable
from evo.run.early_faults import EarlyFaults
from evo.run.evaluator import Evaluator
from evo.run.kinds import RUN_KINDS
from evo.run.parallel import Executor
from evo.run.phases import Phases
from evo.run.recorder import Recorder
from evo.run.replay_check import resolved
from evo.run.replays import Replays
from evo.run.scalars import check_installed
from evo.run.state import RunState
from evo.search.operators import Population


class Run(ABC):
    """One run of an experiment into one run directory.

    Args:
        exp: The experiment (:func:`evo.run.config.load_experiment`).
        run_dir: Where the run is kept.
        progress: Told after each generation.
        begun: When the run began (``time.perf_counter()``; ``evo run``: its start), for its
            wall budget; None: now.
        on_bugs: Told of bugs archived while a generation plays (a fault of the game's
            process), else they come with its report.
    """

    overlaps: ClassVar[bool] = True
    """Whether a generation's tail may run while the next one plays on the workers (False for
    a kind that plays in this process)."""

    def __init__(self, exp: Experiment, run_dir: Path, progress: ProgressFn | None = None,
                 begun: float | None = None, on_bugs: BugsFn | None = None) -> None:
        if exp.logging.tensorboard:
            check_installed()  # one line before anything is built or written
        check_runnable(exp)  # a run starts on its device; opening it later need not (evo.run.device)
        self.check(exp)
        begun = time.perf_counter() if begun is None else begun
        self.run_dir = Path(run_dir)
        self.built = Built.from_experiment(exp, self.run_dir)
        # fitted to the game (evo.run.fit), bug_replays decided (evo.run.replay_check): what config.yaml records
        self.built = replace(self.built, exp=resolved(self.built.exp, self.built.factory, self.built.facts.label))
        self.exp = exp = self.built.exp
        self.population: Population | None = None
        """The final population, once :meth:`run` returns."""
        try:
            self.state = RunState.start(exp, self.built, begun)
            self.phases = Phases(self.built.probe_s)
            self.executor = Executor(exp.parallel, exp.torch_threads)
            self.early = EarlyFaults(self.built.oracles, self.run_dir)
            self.checks = Checks(self.built.oracles, background_safe(self.built.objectives))
            self.replays = Replays(self.built.factory, self.built.spec.n_actions, self.built.columns, run_batch(exp))
            self.recorder = Recorder(self.built, self.run_dir, self.state, self.checks, self.replays, self.phases,
                                     self.overlaps and self.executor.overlaps, progress, on_bugs)
            self.evaluator = Evaluator(self.built, self.state, self.executor, self.early, self.checks, self.phases,
                                       self.recorder)
        except BaseException:
            self.built.close()  # e.g. a Ray or Dask cluster that does not start: the game's processes end
            raise

    @classmethod
    def check(cls, exp: Experiment) -> None:
        """Raise ``ConfigError`` (one line) where ``exp`` is not an experiment this kind runs."""

    @property
    def seconds(self) -> dict[str, float]:
        """Wall seconds spent per phase (:mod:`evo.run.phases`)."""
        return self.phases.seconds

    @abstractmethod
    def run(self, resume: bool = False) -> Population:
        """Run until the budget is spent (``resume``: from the run directory's last
        checkpoint); return the final population, also kept as :attr:`population`."""

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Around a kind's loop: torch's threads as the experiment says; the last generation's
        tail once the loop ends; where it ends with an error or an interrupt, the workers stop
        and the last whole generation's tail still runs, so that its checkpoint is there to
        resume from. Everything the run started is closed after."""
        threads = torch.get_num_threads()
        torch.set_num_threads(self.exp.torch_threads)
        try:
            yield
            self.recorder.drain()
        except BaseException:
            self.executor.close()
            self.recorder.stopped()
            raise
        finally:
            torch.set_num_threads(threads)
            self.close()

    def close(self) -> None:
        self.evaluator.close()
        self.checks.close()
        self.replays.close()
        self.early.close()
        self.executor.close()
        self.recorder.close()
        self.built.close()


def run_for(exp: Experiment, run_dir: Path, progress: ProgressFn | None = None, begun: float | None = None,
            on_bugs: BugsFn | None = None) -> Run:
    """The run of ``exp`` by its kind (``run:``), ready to :meth:`~Run.run`; what ``evo run``
    and ``evo compare`` start."""
    return RUN_KINDS[exp.run](exp, run_dir, progress, begun, on_bugs)
