"""The ``evo`` command line.

Commands: run, replay, compare, report, evaluate, plan, shrink, regress (options: --help).

Bad input (a missing file, an unknown key, a wrong type, an unknown name) is one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Sequence

from rich.console import Console
from rich.table import Table

from evo.run.config import ConfigError
from evo.run.extras import MissingExtra
from evo.run.reaper import Reaper
from evo.cli.plans import add_plan_parser, plan_command
from evo.cli.traces import add_trace_parsers, trace_command
from evo.cli.vision import add_vision_parser, vision_command
from games.core.base import GameSpecError

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
    add_plan_parser(sub)
    add_trace_parsers(sub)
    add_vision_parser(sub)
    return parser


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    console = Console(highlight=False, soft_wrap=True)
    # SIGTERM stops a run as Ctrl-C does (workers closed, resumable); left to the default,
    # loky workers played on orphaned for half an hour.
    signal.signal(signal.SIGTERM, _interrupt)
    commands = {"run": _run, "compare": _compare, "report": _report, "evaluate": _evaluate,
                "plan": plan_command, "shrink": trace_command, "regress": trace_command,
                "vision": vision_command}
    try:
        # What the games start ends with the command, even a SIGKILLed one (evo/run/reaper.py).
        with Reaper.for_games():
            return commands.get(args.command, _replay)(args, console)
    except (UserError, ConfigError, GameSpecError, MissingExtra) as exc:
        print(f"evo: error: {exc}", file=sys.stderr)
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
    from evo.run.progress import ProgressPrinter
    from evo.report.tables import load_run, summary
    from evo.run.loop import Search

    console.print(f"[bold]evo run[/bold] {exp.name} seed {exp.seed} -> {run_dir}")
    with ProgressPrinter(console, exp, quiet=args.quiet) as printer:
        search = Search(exp, run_dir, progress=printer)
        try:
            search.run(resume=args.resume is not None)
        except (FileNotFoundError, CheckpointError) as exc:
            raise UserError(str(exc)) from None
    injected = len(search.built.injected) if search.built.truth is not None else None
    console.print(_metric_table(summary(load_run(run_dir), injected), f"{exp.name} (seed {exp.seed})"))
    console.print(f"run directory: {run_dir}")
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
        _print_whole(console, _summary_table(rows, game))
        pairs = result.pairwise[result.pairwise["game"] == game]
        if len(pairs):
            _print_whole(console, _pairwise_table(pairs, game))
    out = result.files[0].parent
    console.print(f"wrote {', '.join(str(f.relative_to(out)) for f in result.files)} in {out}")
    return 0


def _fmt(value: object, digits: int = 1) -> str:
    """A table cell: ``-`` for a missing value, thousands separators, ``digits`` decimals."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _count(value: float) -> str:
    """Env steps in a few characters: 950, 12.3k, 1.52M."""
    if value != value:
        return "-"
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.0f}"


def _print_whole(console: Console, table: Table) -> None:
    """Print a table at its natural width even where the terminal is narrower (the terminal
    wraps the lines), so that no cell is cut short and a saved log shows it whole."""
    width = Console(width=1000).measure(table).maximum
    Console(file=console.file, highlight=False, soft_wrap=True, width=max(console.width, width)).print(table)


def _summary_table(rows, game: str) -> Table:  # rows: a pandas.DataFrame, imported lazily
    """summary.csv of one game, the columns that fit a line (the CSV has them all)."""
    from rich import box
    from rich.markup import escape

    from games.core.base import BUG_KINDS

    kinds = [k for k in BUG_KINDS if rows[f"bugs_{k}"].fillna(0).any()]
    table = Table(title=f"summary: {game}", box=box.SIMPLE_HEAD,
                  caption="bugs: injected bugs found (bug reports without ground truth), mean over "
                  "runs; 50% (n): mean env steps to find half of the injected bugs, over the n runs that did")
    short = {"performance": "perf"}
    for col in ["strategy", "runs", escape("bugs ± sd [min-max]"), *(short.get(k, k) for k in kinds), "prec.",
                "coverage", "env steps", "50% (n)", "90% (n)", "100% (n)"]:
        table.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
    for r in rows.to_dict("records"):
        table.add_row(
            escape(r["strategy"]), str(r["runs"]),
            escape(f"{r['bugs_mean']:.1f} ± {_fmt(r['bugs_sd'])} [{r['bugs_min']:.0f}-{r['bugs_max']:.0f}]"),
            *(_fmt(r[f"bugs_{k}"]) for k in kinds), _fmt(r["precision"], 2), _fmt(r["coverage"], 0),
            _count(r["env_steps"]),
            *(f"{_count(r[f'steps_to_{s}'])} ({r[f'reached_{s}']})" for s in ("50", "90", "100")),
        )
    return table


def _pairwise_table(rows, game: str) -> Table:
    """pairwise.csv of one game."""
    from rich import box
    from rich.markup import escape

    table = Table(title=f"pairwise: {game}", box=box.SIMPLE_HEAD,
                  caption="Mann-Whitney U (two-sided) on bugs found, p Holm-adjusted over the pairs "
                  "(* <= 0.05); Cliff's delta > 0: a finds more")
    for col in ["a", "b", "bugs a", "bugs b", "U", "p", "p Holm", "delta", "magnitude"]:
        table.add_column(col, justify="left" if col in ("a", "b", "magnitude") else "right", no_wrap=True)
    for r in rows.to_dict("records"):
        mark = " *" if r["significant"] else ""
        table.add_row(escape(r["a"]), escape(r["b"]), _fmt(r["bugs_a"]), _fmt(r["bugs_b"]), _fmt(r["U"]),
                      f"{r['p']:.3g}", f"{r['p_holm']:.3g}{mark}", f"{r['delta']:+.2f}", r["magnitude"])
    return table


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
    console.print(_metric_table(summary(run, injected), f"{run.config['name']} (seed {run.config.get('seed', 0)})"))
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
    _print_whole(console, _evaluation_table(result))
    if len(result.pairwise):
        _print_whole(console, _evaluation_pairs(result.pairwise))
    console.print(f"wrote {', '.join(p.name for p in result.files)} in {out}")
    return 0


def _evaluation_table(result) -> Table:  # result: evo.report.studies.reline.Evaluation
    """evaluation.csv: RELINE's Table 1 (episodes with at least n bugs spotted) per agent."""
    from rich import box
    from rich.markup import escape

    t = result.table
    table = Table(title=f"evaluation: {int(t['episodes'].iloc[0])} episodes per agent", box=box.SIMPLE_HEAD,
                  caption=f"slow frame: over {result.threshold_ms:.3g} ms; "
                  "n>=k: episodes in which at least k injected bugs were spotted" + _actions(t))
    cols = [f"at_least_{n}" for n in range(1, result.injected + 1)]
    for col in ["agent", "return", *(f"n>={c.rsplit('_', 1)[1]}" for c in cols), "slow frames",
                "low-FPS points", "median ms there", "seconds"]:
        table.add_column(col, justify="left" if col == "agent" else "right", no_wrap=True)
    for r in t.to_dict("records"):
        table.add_row(escape(r["agent"]), _fmt(r["mean_return"]), *(str(r[c]) for c in cols),
                      str(r["slow_frames"]), str(r["low_fps_points"]), _fmt(r["median_ms_at_low_fps"], 2),
                      _fmt(r["seconds"]))
    return table


def _actions(table) -> str:  # table: evaluation.csv
    """How the policy agents chose their actions, when not as trained."""
    temps = table["temperature"].dropna()
    if temps.empty or (temps == 1.0).all():
        return ""
    t = float(temps.iloc[0])
    return "; policies played greedily" if t == 0 else f"; policies sampled at temperature {t:g}"


def _evaluation_pairs(rows) -> Table:  # rows: pairwise.csv of evo evaluate
    from rich import box
    from rich.markup import escape

    table = Table(title="agents compared", box=box.SIMPLE_HEAD,
                  caption="Mann-Whitney U (two-sided), p Holm-adjusted per metric (* <= 0.05); "
                  "Cliff's delta > 0: a higher")
    for col in ["metric", "a", "b", "median a", "median b", "p Holm", "delta", "magnitude"]:
        table.add_column(col, justify="left" if col in ("metric", "a", "b", "magnitude") else "right", no_wrap=True)
    for r in rows.to_dict("records"):
        mark = " *" if r["significant"] else ""
        table.add_row(escape(r["metric"]), escape(r["a"]), escape(r["b"]), _fmt(r["median_a"], 2),
                      _fmt(r["median_b"], 2), f"{r['p_holm']:.3g}{mark}", _fmt(r["delta"], 2), r["magnitude"])
    return table


def _metric_table(table, title: str) -> Table:
    """A ``(metric, value)`` DataFrame of :func:`evo.report.tables.summary` as a rich table."""
    out = Table(title=title)
    out.add_column("metric")
    out.add_column("value", justify="right")
    for metric, value in table.itertuples(index=False):
        out.add_row(str(metric), f"{value:,}" if isinstance(value, int) else str(value))
    return out


if __name__ == "__main__":
    sys.exit(main())
