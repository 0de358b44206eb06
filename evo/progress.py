"""Progress lines for long runs: generation, env steps, bugs found, time left."""

from __future__ import annotations

from rich.console import Console

from evo.config import Experiment
from evo.search import GenerationReport


class ProgressPrinter:
    """Prints one line per generation, and one per new bug, to a rich console.

    Lines rather than a live bar so that the same output reads well in a terminal, in a CI
    log and in a notebook.
    """

    def __init__(self, console: Console, exp: Experiment, quiet: bool = False) -> None:
        self.console = console
        self.exp = exp
        self.quiet = quiet

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

    def __call__(self, report: GenerationReport) -> None:
        if self.quiet:
            return
        for bug in report.new_bugs:
            b = bug.bug
            tag = "" if bug.injected_id is None else f" (injected #{bug.injected_id})"
            self.console.print(f"  [red]+ {b.kind}[/red] {b.message}{tag}")
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
