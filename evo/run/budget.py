"""When a run ends: its budget, pymoo's termination.

A run ends at the first of its limits (``budget`` in the YAML): a number of generations, of
game steps, of wall seconds, or every injected bug found. The wall limit is also a deadline
that play honours in every worker, so a generation that passes it is cut short and is the
run's last (:attr:`Budget.deadline`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from evo.run.config import BudgetConfig
from evo.run.counters import Counters


@dataclass(frozen=True)
class Budget:
    """An experiment's limits, asked by the loop after each generation and by play at each step.

    Args:
        config: The YAML's ``budget``.
        injected: How many bugs the game's ground truth plants (0: none, or no ground truth).
    """

    config: BudgetConfig
    injected: int = 0

    def deadline(self, counters: Counters) -> float | None:
        """The wall clock time (``time.time()``) at which the wall limit is spent: play stops
        there, in every worker, rather than at the end of the generation that passed it; None
        without a wall limit."""
        wall = self.config.wall_seconds
        return None if wall is None else time.time() + (wall - counters.wall_s)

    def spent(self, counters: Counters, injected_found: int, cut: bool = False) -> bool:
        """Whether the run ends after the generation ``counters`` count: a limit reached, every
        injected bug found (``until_all_found``), or play cut short by the deadline (``cut``)."""
        b = self.config
        return (
            cut
            or (b.generations is not None and counters.generation + 1 >= b.generations)
            or (b.env_steps is not None and counters.env_steps >= b.env_steps)
            or (b.wall_seconds is not None and counters.wall_s >= b.wall_seconds)
            or (b.until_all_found and self.injected > 0 and injected_found >= self.injected)
        )
