"""``evo shrink`` and ``evo regress``: what a developer does with the bugs of a run.

    evo shrink RUN_DIR [BUG_ID ...]            # each bug's trace, delta-debugged to a short one
    evo regress RUN_DIR --kwarg KEY=VALUE ...  # the run's bugs on another build of the game
    evo regress RUN_DIR --plans [DIR] --kwarg KEY=VALUE ...  # its exported bug plans, likewise

``shrink`` writes ``shrunk.jsonl`` in the run directory (id, original length, the shrunk
actions, which reproduce the bug from the same episode seed). ``regress`` exits 0 when every
bug is fixed on the new build and 1 when some remain.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from evo.run.user_paths import ConfigError
from evo.cli.plans import parse_kwargs

SHRUNK = "shrunk.jsonl"
PROGRESS_EVERY_S = 5.0
"""Seconds between the progress lines of a bug being shrunk."""


def add_trace_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``shrink`` and ``regress`` commands."""
    shrink = sub.add_parser("shrink", help="shrink bugs' action traces to short ones that still reproduce them")
    shrink.add_argument("run_dir", type=Path)
    shrink.add_argument("bug_ids", type=int, nargs="*", help="bugs to shrink (default: all)")
    regress = sub.add_parser("regress", help="replay a run's bugs on another build of its game: fixed or not")
    regress.add_argument("run_dir", type=Path)
    regress.add_argument("--kwarg", action="append", default=[], metavar="KEY=VALUE",
                         help="a game keyword argument of the new build, value read as YAML (repeatable), "
                         "e.g. fixed_bugs=[0,3]")
    regress.add_argument("--repeats", type=int, default=3, help="replays judged together (default 3)")
    regress.add_argument("--plans", type=Path, nargs="?", const=True, metavar="DIR",
                         help="re-run the run's exported bug plans instead of its traces (default DIR: "
                         "RUN_DIR/plans, written by evo plan export)")


def _records(run_dir: Path) -> list[dict]:
    from evo.run.rundir import bug_records

    try:
        return bug_records(run_dir)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def trace_command(args: argparse.Namespace, console: Console) -> int:
    """Run ``evo shrink`` or ``evo regress``; returns the exit code."""
    records = _records(args.run_dir)
    if args.command == "shrink":
        return _shrink(args, records, console)
    from evo.bugs.regress import regress

    if args.repeats < 1:
        raise ConfigError("--repeats must be at least 1")
    try:
        if args.plans is not None:
            from evo.cli.plans import game_factory
            from evo.plans.export import regress_plans

            folder = args.run_dir / "plans" if args.plans is True else args.plans
            table = regress_plans(folder, lambda plan: game_factory(plan, None, args.kwarg))
        else:
            table = regress(args.run_dir, parse_kwargs(args.kwarg), repeats=args.repeats)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    out = Table(title=f"{args.run_dir} on {parse_kwargs(args.kwarg)}")
    for column in table.columns:
        out.add_column(str(column))
    for row in table.itertuples(index=False):
        out.add_row(*(str(v) for v in row))
    console.print(out)
    fixed = int((table["status"] == "fixed").sum())
    console.print(f"{fixed} of {len(table)} bugs fixed, {len(table) - fixed} remain")
    return 0 if fixed == len(table) else 1


def _shrink(args: argparse.Namespace, records: list[dict], console: Console) -> int:
    from evo.bugs.reproduce import Reproducer
    from evo.bugs.shrink import shrink_bug

    ids = {int(r["id"]) for r in records}
    missing = sorted(set(args.bug_ids) - ids)
    if missing:
        raise ConfigError(f"{args.run_dir}: no bug with id {missing[0]} in bugs.jsonl")
    chosen = [r for r in records if not args.bug_ids or int(r["id"]) in args.bug_ids]
    table = Table(title=f"shrunk traces of {args.run_dir}")
    for column in ("id", "kind", "signature", "original", "shrunk", "plays"):
        table.add_column(column)
    lines = []
    with Reproducer(args.run_dir, repeats=1) as reproducer:
        for k, record in enumerate(chosen, 1):
            said = [time.monotonic()]

            def tell(length: int, plays: int, bug: int = int(record["id"]), total: int = len(record["actions"])) -> None:
                if time.monotonic() - said[0] >= PROGRESS_EVERY_S:  # a line every few seconds, not every round
                    said[0] = time.monotonic()
                    console.print(f"bug {bug}: {total} -> {length} actions, {plays:,} candidates played")

            console.print(f"shrinking bug {int(record['id'])} ({k} of {len(chosen)}, {record['kind']}, "
                          f"{len(record['actions'])} actions)")
            result = shrink_bug(reproducer, record, progress=tell)
            shrunk = str(len(result.shrunk)) if result.reproduced else "did not reproduce"
            table.add_row(str(record["id"]), record["kind"], record["signature"][:48], str(len(result.original)),
                          shrunk, str(result.plays))
            lines.append(json.dumps({"id": int(record["id"]), "reproduced": result.reproduced,
                                     "original_length": len(result.original), "actions": list(result.shrunk)}))
    console.print(table)
    (args.run_dir / SHRUNK).write_text("".join(line + "\n" for line in lines))
    console.print(f"written to {args.run_dir / SHRUNK}")
    return 0
