"""The ``evo`` command line.

Commands: run, check, replay, compare, report, evaluate, plan, shrink, regress, migrate (options: --help).

Bad input (a missing file, an unknown key, a wrong type, an unknown name) is one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

from rich.console import Console

from evo.run.user_paths import ConfigError
from evo.run.extras import MissingExtra
from evo.run.reaper import Reaper
from evo.cli.console_tables import (
    evaluation_pairs, evaluation_table, metric_table, pairwise_table, print_whole, summary_table,
)
from evo.cli.check import add_check_parser, check_command
from evo.cli.demos import add_demos_parsers, demos_command
from evo.cli.plans import add_plan_parser, plan_command
from evo.cli.traces import add_trace_parsers, trace_command
from evo.cli.study import add_study_parser, study_command
from evo.cli.vision import add_vision_parser, vision_command
from games.core.base import GameSpecError
from games.core.start_error import GameStartError

EXIT_BAD_INPUT = 2
STOPPED_LIKE_CTRL_C = frozenset({"run", "compare", "evaluate", "study"})
"""The commands that start worker processes: SIGTERM stops them as Ctrl-C does (workers closed, a
run resumable); left to the default, loky workers played on orphaned for half an hour."""


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
    replay.add_argument("--repeats", type=int, default=3,
                        help="replays played (default 3); says in how many the bug showed")
    replay.add_argument("--video", type=Path, metavar="FILE",
                        help="write the replay as a video (.mp4 or .gif) instead of checking it")
    compare = sub.add_parser(
        "compare", help="run experiments over seeds (or read run directories) and compare them"
    )
    compare.add_argument("inputs", nargs="+", metavar="EXP.yaml|DIR",
                         help="experiment YAMLs to run, or run directories (or folders of them) to read")
    compare.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 per experiment (default 5)")
    compare.add_argument("--jobs", type=int, default=2, help="runs at the same time (default 2)")
    compare.add_argument("--out", type=Path, help="output folder (default compare/<stamp>)")
    compare.add_argument("--html", action="store_true", help="also write compare.html in the output folder")
    report = sub.add_parser("report", help="print a run's summary and write its plots")
    report.add_argument("run_dir", type=Path)
    report.add_argument("--html", action="store_true", help="also write report.html in the run directory")
    report.add_argument("--videos", action="store_true", help="make a video of every bug that has none (videos/)")
    ev = sub.add_parser(
        "evaluate", help="play many episodes with each run's final agent; RELINE's table of bugs spotted"
    )
    ev.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR", help="one run directory per agent")
    ev.add_argument("--episodes", type=int, default=1000, help="episodes per agent (default 1000, as RELINE)")
    ev.add_argument("--select", choices=("best", "front"), default="best",
                    help="best: the final policy best on --objective (default); front: the final Pareto front")
    ev.add_argument("--objective", help="objective 'best' ranks by (default fps_drop if the run has it)")
    ev.add_argument("--warmup", type=int, default=100,
                    help="episodes that calibrate the slow-frame threshold (default 100), played by "
                    "--baseline's agent or at random")
    ev.add_argument("--choose-episodes", type=int, default=10,
                    help="with best: fresh episodes each final policy plays to choose the best (default 10; "
                    "0: the checkpoint's scores)")
    ev.add_argument("--threshold-ms", type=float, help="use this slow-frame threshold instead of calibrating")
    ev.add_argument("--baseline", type=Path, metavar="RUN_DIR",
                    help="calibrate the threshold on this run's agent (RELINE: the RL baseline) instead of "
                    "random play; needed where random play renders unlike trained agents (ViZDoom)")
    ev.add_argument("--temperature", type=float, default=1.0,
                    help="policies play from softmax(logits / T): 1 as trained (default), 0 greedy")
    ev.add_argument("--seed", type=int, default=0, help="seed of the evaluation episodes (default 0)")
    ev.add_argument("--jobs", type=int, help="worker processes (default: the first run's parallel.n_jobs)")
    ev.add_argument("--out", type=Path, help="output folder (default RUN_DIR/evaluation for one run, "
                    "evaluation/<stamp> for several)")
    migrate = sub.add_parser("migrate", help="rename what an experiment YAML or a run directory written "
                             "before 0.2 names by its old name (modules, keys, the scene in game.json)")
    migrate.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="experiment YAML or run directory")
    add_check_parser(sub)
    add_plan_parser(sub)
    add_trace_parsers(sub)
    add_vision_parser(sub)
    add_demos_parsers(sub)
    add_study_parser(sub)
    return parser


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _sigterm_interrupts(command: str) -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while a command of :data:`STOPPED_LIKE_CTRL_C` runs; the
    handler it replaced is put back after. Other commands, and ``main`` called off the main
    thread (where Python sets no handler), leave the process's signals alone."""
    if command not in STOPPED_LIKE_CTRL_C or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def worker_cause(exc: BaseException) -> BaseException:
    """The error a worker raised, where the backend wrapped it: Ray raises a class that is both
    its ``RayTaskError`` and the worker's error, whose text is the worker's whole traceback; the
    worker's own error, kept as ``cause``, is its one line."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def handlers() -> dict[str, Callable[[argparse.Namespace, Console], int]]:
    """The function each command of the parser runs, by its name: every command has one."""
    return {"run": _run, "compare": _compare, "report": _report, "evaluate": _evaluate,
            "plan": plan_command, "shrink": trace_command, "regress": trace_command,
            "vision": vision_command, "demos": demos_command, "record": demos_command,
            "study": study_command, "check": check_command, "replay": _replay, "migrate": _migrate}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.started = time.perf_counter()  # evo run's wall budget counts from here, imports included
    console = Console(highlight=False, soft_wrap=True)
    commands = handlers()
    try:
        # What the games start ends with the command, even a SIGKILLed one (evo/run/reaper.py).
        with _sigterm_interrupts(args.command), Reaper.for_games():
            return commands[args.command](args, console)
    # GameStartError: an isolated copy that could not start, at any point of a run (its probe,
    # a worker's first game), is the game's one line too.
    except (UserError, ConfigError, GameSpecError, GameStartError, MissingExtra) as exc:
        print(f"evo: error: {worker_cause(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("evo: interrupted; resume with evo run --resume RUN_DIR", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace, console: Console) -> int:
    from evo.run.config import load_experiment
    from evo.run.rundir import CONFIG, new_run_dir
    from evo.run.user_paths import check_new_run_dir

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
        check_new_run_dir(run_dir, "--out" if args.out else "runs_dir")

    from evo.run.checkpoint import CheckpointError
    from evo.run.device import check_runnable
    from evo.run.parallel import idle_cores
    from evo.run.progress import ProgressPrinter
    from evo.report.tables import load_run, summary
    from evo.run.kinds.base import run_for

    check_runnable(exp)  # before anything is printed: a missing GPU is the command's one line
    console.print(f"[bold]evo run[/bold] {exp.name} seed {exp.seed} -> {run_dir}")
    idle = idle_cores(exp.parallel)
    if idle is not None and not args.quiet:
        console.print(idle, style="dim", highlight=False)
    with ProgressPrinter(console, exp, quiet=args.quiet) as printer:
        search = run_for(exp, run_dir, progress=printer, begun=args.started, on_bugs=printer.found)
        try:
            search.run(resume=args.resume is not None)
        except (FileNotFoundError, CheckpointError) as exc:
            raise UserError(str(exc)) from None
    injected = len(search.built.injected) if search.built.truth is not None else None
    console.print(metric_table(summary(load_run(run_dir), injected), f"{exp.name} (seed {exp.seed})"))
    console.print(f"run directory: {run_dir}")
    return 0


def _migrate(args: argparse.Namespace, console: Console) -> int:
    from evo.run.migrate import BACKUP_SUFFIX, migrate

    for path in args.paths:
        lines = migrate(path)
        for line in lines:
            console.print(line, markup=False)
        if not lines:
            console.print(f"{path}: nothing to migrate", markup=False)
    console.print(f"(each file changed is kept as it was beside it, as <file>{BACKUP_SUFFIX})", style="dim")
    return 0


def _replay(args: argparse.Namespace, console: Console) -> int:
    from evo.bugs.replay import replay
    from evo.run.rundir import CONFIG

    if not (args.run_dir / CONFIG).is_file():
        raise UserError(f"{args.run_dir}: not a run directory (no {CONFIG})")
    if args.repeats < 1:
        raise UserError("--repeats must be at least 1")
    if args.video is not None:
        from evo.report.video import VideoError, write_video

        try:
            console.print(str(write_video(args.run_dir, args.bug_id, args.video)), markup=False)
        except KeyError as exc:
            raise UserError(exc.args[0]) from None
        except VideoError as exc:
            raise UserError(str(exc)) from None
        return 0
    try:
        result = replay(args.run_dir, args.bug_id, repeats=args.repeats)
    except KeyError as exc:
        raise UserError(exc.args[0]) from None
    console.print(result.message)
    return 0 if result.reproduced else 1


def _compare(args: argparse.Namespace, console: Console) -> int:
    from evo.report.compare import CompareError, Finished, compare

    if args.jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {args.jobs}")

    def finished(done: int, total: int, run: Finished) -> None:
        found = "" if run.injected_found is None else f" ({run.injected_found} injected found)"
        console.print(f"[{done}/{total}] {run.name} seed {run.seed}: {run.bugs} bugs{found}, {run.seconds:.1f} s",
                      markup=False)

    try:
        result = compare(args.inputs, seeds=args.seeds, n_jobs=args.jobs, out=args.out, on_finished=finished,
                         html=args.html)
    except CompareError as exc:
        raise UserError(str(exc)) from None
    for game, rows in result.summary.groupby("game", sort=False):
        print_whole(console, summary_table(rows, game))
        pairs = result.pairwise[result.pairwise["game"] == game]
        if len(pairs):
            print_whole(console, pairwise_table(pairs, game))
    out = result.files[0].parent
    console.print(f"wrote {', '.join(str(f.relative_to(out)) for f in result.files)} in {out}")
    return 0


def _report(args: argparse.Namespace, console: Console) -> int:
    from evo.report import plots
    from evo.report.tables import game_facts, load_run, summary
    from evo.run.rundir import CONFIG, GENERATIONS, disk_usage

    run_dir = args.run_dir
    if not (run_dir / CONFIG).is_file():
        raise UserError(f"{run_dir}: not a run directory (no {CONFIG})")
    if not (run_dir / GENERATIONS).is_file():
        raise UserError(f"{run_dir}: run has no {GENERATIONS} (not one generation finished)")
    run = load_run(run_dir)
    facts = game_facts(run)
    injected = len(facts.injected) if facts.has_truth else None
    console.print(metric_table(summary(run, injected), f"{run.config['name']} (seed {run.config.get('seed', 0)})"))
    written = plots.run_figures(run, run_dir / "plots")
    console.print(f"plots: {', '.join(str(p) for p in written)}")
    total, checkpoints = disk_usage(run_dir)
    kept = len(list((run_dir / "checkpoints").glob("gen_*.pt")))
    console.print(f"run directory: {total / 1e6:.2f} MB on disk ({checkpoints / 1e6:.2f} MB in {kept} checkpoints)")
    if args.html or args.videos:
        from evo.report import html as html_report

        if args.html:
            html_report.check_installed()
        if args.videos:
            html_report.make_videos(run, lambda line: console.print(line, markup=False))
        if args.html:
            console.print(f"page: {html_report.run_page(run, written, injected)}")
    return 0


def _evaluate(args: argparse.Namespace, console: Console) -> int:
    import time

    from evo.report.studies.reline import EvaluationError, evaluate

    if args.jobs is not None and args.jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {args.jobs}")
    out = args.out
    if out is None:
        out = args.run_dirs[0] / "evaluation" if len(args.run_dirs) == 1 else (
            Path("evaluation") / time.strftime("%Y%m%d-%H%M%S"))
    try:
        result = evaluate(
            args.run_dirs, args.episodes, out=out, select=args.select, objective=args.objective,
            warmup=args.warmup, choose_episodes=args.choose_episodes, threshold_ms=args.threshold_ms,
            baseline=args.baseline, temperature=args.temperature, seed=args.seed, n_jobs=args.jobs,
            progress=lambda line: console.print(line, markup=False),
        )
    except EvaluationError as exc:
        raise UserError(str(exc)) from None
    source = "given" if result.calibration == "given" else f"calibrated on {result.calibration}"
    console.print(f"slow-frame threshold: {result.threshold_ms:.3g} ms, {source}", markup=False)
    print_whole(console, evaluation_table(result))
    if len(result.pairwise):
        print_whole(console, evaluation_pairs(result.pairwise))
    console.print(f"wrote {', '.join(p.name for p in result.files)} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
