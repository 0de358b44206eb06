"""Precision and recall of the visual oracle on the bugged OOIs of an unseen park level.

Agents circle the OOIs of level 0 (the texture judge trained on levels 1-8): for each OOI,
``--episodes`` episodes that walk to it from the start and circle it at a radius drawn from
``--radii`` (:func:`games.doom.park.data.walks.circle_walk`, with a tenth of the steps random;
``--explore 1`` makes every step random: agents that circle nothing).
Every step's boxes come from the labels buffer (``--boxes truth``: the oracle alone) or from
the shipped CNN detector (``--boxes detector``, when ``games/perception/detector.py`` exists),
wrapped as the ``detect`` wrapper publishes them (``info.detections``, crops from the
unmasked frame; ``--every k``: detected every k-th step, as the wrapper's ``every`` does,
the boxes carried between without crops, so the oracle judges a k-th of the views). The
oracle checks all the rollouts at once; each report is scored by the
park's ``match`` (the nearest bugged OOI of its type within 128 map units).

Rows: the shipped thresholds, then the same rollouts judged with looser and stricter ones
(how the defaults were chosen). Precision counts distinct reported objects (signatures) that
are bugged OOIs; recall, the bugged OOIs reported; "normal" the normal OOIs reported (goal 0).

    python benchmarks/visual_oracle.py --boxes truth
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.core.component import Context  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.doom.park.truth import ooi_near, report_place  # noqa: E402
from games.core.record import Rollout, RolloutBatch  # noqa: E402
from games.perception.base import DETECTIONS_KEY, Detections  # noqa: E402
from games.doom.park.data.walks import circle_walk  # noqa: E402
from games.perception.texture import crop  # noqa: E402
from evo.run.game_facts import GameFacts  # noqa: E402
from oracles.visual import VisualConfig, VisualOracle  # noqa: E402

SETTINGS: tuple[tuple[str, dict], ...] = (
    ("shipped (4 directions, share 0.5)", {}),
    ("1 direction, share 0", {"min_views": 1, "min_share": 0.0}),
    ("1 direction, share 0.5", {"min_views": 1}),
    ("3 directions, share 0", {"min_views": 3, "min_share": 0.0}),
    ("3 directions, share 0.5", {"min_views": 3}),
    ("5 directions, share 0.5", {"min_views": 5}),
)


def truth_detections(walk, types: tuple[str, ...], jitter: float,
                     rng: np.random.Generator) -> list[Detections]:
    """The labels buffer's boxes of each frame after a step, as the detect wrapper would
    publish them (score 1, crops cut from the frame); ``jitter`` moves each edge by up to
    that share of the box's size (a detector's boxes are never exact)."""
    out = []
    for frame, visible in zip(walk.frames[1:], walk.visible[1:]):
        boxes = np.array([v.box for v in visible], dtype=np.float64).reshape(-1, 4)
        if jitter and len(boxes):
            move = rng.uniform(-jitter, jitter, (len(boxes), 4)) * boxes[:, [2, 3, 2, 3]]
            boxes[:, :2] += move[:, :2]
            boxes[:, 2:] = np.maximum(boxes[:, 2:] + move[:, 2:] - move[:, :2], 2)
        boxes = np.rint(boxes).astype(np.int32)
        out.append(Detections(boxes, np.array([types.index(v.type) for v in visible], dtype=np.int64),
                              np.ones(len(visible), dtype=np.float32),
                              tuple(crop(frame, b) for b in boxes)))
    return out


def detector_detections(walk, detector, every: int = 1) -> list[Detections]:
    """The shipped detector's boxes of each frame after a step (crops cut where it left none),
    as the ``detect`` wrapper with ``every`` publishes them: detected at every ``every``-th
    step, the boxes carried without crops between."""
    detected = detector.detect(walk.frames[::every])  # the reset frame (0), every, 2 every, ...
    out = []
    for t, frame in enumerate(walk.frames[1:], start=1):
        det = detected[t // every]
        if t % every:
            out.append(Detections(det.boxes, det.types, det.scores))
            continue
        crops = det.crops or tuple(crop(frame, b) for b in det.boxes)
        out.append(Detections(det.boxes, det.types, det.scores, crops))
    return out


def play(level: int, episodes: int, steps: int, radii: tuple[float, float], boxes: str,
         jitter: float, seed: int, explore: float = 0.1, every: int = 1) -> tuple[DoomParkVector, RolloutBatch, tuple[str, ...]]:
    """Circle every OOI ``episodes`` times; the rollouts with ``info.detections``."""
    rng = np.random.default_rng(seed)
    game = DoomParkVector(1, level_seed=level, max_steps=steps)
    detector = None
    if boxes == "detector":
        from games.perception.detector import load_detector

        detector = load_detector()
        types = tuple(detector.types)
    else:
        from games.doom.park.layout import OOI_TYPES

        types = tuple(t.name for t in OOI_TYPES)
    rollouts = []
    try:
        for ooi in game.oois:
            for _ in range(episodes):
                episode_seed = int(rng.integers(2**31))
                walk = circle_walk(game, [(ooi.x, ooi.y)], [rng.uniform(*radii)], steps,
                                   episode_seed, rng, explore=explore)
                dets = (truth_detections(walk, types, jitter, rng) if detector is None
                        else detector_detections(walk, detector, every))
                column = np.empty(len(dets), dtype=object)
                column[:] = dets
                n = len(walk.actions)
                rollouts.append(Rollout(
                    policy=len(rollouts), episode_seed=episode_seed, actions=walk.actions,
                    rewards=np.zeros(n), features=walk.features, frame_ms=np.zeros(n),
                    terminated=False, truncated=True, info={DETECTIONS_KEY: column}))
    finally:
        game.close()
    return game, RolloutBatch.from_rollouts(rollouts), types


def score(game: DoomParkVector, bugs) -> dict[str, float]:
    """Distinct reports (signatures) scored with the park's own ground truth: ``match`` (the
    nearest bugged OOI of the type within 128 units) and, for the false ones, whether a
    normal OOI of the type lies within 128 units (a report on a normal object)."""
    reported = {bug.signature: bug for bug in bugs}
    hits = {game.match(bug) for bug in reported.values()} - {None}
    normal = {o.id for bug in reported.values() if game.match(bug) is None
              and (o := ooi_near(game.oois, *report_place(bug))) is not None}
    good = sum(game.match(bug) is not None for bug in reported.values())
    errors = [math.hypot(o.x - p[1], o.y - p[2]) for bug in reported.values()
              if (p := report_place(bug)) and (o := ooi_near(game.oois, *p)) is not None]
    n_bugged = len(game.injected_bugs)
    return {"reports": len(reported), "found": len(hits), "bugged": n_bugged, "normal": len(normal),
            "precision": good / max(len(reported), 1), "recall": len(hits) / max(n_bugged, 1),
            "error_mean": float(np.mean(errors)) if errors else float("nan"),
            "error_max": float(np.max(errors)) if errors else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", choices=("truth", "detector"), default="truth")
    parser.add_argument("--level", type=int, default=0)
    parser.add_argument("--episodes", type=int, default=2, help="episodes circling each OOI")
    parser.add_argument("--steps", type=int, default=200, help="steps per episode")
    parser.add_argument("--radii", type=float, nargs=2, default=(128.0, 320.0))
    parser.add_argument("--jitter", type=float, default=0.0,
                        help="with --boxes truth: move box edges by up to this share of their size")
    parser.add_argument("--explore", type=float, default=0.1,
                        help="share of random steps (1: random agents that circle nothing)")
    parser.add_argument("--every", type=int, default=1,
                        help="with --boxes detector: detect every k-th step (the detect wrapper's every)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run-dir", default=None, help="where the crops go (default: a temp dir)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.every < 1:
        parser.error(f"--every must be a positive number of steps, got {args.every}")
    if args.every > 1 and args.boxes != "detector":
        parser.error("--every needs --boxes detector (the labels buffer's boxes come every step)")
    if args.boxes == "detector" and not (ROOT / "games" / "perception" / "detector.py").exists():
        parser.error("--boxes detector needs games/perception/detector.py (not in this checkout)")
    t0 = time.perf_counter()
    game, batch, types = play(args.level, args.episodes, args.steps, tuple(args.radii), args.boxes,
                              args.jitter, args.seed, args.explore, args.every)
    run_dir = Path(args.run_dir or tempfile.mkdtemp(prefix="visual_oracle_"))
    views = sum(len(d) for row in batch.info[DETECTIONS_KEY] for d in row if d is not None and d.crops)
    print(f"level {args.level}: {len(batch)} episodes of up to {args.steps} steps circling its "
          f"{len(game.oois)} OOIs, {views} boxes from {args.boxes} (jitter {args.jitter}, "
          f"every {args.every}) "
          f"({time.perf_counter() - t0:.0f} s); crops in {run_dir}")
    print("| thresholds | reports | bugged found | normal reported | precision | recall | place error mean / max |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for k, (label, overrides) in enumerate(SETTINGS):
        config = VisualConfig(types=list(types), **overrides)
        facts = GameFacts.of_game("doom_park", game.game_spec, game)  # the oracle reads its scene
        oracle = VisualOracle(game.game_spec, config, Context(run_dir=run_dir if k == 0 else None, facts=facts))
        s = score(game, oracle.check(batch))
        print(f"| {label} | {s['reports']} | {s['found']} / {s['bugged']} | {s['normal']} | "
              f"{s['precision']:.2f} | {s['recall']:.2f} | {s['error_mean']:.0f} / {s['error_max']:.0f} |")


if __name__ == "__main__":
    main()
