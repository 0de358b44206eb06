"""Games that fail the way real builds do, run with the default experiment and only their entry point.

Each game of the list runs ``evo run`` of ``experiments/block_maze.yaml`` with its game
replaced and ``budget.wall_seconds`` set, alone on the machine. Prints one row a run: the
command's wall time against the budget, when the first bug happened (its ``wall_s``) and when
its line reached ``bugs.jsonl`` (watched every 0.25 s), the bugs by kind, and the processes of
the run left 10 s after it ended.

    python benchmarks/faulty_games.py --seconds 60 --games hang leak segfault launcher
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
LINE = "tests.games.faulty_envs:LineWalk"
GAMES: dict[str, dict] = {
    # A step that never returns three cells from the start: almost every episode reaches it.
    "hang": {"entry_point": LINE, "kwargs": {"fault": "hang", "at_position": 3, "length": 12, "max_steps": 200}},
    # From three cells on, every step keeps 200 MiB more (issue 52: max_rss_mb 2000).
    "leak": {"entry_point": LINE, "max_rss_mb": 2000,
             "kwargs": {"fault": "leak", "leak_mb": 200, "at_position": 3, "length": 12, "max_steps": 200}},
    "segfault": {"entry_point": LINE, "kwargs": {"fault": "segfault", "at_position": 3, "length": 12,
                                                  "max_steps": 200}},
    # Every reset starts an engine through a launch script that backgrounds a helper.
    "launcher": {"entry_point": "tests.games.launcher_envs:LaunchedEngine"},
}


def marked(token: str) -> int:
    """Processes of this user whose environment carries ``token`` (the run's and its games')."""
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if token.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                count += 1
        except OSError:
            continue
    return count


def run(name: str, seconds: float, out: Path) -> dict:
    exp = yaml.safe_load((ROOT / "experiments" / "block_maze.yaml").read_text())
    exp["game"] = GAMES[name]
    exp["budget"] = {"wall_seconds": seconds}
    path = out / f"{name}.yaml"
    path.write_text(yaml.safe_dump(exp))
    run_dir = out / name
    token = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EVO_BENCH_TOKEN": token}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "evo.cli", "run", str(path), "--out", str(run_dir), "--quiet"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    written = None
    bugs = run_dir / "bugs.jsonl"
    while proc.poll() is None:
        if written is None and bugs.exists() and bugs.stat().st_size > 0:
            written = time.perf_counter() - start
        time.sleep(0.25)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr else ""
    time.sleep(10)
    left = marked(token)
    records = [json.loads(line) for line in bugs.read_text().splitlines()] if bugs.exists() else []
    kinds = pd.Series([r["kind"] for r in records], dtype=str).value_counts().to_dict()
    return {
        "game": name, "budget_s": seconds, "exit": proc.returncode, "wall_s": round(elapsed, 1),
        "over_%": round(100 * (elapsed / seconds - 1), 1),
        "first_bug_s": round(min(r["wall_s"] for r in records), 1) if records else None,
        "written_s": None if written is None else round(written, 1),
        "bugs": len(records), "kinds": kinds, "left": left, "tracebacks": err.count("Traceback"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.games:
            rows.append(run(name, args.seconds, Path(tmp)))
            print(rows[-1], flush=True)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
