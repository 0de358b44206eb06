"""Wall seconds a run spends per phase, which its TensorBoard scalars and benchmarks read.

The phases: evaluation, fine-tuning, scoring, learning, oracles, selection, bookkeeping.
Evaluation and fine-tuning run from the workers' start to their results, so they hold the last
generation's tail (learning, oracles, bookkeeping) where it ran meanwhile
(:mod:`evo.run.recorder`): what is not evaluation or fine-tuning is time the workers stood idle.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from typing import Iterator


class Phases:
    """Seconds per phase, added up over the run.

    Args:
        evaluation: Seconds already played before the run's parts start (the game's probe).
    """

    def __init__(self, evaluation: float = 0.0) -> None:
        self.seconds: dict[str, float] = defaultdict(float, evaluation=evaluation)

    @contextlib.contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """Add the seconds the ``with`` block takes to ``phase``, however it ends."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - start
