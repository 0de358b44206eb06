"""Where a run is: its counters, random streams, coverage, frontier, bug archive and budget.

Every part of a run reads and moves one :class:`RunState`: the evaluator counts the steps it
plays and the cells they reach (:mod:`evo.run.evaluator`), the recorder archives bugs and keeps
the checkpoint (:mod:`evo.run.recorder`), and the run kind asks whether the budget is spent
(:mod:`evo.run.kinds`). What the next generation moves on from is :meth:`RunState.state_dict`,
the checkpoint's part taken at a generation's end.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.run.budget import Budget
from evo.run.built import Built
from evo.run.config import Experiment
from evo.run.counters import Counters
from evo.search.explore.frontier import Frontier
from evo.search.explore.snapshot_check import snapshot_every
from games.common.seeds import Stream, stream_rng
from objectives.coverage import CoverageTracker
from oracles.archive import BugArchive

STREAMS = {"rng_vary": Stream.VARIATION, "rng_play": Stream.PLAY, "rng_tune": Stream.FINETUNE, "rng_init": Stream.INIT}
"""One random stream per use (games/common/seeds.py), by the name the checkpoint keeps it under."""


@dataclass
class RunState:
    """What a run has done so far, and the random streams it goes on with."""

    counters: Counters
    rng_vary: np.random.Generator
    rng_play: np.random.Generator
    rng_tune: np.random.Generator
    rng_init: np.random.Generator
    tracker: CoverageTracker
    """The cells every episode visited (the coverage column)."""
    frontier: Frontier | None
    """The cells reached and the returns to them (``search.strategy``, ``frontier_share``)."""
    archive: BugArchive
    budget: Budget
    """When the run ends (:mod:`evo.run.budget`)."""
    cut: bool = False
    """Play was cut short by the wall budget's deadline: the run ends with this generation."""

    @classmethod
    def start(cls, exp: Experiment, built: Built, begun: float) -> "RunState":
        """A new run's state; ``begun``: when the command started (``time.perf_counter()``), so
        that a wall budget is the whole run's, its making included (imports, the probe's play)."""
        share, factory = exp.search.return_share, built.factory
        every = None if exp.search.snapshots else 0  # None: checked at the first return
        check = functools.partial(snapshot_every, factory, exp.seed, f"game {factory.label}")
        frontier = Frontier(built.spec, share, stream_rng(exp.seed, Stream.EXPLORE), every, check) if share else None
        streams = {name: stream_rng(exp.seed, stream) for name, stream in STREAMS.items()}
        return cls(Counters(wall_offset=time.perf_counter() - begun), **streams, tracker=CoverageTracker(built.spec),
                   frontier=frontier, archive=BugArchive(), budget=Budget(exp.budget, len(built.injected)))

    def done(self) -> bool:
        """Whether the budget is spent after the generation the counters count."""
        return self.budget.spent(self.counters, self.archive.injected_found(), self.cut)

    def deadline(self) -> float | None:
        """When play stops in every worker (``time.time()``); None without a wall budget."""
        return self.budget.deadline(self.counters)

    def new_ids(self, n: int) -> np.ndarray:
        """``n`` policy ids never given before in this run."""
        c = self.counters
        ids = np.arange(c.next_id, c.next_id + n, dtype=np.int64)
        c.next_id += n
        return ids

    def state_dict(self) -> dict[str, Any]:
        """The checkpoint's part the next generation moves on from (counters, random states,
        coverage, the frontier), as it is now."""
        c = self.counters
        meta = {
            "generation": c.generation, "env_steps": c.env_steps, "wall_s": c.wall_s, "next_id": c.next_id,
            "hv_ref": c.hv_ref, "calibrated": c.calibrated,
            "rng": {name: getattr(self, name).bit_generator.state for name in STREAMS},
            "coverage": self.tracker.state_dict(),
        }
        if self.frontier is not None:
            meta["frontier"] = self.frontier.state_dict()
        return meta

    def load_state_dict(self, meta: dict[str, Any]) -> None:
        """Put back what :meth:`state_dict` took (a checkpoint's ``meta``); the clock goes on from it."""
        c = self.counters
        c.generation, c.env_steps, c.wall_offset = meta["generation"], meta["env_steps"], meta["wall_s"]
        c.next_id, c.hv_ref, c.calibrated = meta["next_id"], meta["hv_ref"], meta["calibrated"]
        c.started = time.perf_counter()
        for name, state in meta["rng"].items():
            getattr(self, name).bit_generator.state = state
        self.tracker.load_state_dict(meta["coverage"])
        if self.frontier is not None:
            self.frontier.load_state_dict(meta["frontier"])
