"""Games someone else wrote, with planted bugs: the default experiment against random testing.

Each game of ``tests/games/third_party_envs.py`` (MiniGrid's DoorKey, KeyCorridor and MultiRoom,
highway-env, LunarLander, Crafter, each a ``gymnasium.Wrapper`` with planted bugs, as a user
would write it) is run by ``entry_point`` alone with the default experiment
(``experiments/block_maze.yaml``, its game replaced) and with random testing (the same file,
every episode from the reset to the horizon with fresh random agents: Wuji's baseline), for the
same wall time and seeds. Prints one row a run: planted bugs found, reports that match no
planted bug, the wall time against the budget.

    python benchmarks/third_party_games.py --seconds 300 --seeds 0 1 --games DoorKeyBugs MultiRoomBugs
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("DoorKeyBugs", "KeyCorridorBugs", "MultiRoomBugs", "HighwayBugs", "LunarBugs", "CrafterBugs")
RANDOM = {"strategy": "evolve", "explore_steps": None}
"""Random testing: the default experiment's random agents, every episode from the reset to the
horizon, a fresh batch each generation of the same fitted size (its search without Go-Explore's
returns and segments). With ``generation_seconds: null`` as well, a generation of 120
isolated copies in two tasks took 103 s for highway-env's 1,237 steps (49.7 s since isolated
games play in tasks of at most 16 copies)."""


def run(game: str, strategy: str, seed: int, seconds: float, out: Path) -> dict:
    exp = yaml.safe_load((ROOT / "experiments" / "block_maze.yaml").read_text())
    exp["game"] = {"entry_point": f"tests.games.third_party_envs:{game}"}
    exp["seed"] = seed
    exp["budget"] = {"wall_seconds": seconds, "until_all_found": True}
    if strategy == "random":
        exp["search"].update(RANDOM)
    path = out / f"{game}-{strategy}-{seed}.yaml"
    path.write_text(yaml.safe_dump(exp))
    run_dir = out / f"{game}-{strategy}-{seed}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "evo.cli", "run", str(path), "--out", str(run_dir), "--quiet"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    row = {"game": game, "strategy": strategy, "seed": seed, "exit": done.returncode,
           "tracebacks": done.stderr.count("Traceback")}
    if done.returncode != 0:
        return {**row, "error": done.stderr.strip().splitlines()[-1:]}
    from evo.report.tables import load_run

    data = load_run(run_dir)
    bugs = data.bugs
    matched = bugs["injected_id"].dropna() if len(bugs) else pd.Series(dtype=float)
    last = data.generations.iloc[-1]
    for _, bug in bugs[bugs["injected_id"].isna()].iterrows() if len(bugs) else ():
        print(f"  unmatched {game} {strategy} {seed}: {bug['kind']}: {str(bug['message'])[:160]}", flush=True)
    return {**row, "planted found": int(matched.nunique()), "unmatched": int(len(bugs) - len(matched)),
            "generations": int(last["generation"]) + 1, "env steps": int(last["env_steps"]),
            "wall s": round(float(last["wall_s"]), 1), "budget s": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="wall budget of each run (default 300)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--keep", type=Path, help="keep the run directories here (default: a temporary folder)")
    parser.add_argument("--strategies", nargs="+", default=["default", "random"], choices=("default", "random"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
        for game in args.games:
            for seed in args.seeds:
                for strategy in args.strategies:
                    rows.append(run(game, strategy, seed, args.seconds, args.keep or Path(tmp)))
                    print(rows[-1], flush=True)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
