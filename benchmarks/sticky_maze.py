"""The large Block Maze with sticky inputs beside its deterministic twin, in the same time.

    python benchmarks/sticky_maze.py [--seeds 0 1 2] [--seconds 50] [--sticky 0.25]

Each seed runs ``experiments/wuji_ablations/large_go_explore.yaml`` twice for ``--seconds``
of wall time (the ablation's own budget is 50 s), once as it is and once with
``game.kwargs.sticky`` (Machado et al.'s sticky actions: a step plays the last move again by
chance, from a generator no seed reaches, so no episode replays), each bug played again 10
times as the run finds it (``bug_replays=10``). The deterministic twin's
returns replay their way from the reset; the sticky maze's restore a snapshot and explore from
where they land. The table gives the injected bugs found, the reports that match none, the
share of the runs' bugs that came with a reproduction rate, how many of them reproduced from
the reset in every replay, in some, or in none (``bugs.jsonl``'s ``reproduced``), and of the
bugs played from a snapshot of their episode, how many showed again from there
(``from_snapshot``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "experiments" / "wuji_ablations" / "large_go_explore.yaml"


def run(seed: int, seconds: float, sticky: float, out: Path) -> dict[str, object]:
    """One run of the experiment; its bugs and last row."""
    args = [sys.executable, "-m", "evo.cli", "run", str(EXPERIMENT), f"seed={seed}",
            f"budget.wall_seconds={seconds}", "budget.env_steps=null", "bug_replays=10"]
    if sticky:
        args.append(f"game.kwargs.sticky={sticky}")
    args += ["--out", str(out), "--quiet"]
    subprocess.run(args, cwd=ROOT, check=True)
    bugs = [json.loads(line) for line in (out / "bugs.jsonl").read_text().splitlines() if line.strip()]
    last = pd.read_csv(out / "generations.csv").iloc[-1]
    rates = [b["reproduced"] for b in bugs if b["reproduced"] is not None]
    there = [b for b in bugs if b["from_snapshot"] is not None]
    return {
        "seed": seed, "sticky": sticky, "env_steps": int(last["env_steps"]), "wall_s": round(float(last["wall_s"]), 1),
        "found": len({b["injected_id"] for b in bugs if b["injected_id"] is not None}),
        "unmatched": sum(b["injected_id"] is None for b in bugs),
        "with_rate": f"{len(rates)} of {len(bugs)}",
        "every_replay": sum(s == n for s, n in rates), "some": sum(0 < s < n for s, n in rates),
        "none": sum(s == 0 for s, n in rates),
        "from_snapshot": f"{sum(b['from_snapshot']['reproduced'][0] > 0 for b in there)} of {len(there)}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--seconds", type=float, default=50.0)
    parser.add_argument("--sticky", type=float, default=0.25)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            for sticky in (0.0, args.sticky):
                rows.append(run(seed, args.seconds, sticky, Path(tmp) / f"s{seed}_{sticky}"))
                print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    print(frame.to_string(index=False))
    twin, sticky = (frame[frame["sticky"] == s]["found"].sum() for s in (0.0, args.sticky))
    print(f"sticky {args.sticky}: {sticky} injected bugs found, the deterministic twin {twin} "
          f"({sticky / max(twin, 1):.0%}) in {args.seconds:g} s per run")


if __name__ == "__main__":
    main()
