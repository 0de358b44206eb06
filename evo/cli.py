"""The ``evo`` command line.

    evo run EXP.yaml [key=value ...] [--out DIR] [--resume RUN_DIR]
    evo replay RUN_DIR BUG_ID

Bad input (a missing file, an unknown key, a wrong type, an unknown name) is one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from rich.console import Console
from rich.table import Table

from evo.config import ConfigError

EXIT_BAD_INPUT = 2


class UserError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evo", description="Evolutionary multi-objective search for bugs in games."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run an experiment YAML")
    run.add_argument("experiment", nargs="?", help="experiment YAML file")
    run.add_argument("overrides", nargs="*", help="key=value overrides, e.g. search.population=10")
    run.add_argument("--out", type=Path, help="run directory (default runs/<name>/<stamp>-seed<k>)")
    run.add_argument("--resume", type=Path, metavar="RUN_DIR", help="continue a killed run")
    run.add_argument("--quiet", action="store_true", help="no per-generation progress lines")
    replay = sub.add_parser("replay", help="replay a bug of a run and say whether it reproduced")
    replay.add_argument("run_dir", type=Path)
    replay.add_argument("bug_id", type=int)
    replay.add_argument("--repeats", type=int, default=3, help="replays judged together (default 3)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    console = Console(highlight=False, soft_wrap=True)
    try:
        if args.command == "run":
            return _run(args, console)
        return _replay(args, console)
    except (UserError, ConfigError) as exc:
        print(f"evo: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("evo: interrupted; resume with evo run --resume RUN_DIR", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace, console: Console) -> int:
    from evo.config import load_experiment
    from evo.rundir import CONFIG, new_run_dir

    if args.resume is not None:
        if args.experiment or args.overrides or args.out:
            raise UserError("--resume continues a run with its own config.yaml: give no EXP, overrides or --out")
        run_dir = args.resume
        if not (run_dir / CONFIG).is_file():
            raise UserError(f"{run_dir}: not a run directory (no {CONFIG})")
        exp = load_experiment(run_dir / CONFIG)
    else:
        if args.experiment is None:
            raise UserError("run: give an experiment YAML, e.g. evo run experiments/wuji_block_maze.yaml")
        exp = load_experiment(args.experiment, args.overrides)
        run_dir = args.out or new_run_dir(exp.runs_dir, exp.name, exp.seed)
        if run_dir.exists() and any(run_dir.iterdir()):
            raise UserError(f"{run_dir}: already exists and is not empty; choose another --out or --resume it")

    from evo.progress import ProgressPrinter
    from evo.report import load_run, summary
    from evo.search import Search

    printer = ProgressPrinter(console, exp, quiet=args.quiet)
    search = Search(exp, run_dir, progress=printer)
    console.print(f"[bold]evo run[/bold] {exp.name} seed {exp.seed} -> {run_dir}")
    try:
        search.run(resume=args.resume is not None)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    injected = len(search.built.injected) if search.built.truth is not None else None
    table = summary(load_run(run_dir), injected)
    out = Table(title=f"{exp.name} (seed {exp.seed})")
    out.add_column("metric")
    out.add_column("value", justify="right")
    for metric, value in table.itertuples(index=False):
        out.add_row(str(metric), f"{value:,}" if isinstance(value, int) else str(value))
    console.print(out)
    console.print(f"run directory: {run_dir}")
    return 0


def _replay(args: argparse.Namespace, console: Console) -> int:
    from evo.replay import replay
    from evo.rundir import CONFIG

    if not (args.run_dir / CONFIG).is_file():
        raise UserError(f"{args.run_dir}: not a run directory (no {CONFIG})")
    if args.repeats < 1:
        raise UserError("--repeats must be at least 1")
    try:
        result = replay(args.run_dir, args.bug_id, repeats=args.repeats)
    except KeyError as exc:
        raise UserError(exc.args[0]) from None
    console.print(result.message)
    return 0 if result.reproduced else 1


if __name__ == "__main__":
    sys.exit(main())
