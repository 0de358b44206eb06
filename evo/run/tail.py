"""A generation's tail: what it still does once its population is chosen.

The objectives learn from the generation's scored batch (RND's predictors), the oracles'
checks of its episodes are settled into the bug archive, the oracles learn, its row of
``generations.csv``, its checkpoint and its tables are written, and progress is told. None of
the next generation's choosing or playing waits on any of it, so :class:`GenerationTail` runs
it while the next generation plays (:meth:`evo.run.parallel.Executor.start`): on 16 cores
the visual oracle and RND's training held every worker idle for about a second a generation
(``docs/measured.md``). Fine-tuning is the one reader: its reward reads the objectives, so the
objectives learn (:meth:`GenerationTail._learn`) before the next generation's fine-tuning
starts, and the rest of the tail runs beside it.

Everything is done in the order a run without the overlap does it, on the same data:

- what the next generation moves on before its play (the counters, the random streams, the
  frontier's choices, coverage) is taken at the generation's end (:meth:`GenerationTail._state_now`);
- objectives and oracles are touched by nothing else until the tail has run: the next batch
  is observed, checked and scored only after it (:mod:`evo.run.loop`).

So the same YAML and seed give the same results; only the clock columns differ. A run whose
budget waits on its bugs (``until_all_found`` on a game that knows its injected bugs) runs
each tail at once, and so does a run with nothing to overlap it with (the serial backend's
single lane plays in this thread).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evo.run import rundir
from evo.run.checkpoint import Checkpoint, prune_checkpoints, save_checkpoint
from evo.run.counters import GenerationReport
from evo.search.finetune import DIAGNOSTICS
from evo.search.operators import Population, hypervolume
from games.core.base import BUG_KINDS
from games.core.record import RolloutBatch
from oracles import Bug


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


class GenerationTail:
    """The tail of each generation, for :class:`evo.run.loop.Search` (which holds the state
    it reads: the built experiment, the archive, counters, checks and run directory)."""

    def _settle(self, generation: int | None = None, wall_s: float | None = None) -> None:
        """Archive the bugs of every batch checked since the last call, in the order played,
        as found in ``generation`` by ``wall_s`` (default: now)."""
        with self._timed("oracles"):
            c = self.counters
            generation = c.generation if generation is None else generation
            wall_s = c.wall_s if wall_s is None else wall_s
            if self._early:  # archived as they happened: the components hear of them first
                for component in self.built.components:
                    component.found(self._early)
                self._early = []
            for bugs, env_steps, clock in self.checks.settle(self.replays):
                new = self.archive.add(bugs, generation=generation, env_steps=env_steps, wall_s=wall_s,
                                       match=self.built.match, when=None if clock is None else clock.when)
                if new:
                    rundir.append_bugs(self.run_dir, new)
                    for component in self.built.components:
                        component.found(new)
                self._new_bugs.extend(new)

    def _keep_early(self, bug: Bug, env_steps: int, wall_s: float) -> None:
        """Archive a fault the workers told while the generation plays (:mod:`evo.run.
        early_faults`): in ``bugs.jsonl`` and told at once."""
        new = self.archive.add([bug], generation=self.counters.generation, env_steps=env_steps, wall_s=wall_s,
                               match=self.built.match)
        if new:
            rundir.append_bugs(self.run_dir, new)
            self._early.extend(new)
            (self.on_bugs or self._new_bugs.extend)(new)

    def _row(self, tail: Tail) -> dict[str, Any]:
        pop, c = tail.pop, self.counters
        row: dict[str, Any] = {"generation": tail.generation, "env_steps": tail.env_steps,
                               "wall_s": round(tail.wall_s, 3)}
        row.update(rundir.memory_row())
        for k, name in enumerate(self.names):
            row[f"{name}_mean"] = float(pop.F[:, k].mean())
            row[f"{name}_max"] = float(pop.F[:, k].max())
        row["coverage"] = len(tail.meta["coverage"]["visited"])
        if self.frontier is not None:
            row["cells"] = tail.cells
        row["bugs_total"] = len(self.archive)
        counts = self.archive.by_kind()
        for kind in BUG_KINDS:
            row[f"bugs_{kind}"] = counts.get(kind, 0)
        row["hypervolume"] = hypervolume(pop.F, self.senses, np.asarray(c.hv_ref))
        if self.built.truth is not None:
            row["injected_found"] = self.archive.injected_found()
        for name in DIAGNOSTICS:  # CleanRL's diagnostics of its fine-tuning; NaN in a generation without
            row[f"rl_{name}"] = tail.tuned.get(name, float("nan"))
        for component in self.built.components:  # e.g. the objects oracle's preferred-area coverage
            row.update(component.metrics())
        return row

    def _default_hv_ref(self, F: np.ndarray) -> list[float]:
        if self.exp.search.hv_ref is not None:
            return list(self.exp.search.hv_ref)
        worst = np.where(np.array(self.senses) == "max", F.min(axis=0), F.max(axis=0))
        span = np.maximum(F.max(axis=0) - F.min(axis=0), 1.0)
        shift = np.where(np.array(self.senses) == "max", -0.1 * span, 0.1 * span)
        return [float(x) for x in worst + shift]

    def _state_now(self) -> dict[str, Any]:
        """The checkpoint's part that the next generation moves on from (counters, random
        states, coverage, the frontier), as it is at this generation's end."""
        c = self.counters
        meta = {
            "generation": c.generation,
            "env_steps": c.env_steps,
            "wall_s": c.wall_s,
            "next_id": c.next_id,
            "hv_ref": c.hv_ref,
            "calibrated": c.calibrated,
            "rng": {
                name: getattr(self, name).bit_generator.state
                for name in ("rng_vary", "rng_play", "rng_tune", "rng_init")
            },
            "coverage": self.tracker.state_dict(),
        }
        if self.frontier is not None:
            meta["frontier"] = self.frontier.state_dict()
        return meta

    def _checkpoint(self, tail: Tail) -> None:
        pop = tail.pop
        meta = {**tail.meta, "objectives": [o.state_dict() for o in self.built.objectives],
                "oracles": [o.state_dict() for o in self.built.oracles]}
        save_checkpoint(self.run_dir, Checkpoint(pop.genomes, pop.ids, pop.F, meta, pop.cases))
        prune_checkpoints(self.run_dir, self.exp.checkpoint)

    def _write_tables(self) -> None:
        """Every table the objectives and oracles hand over, as ``<name>.csv``."""
        rundir.write_tables(self.run_dir, [c.tables() for c in self.built.components])

    def _finish_generation(self, pop: Population) -> bool:
        """The generation's end: what its tail reads that the next generation changes is taken
        now; the tail runs while the next generation plays (:meth:`_drain`), or at once where
        nothing overlaps it or the budget waits on its bugs (``until_all_found``). Returns
        whether the budget is spent."""
        c = self.counters
        if c.hv_ref is None:
            c.hv_ref = self._default_hv_ref(pop.F)
        tuned = self._rl[1] if self._rl is not None and self._rl[0] == c.generation else {}
        cells = None if self.frontier is None else len(self.frontier.archive)
        batch, self._batch = self._batch, None
        self._tail = Tail(pop, batch, c.generation, c.env_steps, c.wall_s, self._state_now(), cells, tuned)
        if self._overlaps and not (self.exp.budget.until_all_found and self.built.injected):
            self._tail.finished = self._done()
            return self._tail.finished
        self._drain()
        return self._done()

    def _learn(self, tail: Tail) -> None:
        """The objectives learn from the tail's batch (RND's predictors), once."""
        if tail.batch is not None and not tail.learned:
            with self._timed("learning"):
                for objective in self.built.objectives:  # while the oracles check the same episodes
                    objective.update(tail.batch)
        tail.learned = True

    def _drain(self) -> None:
        """The last generation's tail, in the order a run without the overlap does it: the
        objectives learn from its batch, its bugs are archived, the oracles learn, then its row,
        checkpoint and tables are written and progress is told."""
        tail, self._tail = self._tail, None
        if tail is None:
            return
        self._learn(tail)
        self._settle(tail.generation, tail.wall_s)
        if tail.batch is not None:
            for oracle in self.built.oracles:
                oracle.update(tail.batch)
        with self._timed("bookkeeping"):
            row = self._row(tail)
            rundir.append_generation(self.run_dir, row)
            if self.scalars is not None:
                self.scalars.add(row, self.seconds)
            self._checkpoint(tail)
            self._write_tables()
        new_bugs, self._new_bugs = self._new_bugs, []
        if self.progress is not None:
            finished = self._done() if tail.finished is None else tail.finished
            self.progress(GenerationReport(tail.generation, tail.env_steps, tail.wall_s, len(self.archive),
                                           new_bugs, row["coverage"], row, finished))
