"""Rooms of Montezuma's Revenge reached by runs: the table of docs/reference/games.md.

    python benchmarks/montezuma_rooms.py RUN_DIR_OR_COMPARISON [...]

Montezuma's Revenge has no injected bugs, so a run there is measured by how far it got:
the rooms of the pyramid (and levels) its episodes entered, and when (``rooms@5m``: rooms
reached in the first 5 minutes, read from the archive's cells and when they were found). Every state a run visits is in
its coverage record (the run's visited buckets, checkpointed); at the game's own resolution
those are dense keys, the mixed-radix numbers of (x, y, room, level, items) bucket indices
(``games.core.base.GameSpec.bucket_keys``), so the room of each visited bucket is read back from
its key. A directory is a run (it has ``config.yaml``) or a folder of runs, e.g. an
``evo compare`` output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evo.run.checkpoint import load_latest  # noqa: E402
import yaml  # noqa: E402
from games.atari.montezuma import FEATURE_BINS, FEATURES  # noqa: E402


def digits(keys: np.ndarray, bins: tuple[int, ...] = FEATURE_BINS) -> np.ndarray:
    """``[K, F]`` bucket indices of dense keys: the keys are mixed-radix numbers, last feature
    fastest (``GameSpec.bucket_keys``), which is numpy's C-order ravelled index."""
    return np.stack(np.unravel_index(np.asarray(keys, dtype=np.int64), bins), axis=1)


def run_row(run_dir: Path) -> dict[str, object]:
    """One run's line: strategy, seed, env steps, seconds, cells, rooms and levels reached."""
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    ckpt = load_latest(run_dir)
    if ckpt is None:
        raise SystemExit(f"{run_dir}: no checkpoint to read the visited states from")
    cover = ckpt.meta["coverage"]
    index = digits(np.asarray(cover["visited"]))
    room, level = index[:, FEATURES.index("room")], index[:, FEATURES.index("level")]
    generations = pd.read_csv(run_dir / "generations.csv")
    last = generations.iloc[-1]
    rooms = sorted(set(room.tolist()))
    return {
        "strategy": config["name"], "seed": config["seed"], "env_steps": int(last["env_steps"]),
        "wall_s": round(float(last["wall_s"])), "generations": int(last["generation"]) + 1,
        "cells": int(len(index)), "rooms": len(rooms), "levels": len(set(level.tolist())),
        "room_ids": " ".join(map(str, rooms)),
        **rooms_over_time(ckpt.meta.get("frontier"), generations),
    }


MARKS_S = (60, 120, 300, 600, 1200, 1800)
"""When the over-time columns count the rooms reached (seconds of the run)."""


def rooms_over_time(frontier: dict | None, generations: pd.DataFrame) -> dict[str, object]:
    """Rooms reached by each of :data:`MARKS_S` the run lasted: a room is reached at the end
    of the generation its first archived cell was found in (runs that keep an archive:
    go_explore and the frontier population; "-" for random play, which keeps none)."""
    ends = generations.set_index("generation")["wall_s"]
    last = float(generations["wall_s"].iloc[-1])
    marks = [m for m in MARKS_S if m <= last + 1]
    if frontier is None:
        return {f"rooms@{m // 60}m": "-" for m in marks}
    archive = frontier["archive"]
    found_s = ends.reindex(np.asarray(archive["columns"]["generation"])).to_numpy()
    room = np.asarray(archive["features"])[:, FEATURES.index("room")]
    first = pd.Series(found_s).groupby(room).min()
    return {f"rooms@{m // 60}m": int((first <= m).sum()) for m in marks}


def run_dirs(paths: list[Path]) -> list[Path]:
    """Every run directory under the given paths, in name order."""
    found: list[Path] = []
    for path in paths:
        if (path / "config.yaml").is_file():
            found.append(path)
        else:
            found.extend(sorted(p.parent for p in path.rglob("config.yaml")))
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="run directories or folders of them")
    args = parser.parse_args(argv)
    runs = run_dirs(args.paths)
    if not runs:
        parser.error(f"no run directory (with config.yaml) under {', '.join(map(str, args.paths))}")
    table = pd.DataFrame([run_row(r) for r in runs])
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
