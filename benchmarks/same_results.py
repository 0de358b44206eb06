"""The same YAML and seed give the same run before and after a change of the code: the check of a
refactoring that must keep every result (issue 53).

Runs each experiment with a small budget in a worktree of ``--before`` (a git revision) and in
this checkout, then compares ``generations.csv`` and ``bugs.jsonl`` row by row, clocks aside:
columns and fields that hold wall time, memory or measured frame times, and the reports of the
performance oracle (slow frames are measured). Prints one row per experiment.

    python benchmarks/same_results.py --before 3d881b9
    python benchmarks/same_results.py --before main~3 --experiments wuji_block_maze.yaml
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SMALL = "budget.wall_seconds=null"
EXPERIMENTS: dict[str, list[str]] = {
    "wuji_block_maze.yaml": [SMALL, "budget.generations=3"],
    "wuji_ablations/wuji_frontier.yaml": [SMALL, "budget.generations=3"],
    "wuji_ablations/go_explore.yaml": [SMALL, "budget.generations=3"],
    "dungeon_validation.yaml": [SMALL, "budget.generations=3"],
    "montezuma/go_explore.yaml": [SMALL, "budget.generations=2"],
    "ppgta_park.yaml": [SMALL, "budget.env_steps=3000"],
}
"""Six experiments of different kinds (the evolved population with A2C, the frontier, Go-Explore,
plans' validations as an oracle, an ALE game by snapshot, PPGTA's single agent on the park),
each cut to a budget of a minute or two."""

CLOCKS = re.compile(r"wall|rss|_ms$|_ms_|seconds|time|fps|clock|_mb|performance|slow|threshold")
"""Names of the columns and fields that hold clocks, memory or what is measured from them."""


def run(tree: Path, experiment: str, overrides: list[str], out: Path) -> tuple[int, str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "evo.cli", "run", str(tree / "experiments" / experiment), *overrides,
                           "--out", str(out), "--quiet"], cwd=tree, env=env, capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    return done.returncode, lines[-1] if lines else "", time.perf_counter() - started


def generations(run_dir: Path) -> pd.DataFrame:
    frame = pd.read_csv(run_dir / "generations.csv")
    return frame[[c for c in frame.columns if not CLOCKS.search(c)]]


def bugs(run_dir: Path) -> list[dict]:
    path = run_dir / "bugs.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
    return [{k: v for k, v in row.items() if not CLOCKS.search(k) and k not in ("id", "data", "reproduced")}
            for row in rows if row.get("kind") != "performance"]


def differences(before: Path, after: Path) -> str:
    a, b = generations(before), generations(after)
    if list(a.columns) != list(b.columns):
        return f"columns differ: {sorted(set(a.columns) ^ set(b.columns))}"
    if len(a) != len(b):
        return f"{len(a)} generations before, {len(b)} after"
    unequal = [c for c in a.columns if not a[c].equals(b[c])]
    if unequal:
        return f"generations.csv differs in {unequal[:6]}"
    ba, bb = bugs(before), bugs(after)
    if ba != bb:
        return f"bugs.jsonl differs: {len(ba)} bugs before, {len(bb)} after"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision to compare this checkout with")
    parser.add_argument("--experiments", nargs="+", default=list(EXPERIMENTS), choices=list(EXPERIMENTS))
    parser.add_argument("--keep", type=Path, help="keep the run directories here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp)
        tree = Path(tmp) / "before"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), args.before], cwd=ROOT, check=True)
        rows = []
        try:
            for experiment in args.experiments:
                row = {"experiment": experiment}
                dirs = {}
                for side, root in (("before", tree), ("after", ROOT)):
                    dirs[side] = out / side / experiment.replace("/", "-").removesuffix(".yaml")
                    code, last, seconds = run(root, experiment, EXPERIMENTS[experiment], dirs[side])
                    row[f"{side} s"] = round(seconds, 1)
                    if code != 0:
                        row["result"] = f"{side} exited {code}: {last}"
                        break
                else:
                    diff = differences(dirs["before"], dirs["after"])
                    row["generations"] = len(generations(dirs["after"]))
                    row["bugs"] = len(bugs(dirs["after"]))
                    row["result"] = diff or "same"
                rows.append(row)
                print(row, flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
