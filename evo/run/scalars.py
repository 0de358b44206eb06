"""Live scalars: every generation's row as TensorBoard scalars, so runs can be watched as they go.

``logging: {tensorboard: true}`` writes the row that goes into ``generations.csv``
(objectives, coverage, bugs per kind, hypervolume, ground truth, RL diagnostics) and the wall
seconds spent so far per phase of the loop into ``RUN_DIR/tensorboard/``, one event per
generation (the step is the generation), through ``torch.utils.tensorboard``. ``tensorboard
--logdir runs/`` then shows every run side by side while it goes. It needs the
``tensorboard`` package (the ``tensorboard`` extra); a run asked for it without it stops at
start with one line. Nothing here draws a random number: results are the same with and
without it.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field

from evo.run.extras import require

FOLDER = "tensorboard"
INSTALL = "pip install -e '.[tensorboard]'"


class LoggingConfig(BaseModel):
    """What a run logs beyond its run directory's files."""

    model_config = ConfigDict(extra="forbid")

    tensorboard: bool = Field(
        False, description="Write each generation's row as TensorBoard scalars into RUN_DIR/tensorboard/."
    )


def check_installed() -> None:
    """Raise :class:`evo.run.extras.MissingExtra` now, before a run starts, without TensorBoard."""
    require("logging.tensorboard", "tensorboard", install=INSTALL)


def tag(column: str) -> str:
    """Where a ``generations.csv`` column goes in TensorBoard: grouped by what it measures."""
    if column.startswith("rl_"):
        return f"rl/{column[3:]}"
    if column.startswith("bugs_") or column == "injected_found":
        return f"bugs/{column}"
    if column.endswith(("_mean", "_max")):
        return f"objectives/{column}"
    return f"search/{column}"


class ScalarLog:
    """A TensorBoard event writer for one run directory.

    Args:
        run_dir: The run directory; events go into its ``tensorboard/`` folder.
        purge_from: For a resumed run, the first generation it will write: events of that
            generation and later, written before the run was killed, are dropped (the
            checkpoint they followed is gone), as ``generations.csv`` is cut back.
    """

    def __init__(self, run_dir: Path, purge_from: int | None = None) -> None:
        check_installed()
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(Path(run_dir) / FOLDER), purge_step=purge_from)

    def add(self, row: Mapping[str, Any], seconds: Mapping[str, float]) -> None:
        """One generation: every number of its row, and the seconds per phase so far."""
        step = int(row["generation"])
        for column, value in row.items():
            if column != "generation" and isinstance(value, numbers.Real) and not math.isnan(value):
                self.writer.add_scalar(tag(column), float(value), step)
        for phase, value in seconds.items():
            self.writer.add_scalar(f"seconds/{phase}", float(value), step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()
