"""What the visual oracle's views of a park run were really of: the ghosts diagnosis (issue 14).

Replays the episode of every visual report of the given run directories (level 0 of the
small park: the report's seed and actions, up to its last agreeing view) with the shipped
detector, and matches every box the oracle would place (whole, at least ``min_height`` tall,
at any distance: ``max_distance`` is lifted) to the labels buffer's box it overlaps most.
Prints, by the distance the box's height gives: how far the view's place lies from its
object, how often the object was cut by the frame's edge (the detector then boxes only part
of it), and how often the texture judge called a view of a normal object bugged; then the
same by how far the agent looked up or down (ViZDoom's ``PITCH``, read from the engine for
this diagnosis only: it is no state feature).

    taskset -c 1 python benchmarks/visual_ghosts.py runs/nov runs/wuji runs/rnd
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.core.component import Context  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.core.record import Rollout, RolloutBatch  # noqa: E402
from games.perception.base import DETECTIONS_KEY  # noqa: E402
from games.perception.detector import load_detector  # noqa: E402
from evo.run.game_facts import GameFacts  # noqa: E402
from oracles.visual import VisualConfig, VisualOracle  # noqa: E402

BINS = (0, 200, 300, 384, 500, 600, 800, 10_000)
"""Distance bins (map units, from the box's height) of the first table."""
PITCH_BINS = (0, 2, 8, 16, 24, 90)


def overlap(a, b) -> float:
    """Intersection over union of two ``(x, y, w, h)`` boxes."""
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / max(a[2] * a[3] + b[2] * b[3] - inter, 1e-9)


def views_of(run: Path, game: DoomParkVector, detector, oracle: VisualOracle) -> list[dict]:
    """One row per placed view of the run's reported episodes, with what it really showed."""
    import vizdoom as vzd

    rows = []
    oois = {o.id: o for o in game.oois}
    for line in (run / "bugs.jsonl").read_text().splitlines():
        bug = json.loads(line)
        if bug["kind"] != "visual":
            continue
        _, first = game.reset([bug["seed"]])
        frames, features, visible, pitch = [], [first[0].copy()], [], []
        for action in bug["actions"]:
            step = game.step(np.array([action]))
            frames.append(step.obs[0].copy())
            features.append(step.features[0].copy())
            visible.append(game.visible[0])
            pitch.append(game.copies[0].game.get_game_variable(vzd.GameVariable.PITCH))
        found = detector.detect(np.stack(frames))
        column = np.empty(len(found), dtype=object)
        column[:] = found
        n = len(frames)
        rollout = Rollout(policy=0, episode_seed=bug["seed"], actions=np.asarray(bug["actions"]),
                          rewards=np.zeros(n), features=np.array(features), frame_ms=np.zeros(n),
                          terminated=False, truncated=True, info={DETECTIONS_KEY: column})
        views = oracle._views(RolloutBatch.from_rollouts([rollout])[0])
        oracle._judge(views)
        for v in views:
            det = found[v.step]
            k = next(i for i in range(len(det)) if det.crops[i] is v.crop)
            box = [int(x) for x in det.boxes[k]]
            truth = max(visible[v.step], key=lambda o: overlap(o.box, box), default=None)
            if truth is None or truth.ooi < 0 or overlap(truth.box, box) <= 0.1:
                continue
            o, (tx, ty, tw, th) = oois[truth.ooi], truth.box
            rows.append({"distance": v.distance, "type_ok": o.type == v.type, "bugged": o.bugged,
                         "error": math.hypot(o.x - v.x, o.y - v.y), "prob": v.prob,
                         "cut": tx <= 0 or ty <= 0 or tx + tw >= 160 or ty + th >= 120,
                         "pitch": abs(pitch[v.step]), "run": run.name})
    return rows


def table(rows: list[dict], key: str, edges: tuple[float, ...], label: str) -> None:
    print(f"| {label} | views | place error median / 90% | cut by the frame | normal views judged bugged |")
    print("|---|---:|---:|---:|---:|")
    for lo, hi in zip(edges[:-1], edges[1:]):
        part = [r for r in rows if (lo < r[key] <= hi or r[key] == lo == edges[0]) and r["type_ok"]]
        if not part:
            continue
        errors = np.array([r["error"] for r in part])
        normal = [r["prob"] > 0.5 for r in part if not r["bugged"]]
        print(f"| {lo}-{hi} | {len(part)} | {np.median(errors):.0f} / {np.quantile(errors, 0.9):.0f} | "
              f"{np.mean([r['cut'] for r in part]):.0%} | {np.mean(normal) if normal else float('nan'):.0%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories of doom_park level 0 (small)")
    args = parser.parse_args()
    for run in args.runs:
        if not (run / "bugs.jsonl").is_file():
            print(f"error: {run} has no bugs.jsonl (expected a run directory)", file=sys.stderr)
            sys.exit(2)
    torch.set_num_threads(1)
    detector = load_detector()
    game = DoomParkVector(1, level_seed=0, max_steps=1000)
    oracle = VisualOracle(game.game_spec, VisualConfig(types=list(detector.types), max_distance=1e9),
                          Context(facts=GameFacts.of_game("doom_park", game.game_spec, game)))
    try:
        rows = [r for run in args.runs for r in views_of(run, game, detector, oracle)]
    finally:
        game.close()
    print(f"{len(rows)} views matched to an OOI; {np.mean([not r['type_ok'] for r in rows]):.1%} "
          "named with another type")
    for name in sorted({r["run"] for r in rows}):
        mine = [r for r in rows if r["run"] == name]
        print(f"{name}: {len(mine)} views, {np.mean([r['distance'] > 384 for r in mine]):.0%} beyond 384 units")
    for cut, label in ((True, "cut by the frame's edge"), (False, "whole")):
        normal = [r["prob"] > 0.5 for r in rows if r["type_ok"] and not r["bugged"] and r["cut"] == cut]
        print(f"views of normal objects {label}: {len(normal)}, judged bugged {np.mean(normal):.0%}")
    table(rows, "distance", BINS, "distance from the box (units)")
    table(rows, "pitch", PITCH_BINS, "looking up or down (degrees)")


if __name__ == "__main__":
    main()
