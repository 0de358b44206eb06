"""The progress display: plain lines for logs, a live bar only on a terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from evo.run.config import load_experiment
from evo.run.progress import ProgressPrinter
from evo.run.counters import GenerationReport

ROOT = Path(__file__).resolve().parents[3]
BAR = "━"  # what rich draws a bar with


def _report(generation: int, finished: bool = False) -> GenerationReport:
    return GenerationReport(generation=generation, env_steps=1000 * (generation + 1),
                            wall_s=2.0 * (generation + 1), bugs=generation, new_bugs=[],
                            coverage=10, row={"winning_max": 1.0, "coverage_max": 5.0},
                            finished=finished)


def _play(console: Console, quiet: bool = False) -> str:
    exp = load_experiment(ROOT / "experiments" / "wuji_block_maze.yaml",
                          ["budget.generations=4", "budget.wall_seconds=1000"])
    with ProgressPrinter(console, exp, quiet=quiet) as printer:
        for g in range(4):
            printer(_report(g, finished=g == 3))
        assert printer.bar is None  # the last generation took the bar off
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_a_terminal_gets_a_live_bar_and_the_lines() -> None:
    out = _play(Console(file=io.StringIO(), force_terminal=True, width=100))
    assert BAR in out
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)
    assert plain.count("gen   3  steps") == 1 and "bugs   3" in plain


def test_a_log_gets_the_lines_only_and_quiet_gets_nothing() -> None:
    out = _play(Console(file=io.StringIO(), force_terminal=False, width=100))
    assert BAR not in out and "\x1b" not in out
    assert [line[:7] for line in out.splitlines()] == ["gen   0", "gen   1", "gen   2", "gen   3"]
    assert _play(Console(file=io.StringIO(), force_terminal=True), quiet=True) == ""


def test_the_bar_shows_the_share_of_the_tightest_limit() -> None:
    exp = load_experiment(ROOT / "experiments" / "wuji_block_maze.yaml",
                          ["budget.generations=10", "budget.wall_seconds=8"])
    printer = ProgressPrinter(Console(file=io.StringIO()), exp)
    assert printer.spent(_report(0)) == 0.25  # 2 s of 8 beats 1 generation of 10
    assert printer.spent(_report(9)) == 1.0
