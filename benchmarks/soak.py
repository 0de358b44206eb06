"""Soak: run an experiment for a long wall time and print how its memory moves.

An overnight run on a game that leaks must not take the machine down with it, and the engine
itself must not leak either: this runs ``evo run`` (Wuji's Block Maze experiment, oracles on) for
``--minutes`` of wall time and reads the memory its ``generations.csv`` records each
generation (``rss_mb``: the ``evo`` process itself; ``rss_children_mb``: the processes it
started). It prints a line every ``--every`` generations while the run goes, then a table of
those rows and one summary line: resident memory at the start and end, the largest, and the
slope of a straight line fitted to the second half (MiB per hour; flat memory is near 0).
Nothing here asserts a figure.

    nice -n 19 taskset -c 1 python benchmarks/soak.py --minutes 60 > soak.txt 2>&1 &
    python benchmarks/soak.py --minutes 2 --every 5     # a smoke test
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "experiments" / "wuji_block_maze.yaml"
COLUMNS = ["generation", "wall_s", "env_steps", "bugs_total", "rss_mb", "rss_children_mb"]


def _read(path: Path) -> pd.DataFrame:
    """The complete rows of ``generations.csv`` so far (a last line being written is dropped)."""
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    text = path.read_text()
    text = text[: text.rfind("\n") + 1]
    if text.count("\n") < 2:
        return pd.DataFrame(columns=COLUMNS)
    from io import StringIO

    return pd.read_csv(StringIO(text))[COLUMNS]


def _line(row: pd.Series) -> str:
    return (f"gen {int(row.generation):>5}  {row.wall_s / 60:6.1f} min  steps {int(row.env_steps):>11,}  "
            f"bugs {int(row.bugs_total):>3}  rss {row.rss_mb:7.1f} MiB  children {row.rss_children_mb:7.1f} MiB")


def _slope_per_hour(gens: pd.DataFrame, column: str) -> float:
    """MiB per hour of a least-squares line through the second half of the run (the first
    half holds the warm-up: imports, first allocations, archives filling)."""
    half = gens[gens.wall_s >= gens.wall_s.iloc[-1] / 2]
    if len(half) < 2:
        return float("nan")
    return float(np.polyfit(half.wall_s / 3600.0, half[column].astype(float), 1)[0])


def _follow(proc: subprocess.Popen, generations: Path, every: int) -> int:
    """Print every ``every``-th generation's row as it is written, until ``proc`` ends."""
    printed = -1
    while proc.poll() is None:
        time.sleep(10)
        gens = _read(generations)
        for _, row in gens[gens.generation > printed].iterrows():
            if int(row.generation) % every == 0:
                print(_line(row), flush=True)
                printed = int(row.generation)
    return printed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", nargs="?", default=str(EXPERIMENT))
    parser.add_argument("--minutes", type=float, default=60.0, help="wall time of the run")
    parser.add_argument("--every", type=int, default=10, help="generations per printed row")
    parser.add_argument("--out", default=None, help="run directory (default: a temporary one)")
    parser.add_argument("overrides", nargs="*", default=[], help="more dotted overrides")
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="soak-")) / "run"
    command = [sys.executable, "-m", "evo.cli", "run", args.experiment,
               "budget.generations=100000000", f"budget.wall_seconds={args.minutes * 60:g}",
               *args.overrides, "--out", str(out), "--quiet"]
    print(f"soak: {' '.join(command[2:])}", flush=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    out.parent.mkdir(parents=True, exist_ok=True)
    stderr = out.parent / f"{out.name}-stderr.txt"  # a file: a pipe nobody reads for an hour fills up
    with stderr.open("w") as sink:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=sink)
        _follow(proc, out / "generations.csv", args.every)
    if proc.returncode != 0:
        print(f"soak: evo run exited with {proc.returncode}: {stderr.read_text().strip()[-2000:]}", flush=True)
    gens = _read(out / "generations.csv")
    if gens.empty:
        print("soak: no generation was written", flush=True)
        return 1
    table = gens[(gens.generation % args.every == 0) | (gens.generation == gens.generation.iloc[-1])]
    print()
    print(f"{'generation':>10} {'minutes':>8} {'env_steps':>12} {'bugs':>5} {'rss_mb':>8} {'children_mb':>12}")
    for _, r in table.iterrows():
        print(f"{int(r.generation):>10} {r.wall_s / 60:>8.1f} {int(r.env_steps):>12,} {int(r.bugs_total):>5} "
              f"{r.rss_mb:>8.1f} {r.rss_children_mb:>12.1f}")
    first, last = gens.iloc[0], gens.iloc[-1]
    print()
    print(f"soak: {len(gens)} generations in {last.wall_s / 60:.1f} min; rss_mb start {first.rss_mb:.1f}, "
          f"end {last.rss_mb:.1f}, max {gens.rss_mb.max():.1f} (second half {_slope_per_hour(gens, 'rss_mb'):+.1f} MiB/h); "
          f"rss_children_mb start {first.rss_children_mb:.1f}, end {last.rss_children_mb:.1f}, "
          f"max {gens.rss_children_mb.max():.1f} (second half {_slope_per_hour(gens, 'rss_children_mb'):+.1f} MiB/h); "
          f"run directory {out}", flush=True)
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
