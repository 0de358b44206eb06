"""SIGKILLs at seeded moments of a run of a game that launches engines: what each leaves.

``evo run`` of the default experiment (the suite's small population) on
``tests.games.launcher_envs:LaunchedEngine`` (an engine launched at every reset, through a
script that backgrounds a helper), on loky's workers with isolated copies, killed at ``--kills`` moments drawn from ``--seed`` over the first
``--within`` seconds: while the run imports, its workers start, copies launch engines, and
generations play. Prints one row a kill: the moment, the run's processes before it, and those
left once they had 10 s to end (the suite's test kills at three of them).

    PYTHONPATH=. python benchmarks/kill_moments.py --kills 10 --within 30
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

from tests.e2e.test_game_processes import BACKENDS, _game
from tests.e2e.test_orphans import end_run, start_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--within", type=float, default=30.0, help="seconds the moments are drawn over")
    parser.add_argument("--seed", type=int, default=59)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        moments = np.random.default_rng(args.seed).uniform(0.0, args.within, size=args.kills)
        for k, at in enumerate(moments):
            folder = Path(tmp) / str(k)
            folder.mkdir()
            token = uuid.uuid4().hex
            proc = start_run(folder, token, "block_maze.yaml", BACKENDS["loky"], _game("isolated"))
            started = time.monotonic()
            before, left = end_run(proc, token, lambda _: time.monotonic() - started >= at, least=0)
            rows.append({"kill_s": round(float(at), 1), "processes_before": len(before), "left": len(left)})
            print(rows[-1], flush=True)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
