"""What the loop counts as a run goes on, and what it tells the progress display after
each generation (:mod:`evo.run.recorder`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from oracles.archive import ArchivedBug


@dataclass
class GenerationReport:
    """What the loop tells the progress display after each generation."""

    generation: int
    env_steps: int
    wall_s: float
    bugs: int
    new_bugs: list[ArchivedBug]
    coverage: int
    row: dict[str, Any]
    finished: bool


ProgressFn = Callable[[GenerationReport], None]
BugsFn = Callable[[list[ArchivedBug]], None]
"""Told of bugs archived while a generation still plays (:mod:`evo.run.early_faults`)."""


@dataclass
class Counters:
    generation: int = 0
    env_steps: int = 0
    wall_offset: float = 0.0
    next_id: int = 0
    hv_ref: list[float] | None = None
    calibrated: bool = False
    started: float = field(default_factory=time.perf_counter)

    @property
    def wall_s(self) -> float:
        return self.wall_offset + (time.perf_counter() - self.started)
