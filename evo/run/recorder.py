"""What a run keeps: bugs as they are found, a row, a checkpoint and tables for every generation.

A generation's *tail* is what it still does once its population is chosen: the objectives learn
from its scored batch (RND's predictors), the oracles' checks of its episodes are settled into
the bug archive, the oracles learn, its row of ``generations.csv``, its checkpoint and its
tables are written, and progress is told. None of the next generation's choosing or playing
waits on any of it, so the :class:`Recorder` runs it while the next generation plays
(:meth:`evo.run.evaluator.Evaluator.play` calls :meth:`Recorder.drain` once the workers
have started): on 16 cores the visual oracle and RND's training held every worker idle for
about a second a generation (``docs/measured.md``). Fine-tuning is the one reader: its reward
reads the objectives, so the objectives learn (:meth:`Recorder.learn`) before the next
generation's fine-tuning starts, and the rest of the tail runs beside it.

Everything is done in the order a run without the overlap does it, on the same data:

- what the next generation moves on before its play (the counters, the random streams, the
  frontier's choices, coverage) is taken at the generation's end (:meth:`evo.run.state.RunState.state_dict`);
- objectives and oracles are touched by nothing else until the tail has run: the next batch
  is observed, checked and scored only after it (:mod:`evo.run.evaluator`).

So the same YAML and seed give the same results; only the clock columns differ. A run whose
budget waits on its bugs (``until_all_found`` on a game that knows its injected bugs) runs
each tail at once, and so does a run with nothing to overlap it with (the serial backend's
single lane plays in this thread, or a run kind that plays in this process).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evo.run import rundir
from evo.run.built import Built
from evo.run.checkpoint import Checkpoint, CheckpointError, load_latest, prune_checkpoints, save_checkpoint
from evo.run.checks import Checks
from evo.run.config import dump_experiment
from evo.run.counters import BugsFn, GenerationReport, ProgressFn
from evo.run.phases import Phases
from evo.run.rates import Rates
from evo.run.replays import Replays
from evo.run.scalars import ScalarLog
from evo.run.state import RunState
from evo.search.finetune import DIAGNOSTICS
from evo.search.operators import Population, hypervolume
from games.core.base import BUG_KINDS
from games.core.record import RolloutBatch
from oracles import Bug
from oracles.archive import ArchivedBug

log = logging.getLogger(__name__)


@dataclass
class Tail:
    """One generation's tail, and what it reads that the next generation changes."""

    pop: Population
    """The generation's population, as chosen."""
    batch: RolloutBatch | None
    """Its scored batch, which the objectives and oracles learn from (None: they have)."""
    generation: int
    env_steps: int
    wall_s: float
    """When the generation ended (its row's and its bugs' clock)."""
    meta: dict[str, Any]
    """The checkpoint's counters, random states, coverage and frontier at its end."""
    cells: int | None
    """The frontier's cells at its end (None without a frontier)."""
    tuned: dict[str, float]
    """Its fine-tuning's mean diagnostics (empty: not fine-tuned)."""
    finished: bool | None = None
    """Whether the budget was spent with it (None: decided when the tail runs)."""
    learned: bool = field(default=False)
    """Whether the objectives have learned from :attr:`batch`."""


class Recorder:
    """Keeps a run in its run directory, generation by generation (see the module).

    Args:
        built: The built experiment (its components, ground truth and facts).
        run_dir: Where the run is kept.
        state: The run's state, which the recorder archives into and checkpoints.
        checks: The oracles' checks of every batch played, settled here into the archive.
        replays: Reports played again before they are kept.
        phases: Where the seconds of learning, oracles and bookkeeping are added.
        overlaps: Whether a tail may wait for the next generation's play.
        progress: Told after each generation.
        on_bugs: Told of bugs archived while a generation plays, else they come with its report.
    """

    def __init__(self, built: Built, run_dir: Path, state: RunState, checks: Checks, replays: Replays,
                 phases: Phases, overlaps: bool, progress: ProgressFn | None = None,
                 on_bugs: BugsFn | None = None) -> None:
        self.built, self.exp, self.run_dir, self.state = built, built.exp, Path(run_dir), state
        self.checks, self.replays, self.phases = checks, replays, phases
        self.rates = Rates(built, replays, self.exp.bug_replays, self.run_dir)
        """Each new bug's replays (:mod:`evo.run.rates`)."""
        self.overlaps = overlaps and not (self.exp.budget.until_all_found and built.injected)
        self.progress, self.on_bugs = progress, on_bugs
        self.names = [o.name for o in built.objectives]
        self.senses = [o.sense for o in built.objectives]
        self.scalars: ScalarLog | None = None
        """TensorBoard scalars of each generation (``logging.tensorboard``)."""
        self._tail: Tail | None = None
        """The last generation's tail, until it has run (:meth:`drain`)."""
        self._early: list[ArchivedBug] = []
        """Faults archived as the workers told them since the last settle, which the components hear of there."""
        self._new_bugs: list[ArchivedBug] = []

    # ----------------------------------------------------------------- a run's start
    def start(self, again: bool = False) -> None:
        """A new run directory (``again``: over one killed before its first checkpoint)."""
        rundir.start(self.run_dir, dump_experiment(self.exp), self.built.facts, again=again)
        self._open_scalars(None)

    def restore(self) -> Population | None:
        """The population of the newest checkpoint that loads, the run's state and its
        components put back as they were then; None where the run was killed before its first
        checkpoint. What a killed run wrote after that checkpoint is cut, to be redone."""
        ckpt = load_latest(self.run_dir)
        if ckpt is None:
            saved = len(list((self.run_dir / "checkpoints").glob("gen_*.pt")))
            if saved or rundir.rows_written(self.run_dir) > 1:  # more than a kill in generation 0
                raise CheckpointError(
                    f"{self.run_dir}: no checkpoint to resume from ({saved} saved, none loads); "
                    "nothing in it was changed"
                )
            return None
        self.state.load_state_dict(ckpt.meta)
        states = [*ckpt.meta["objectives"], *ckpt.meta["oracles"]]
        for component, state in zip(self.built.components, states):
            if state is not None:  # None: a component without state in an older checkpoint
                component.load_state_dict(state)
        self.state.archive = rundir.truncate_to_generation(self.run_dir, self.state.counters.generation)
        self._open_scalars(self.state.counters.generation + 1)
        self.write_tables()  # a kill may have come between the checkpoint and its tables
        return Population(ckpt.genomes, ckpt.policy_ids, ckpt.F, ckpt.cases)

    def _open_scalars(self, purge_from: int | None) -> None:
        if self.exp.logging.tensorboard:
            self.scalars = ScalarLog(self.run_dir, purge_from)

    # ----------------------------------------------------------------- bugs as found
    def settle(self, generation: int | None = None, wall_s: float | None = None) -> None:
        """Archive the bugs of every batch checked since the last call, in the order played,
        as found in ``generation`` by ``wall_s`` (default: now)."""
        with self.phases.timed("oracles"):
            c = self.state.counters
            generation = c.generation if generation is None else generation
            wall_s = c.wall_s if wall_s is None else wall_s
            if self._early:  # archived as they happened: the components hear of them first
                for component in self.built.components:
                    component.found(self._early)
                self._early = []
            for bugs, env_steps, clock, snapshots in self.checks.settle(self.replays):
                new = self.state.archive.add(bugs, generation=generation, env_steps=env_steps, wall_s=wall_s,
                                             match=self.built.match, when=None if clock is None else clock.when,
                                             rate=functools.partial(self.rates, snapshots=snapshots))
                if new:
                    rundir.append_bugs(self.run_dir, new)
                    for component in self.built.components:
                        component.found(new)
                self._new_bugs.extend(new)

    def keep_early(self, bug: Bug, env_steps: int, wall_s: float) -> None:
        """Archive a fault the workers told while the generation plays (:mod:`evo.run.
        early_faults`): in ``bugs.jsonl`` and told at once."""
        new = self.state.archive.add([bug], generation=self.state.counters.generation, env_steps=env_steps,
                                     wall_s=wall_s, match=self.built.match)
        if new:
            rundir.append_bugs(self.run_dir, new)
            self._early.extend(new)
            (self.on_bugs or self._new_bugs.extend)(new)

    # ----------------------------------------------------------------- a generation's end
    def finish(self, pop: Population, batch: RolloutBatch | None, tuned: dict[str, float]) -> bool:
        """The generation's end: what its tail reads that the next generation changes is taken
        now; the tail runs while the next generation plays (:meth:`drain`), or at once where
        nothing overlaps it. ``batch``: the generation's scored episodes; ``tuned``: its
        fine-tuning's mean diagnostics. Returns whether the budget is spent."""
        c = self.state.counters
        if c.hv_ref is None:
            c.hv_ref = self._default_hv_ref(pop.F)
        frontier = self.state.frontier
        cells = None if frontier is None else len(frontier.archive)
        self._tail = Tail(pop, batch, c.generation, c.env_steps, c.wall_s, self.state.state_dict(), cells, tuned)
        if self.overlaps:
            self._tail.finished = self.state.done()
            return self._tail.finished
        self.drain()
        return self.state.done()

    def learn(self) -> None:
        """The objectives learn from the last generation's batch (RND's predictors), once:
        fine-tuning's reward reads them as that batch left them."""
        tail = self._tail
        if tail is None:
            return
        if tail.batch is not None and not tail.learned:
            with self.phases.timed("learning"):
                for objective in self.built.objectives:  # while the oracles check the same episodes
                    objective.update(tail.batch)
        tail.learned = True

    def drain(self) -> None:
        """The last generation's tail, in the order a run without the overlap does it: the
        objectives learn from its batch, its bugs are archived, the oracles learn, then its row,
        checkpoint and tables are written and progress is told."""
        self.learn()
        tail, self._tail = self._tail, None
        if tail is None:
            return
        self.settle(tail.generation, tail.wall_s)
        if tail.batch is not None:
            for oracle in self.built.oracles:
                oracle.update(tail.batch)
        with self.phases.timed("bookkeeping"):
            row = self._row(tail)
            rundir.append_generation(self.run_dir, row)
            if self.scalars is not None:
                self.scalars.add(row, self.phases.seconds)
            self._checkpoint(tail)
            self.write_tables()
        new_bugs, self._new_bugs = self._new_bugs, []
        if self.progress is not None:
            finished = self.state.done() if tail.finished is None else tail.finished
            self.progress(GenerationReport(tail.generation, tail.env_steps, tail.wall_s, len(self.state.archive),
                                           new_bugs, row["coverage"], row, finished))

    def stopped(self) -> None:
        """The run ends with an error or an interrupt (its workers stopped): the last whole
        generation's tail runs, so that its checkpoint is there to resume from."""
        try:
            self.drain()
        except Exception as exc:  # noqa: BLE001 - the error that stopped the run is the one raised
            log.warning("the last generation's bookkeeping failed too: %s: %s", type(exc).__name__, exc)

    def close(self) -> None:
        if self.scalars is not None:
            self.scalars.close()

    # ----------------------------------------------------------------- what is written
    def _row(self, tail: Tail) -> dict[str, Any]:
        pop, archive = tail.pop, self.state.archive
        row: dict[str, Any] = {"generation": tail.generation, "env_steps": tail.env_steps,
                               "wall_s": round(tail.wall_s, 3)}
        row.update(rundir.memory_row())
        for k, name in enumerate(self.names):
            row[f"{name}_mean"] = float(pop.F[:, k].mean())
            row[f"{name}_max"] = float(pop.F[:, k].max())
        row["coverage"] = len(tail.meta["coverage"]["visited"])
        if self.state.frontier is not None:
            row["cells"] = tail.cells
        row["bugs_total"] = len(archive)
        counts = archive.by_kind()
        for kind in BUG_KINDS:
            row[f"bugs_{kind}"] = counts.get(kind, 0)
        row["hypervolume"] = hypervolume(pop.F, self.senses, np.asarray(self.state.counters.hv_ref))
        if self.built.truth is not None:
            row["injected_found"] = archive.injected_found()
        for name in DIAGNOSTICS:  # CleanRL's diagnostics of its fine-tuning; NaN in a generation without
            row[f"rl_{name}"] = tail.tuned.get(name, float("nan"))
        for component in self.built.components:  # e.g. the objects oracle's preferred-area coverage
            row.update(component.metrics())
        return row

    def _default_hv_ref(self, F: np.ndarray) -> list[float]:
        if self.exp.search.hv_ref is not None:
            return list(self.exp.search.hv_ref)
        maximised = np.array(self.senses) == "max"
        worst = np.where(maximised, F.min(axis=0), F.max(axis=0))
        span = np.maximum(F.max(axis=0) - F.min(axis=0), 1.0)
        return [float(x) for x in worst + np.where(maximised, -0.1 * span, 0.1 * span)]

    def _checkpoint(self, tail: Tail) -> None:
        pop = tail.pop
        meta = {**tail.meta, "objectives": [o.state_dict() for o in self.built.objectives],
                "oracles": [o.state_dict() for o in self.built.oracles]}
        save_checkpoint(self.run_dir, Checkpoint(pop.genomes, pop.ids, pop.F, meta, pop.cases))
        prune_checkpoints(self.run_dir, self.exp.checkpoint)

    def write_tables(self) -> None:
        """Every table the objectives and oracles hand over, as ``<name>.csv``."""
        rundir.write_tables(self.run_dir, [c.tables() for c in self.built.components])
