"""The same tiny park experiment on the CPU and on a GPU: the same bugs, objectives equal
within 1e-4 (relative or absolute, whichever is looser: RND novelty starts near 40).

    python benchmarks/device_repro.py [--device cuda] [--out DIR]

Runs ``ppgta_park_novelty`` (detector, encoder, texture judge, RND, the population's forward
pass and PPO fine-tuning: every network ``device`` reaches) with a small population and
short episodes, once with ``device=cpu`` and once with ``--device``, and prints a table: per
generation, each objective column of ``generations.csv`` on both and their largest
difference, then the bugs each found (signatures). Exits 1 where they differ beyond the
tolerance, 0 where they agree. The two runs go at once on a machine of 8 cores or more:
about a minute on a 16-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-4
SMALL = ["search.population=4", "search.offspring=4", "game.kwargs.max_steps=150", "budget.generations=3",
         "budget.env_steps=100000000", "parallel.n_jobs=2"]
"""A generation of 4 policies x 150 steps, PPO as the experiment ships it (one update each)."""
JUDGED = ("rnd_novelty", "hypervolume", "bugs_")
"""The columns the verdict reads: the objectives and the bugs found. The others (coverage,
RL diagnostics such as the clip fraction, a count of steps) are printed for information."""


def run(experiment: Path, device: str, out: Path) -> Path:
    """``evo run`` of the small experiment on ``device`` into ``out``; its run directory."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "evo.cli", "run", str(experiment), *SMALL, f"device={device}",
                           "--out", str(out), "--quiet"], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"evo run on {device} failed: {done.stderr.strip()[-2000:]}")
    return out


def signatures(run_dir: Path) -> list[str]:
    """The run's bugs, one line each: kind, oracle and signature, in the order found."""
    lines = (run_dir / "bugs.jsonl").read_text().splitlines()
    return [f"{b['kind']} {b['oracle']} {b['signature']}" for b in map(json.loads, lines)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="the device compared with the CPU (default cuda)")
    parser.add_argument("--experiment", type=Path, default=ROOT / "experiments" / "ppgta_park_novelty.yaml")
    parser.add_argument("--out", type=Path, help="keep both run directories here (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="device_repro_") as tmp:
        out = args.out or Path(tmp)
        dirs = (out / "on-cpu", out / f"on-{args.device}-too" if args.device == "cpu" else out / f"on-{args.device}")
        # Both at once where the cores allow (each run has 2 workers): about half the wall time,
        # which a device check's time limit needs; neither result depends on the other.
        with ThreadPoolExecutor(2 if (os.cpu_count() or 1) >= 8 else 1) as pool:
            cpu, other = pool.map(lambda job: run(args.experiment, *job), [("cpu", dirs[0]), (args.device, dirs[1])])
        a, b = pd.read_csv(cpu / "generations.csv"), pd.read_csv(other / "generations.csv")
        bugs_a, bugs_b = signatures(cpu), signatures(other)
    names = [c for c in a.columns if c.startswith(("rnd_novelty", "hypervolume", "coverage", "bugs_", "objects_",
                                                     "preferred_coverage", "rl_"))]
    print(f"{args.experiment.stem}: {' '.join(SMALL)}; cpu against {args.device}")
    print(f"{'column':<26}{'cpu (last gen)':>16}{args.device + ' (last gen)':>18}{'largest diff':>14}  agree")
    agree_all = len(a) == len(b)
    for name in names:
        x, y = a[name].to_numpy(dtype=float), b[name].to_numpy(dtype=float)
        same = x.shape == y.shape and bool(np.allclose(x, y, rtol=TOL, atol=TOL, equal_nan=True))
        diff = float(np.nanmax(np.abs(x - y))) if x.shape == y.shape and np.isfinite(x - y).any() else 0.0
        judged = name.startswith(JUDGED)
        agree_all &= same or not judged
        verdict = ("yes" if same else "NO") if judged else ("yes" if same else "no") + " (info)"
        print(f"{name:<26}{x[-1]:>16.6g}{y[-1]:>18.6g}{diff:>14.2e}  {verdict}")
    same_bugs = bugs_a == bugs_b
    print(f"bugs: cpu {len(bugs_a)}, {args.device} {len(bugs_b)}, {'the same' if same_bugs else 'DIFFERENT'}")
    for line in sorted(set(bugs_a) ^ set(bugs_b)):
        print(f"  only on {'cpu' if line in bugs_a else args.device}: {line}")
    verdict = agree_all and same_bugs
    print("reproducible within 1e-4: " + ("yes" if verdict else "NO"))
    raise SystemExit(0 if verdict else 1)


if __name__ == "__main__":
    main()
