"""Progress of long runs: one line per generation and per new bug, and on a terminal a live bar.

The lines are the log: the same in a terminal, a CI log and a notebook. On a terminal
(``Console.is_terminal``) a rich progress bar stays under them while the run goes, showing
the share of the budget spent, the generation, the bugs found and the time left; it is
transient, so what stays on screen afterwards is the lines alone. ``--quiet`` prints
nothing, and output that is not a terminal never gets the bar.
"""

from __future__ import annotations

from types import TracebackType
from typing import Sequence

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn

from evo.run.config import Experiment
from evo.run.counters import GenerationReport
from oracles.archive import ArchivedBug

_STEPS = 1000
"""Resolution of the bar: the budget's share spent, in thousandths."""


class ProgressPrinter:
    """Prints one line per generation, and one per new bug, to a rich console; on a
    terminal also a live bar. Use it as a context manager so the bar ends with the run,
    however the run ends.

    Args:
        console: Where to print.
        exp: The experiment (its budget says how far the run is).
        quiet: Print nothing.
    """

    def __init__(self, console: Console, exp: Experiment, quiet: bool = False) -> None:
        self.console = console
        self.exp = exp
        self.quiet = quiet
        self.bar: Progress | None = None
        self._task: TaskID | None = None
        if not quiet and console.is_terminal:
            self.bar = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(),
                TextColumn("{task.percentage:>3.0f}%  {task.fields[detail]}"),
                console=console, transient=True,
            )
            self._task = self.bar.add_task("starting", total=_STEPS, detail="")

    def __enter__(self) -> "ProgressPrinter":
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Take the bar off the screen (safe to call twice)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def time_left(self, report: GenerationReport) -> float | None:
        """Seconds left: the tightest of the budget's limits, at the pace so far."""
        b = self.exp.budget
        elapsed = max(report.wall_s, 1e-9)
        left = []
        if b.wall_seconds is not None:
            left.append(b.wall_seconds - report.wall_s)
        if b.generations is not None:
            left.append(elapsed / (report.generation + 1) * (b.generations - report.generation - 1))
        if b.env_steps is not None and report.env_steps:
            left.append(elapsed / report.env_steps * (b.env_steps - report.env_steps))
        return max(min(left), 0.0) if left else None

    def spent(self, report: GenerationReport) -> float:
        """Share of the budget spent, 0 to 1: that of the limit closest to being reached."""
        b = self.exp.budget
        shares = [0.0]
        if b.wall_seconds:
            shares.append(report.wall_s / b.wall_seconds)
        if b.generations:
            shares.append((report.generation + 1) / b.generations)
        if b.env_steps:
            shares.append(report.env_steps / b.env_steps)
        return min(max(shares), 1.0)

    def found(self, bugs: Sequence[ArchivedBug]) -> None:
        """One line per new bug: at once for one found while its generation plays (a fault of
        the game's process), else with its generation's line."""
        if self.quiet:
            return
        for bug in bugs:
            b = bug.bug
            tags = [] if bug.injected_id is None else [f"injected #{bug.injected_id}"]
            rate = bug.reproduced
            if rate is not None:
                tags.append(f"reproduced {rate.showed} of {rate.played}")
                if rate.at is not None:
                    tags.append(f"{rate.showed_there} of {rate.played_there} from its snapshot at step {rate.at}")
            tag = f" ({'; '.join(tags)})" if tags else ""
            self.console.print(f"  [red]+ {b.kind}[/red] {b.message}{tag}")

    def __call__(self, report: GenerationReport) -> None:
        if self.quiet:
            return
        self.found(report.new_bugs)
        row = report.row
        objectives = "  ".join(
            f"{o.name} {row[f'{o.name}_max']:.3g}" for o in self.exp.objectives if f"{o.name}_max" in row
        )
        left = self.time_left(report)
        eta = "" if report.finished or left is None else f"  ~{left:.0f} s left"
        found = f" (injected found {row['injected_found']})" if "injected_found" in row else ""
        self.console.print(
            f"gen {report.generation:>3}  steps {report.env_steps:>10,}  {report.wall_s:7.1f} s  "
            f"bugs {report.bugs:>3}{found}  coverage {report.coverage:>5}  {objectives}{eta}"
        )
        if self.bar is not None and self._task is not None:
            self.bar.update(self._task, completed=round(self.spent(report) * _STEPS),
                            description=f"gen {report.generation}",
                            detail=f"bugs {report.bugs}{eta}")
        if report.finished:
            self.close()
