"""Does the object-test imitation policy execute a test when it is put near an object? One table.

    python benchmarks/object_tests.py [--weights object_test.pt] [--level-seed 100] [--objects 16] [--temperature 1]

The tester agent (:mod:`evo.search.agents.tester`) hands a copy to the object-test policy when
the detector sees an object close; this measures what happens then. The player is put 3 to 6
park cells from each of the first ``--objects`` objects of a large park level no model saw
(facing it give or take 30 degrees: a test starts once the detector sees the object), and plays ``--steps`` steps: the
object-test policy (sampled at ``--temperature``, on the ``detect`` wrapper's OD-masked frames, as in the tester),
uniformly random actions, and the scripted circle the demonstrations were made with (ground
truth: an upper bound). Per player: the share of objects tested by the objects oracle's rule
(seen from 270 degrees within 384 map units), and of those tests the share that succeed by
PPGTA's Jensen-Shannon rule (the threshold in the policy's meta). Torch on one thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from games.core.wrappers import wrap  # noqa: E402
from games.doom.park.doom_park import DEFAULT_FRAME_SKIP, TURN_PER_TIC, DoomParkVector  # noqa: E402
from games.doom.park.layout import CELL  # noqa: E402
from games.doom.park.navigation import TURN_LEFT, walkable  # noqa: E402
from games.perception.encoder import downscale  # noqa: E402
from games.perception.imitation import OBJECT_TEST_WEIGHTS, Playing, load_policy  # noqa: E402
from games.doom.park.data.demos import OBJECT_DISTANCE, OBJECT_RADIUS, turn_left_by  # noqa: E402
from games.doom.park.data.walks import circle_step  # noqa: E402
from oracles.executed_tests import execution_divergences, executed_tests  # noqa: E402


def starts(raw: DoomParkVector, count: int, rng: np.random.Generator) -> list[tuple[float, float]]:
    """A walkable place 3 to 6 cells from each of the first ``count`` objects."""
    free = walkable(raw.layout)
    places = []
    for ooi in raw.oois[:count]:
        ci, cj = int(ooi.x // CELL), int(ooi.y // CELL)
        lo, hi = OBJECT_DISTANCE
        near = [(i, j) for i in range(ci - hi, ci + hi + 1) for j in range(cj - hi, cj + hi + 1)
                if 0 <= i < free.shape[0] and 0 <= j < free.shape[1] and free[i, j]
                and max(abs(i - ci), abs(j - cj)) >= lo]
        i, j = near[rng.integers(len(near))]
        places.append(((i + 0.5) * CELL, (j + 0.5) * CELL))
    return places


def run(player: str, raw: DoomParkVector, game, places, steps: int, weights: str, seed: int,  # noqa: ANN001
        temperature: float = 1.0):
    """Play ``steps`` steps from each place; -> (tested [N] bool, actions [N, steps], xy, visible)."""
    n = len(places)
    rng = np.random.default_rng(seed)
    game.reset(list(range(n)))
    step = game.step(np.full(n, TURN_LEFT))
    for i, (x, y) in enumerate(places):
        raw.copies[i].game.send_game_command(f"warp {x:.1f} {y:.1f}")
        # Face the object give or take 30 degrees: the tester starts a test once it is in view.
        bearing = np.degrees(np.arctan2(raw.oois[i].y - y, raw.oois[i].x - x)) + rng.uniform(-30, 30)
        # less the turn of the step below
        turn_left_by(raw, i, bearing - float(step.features[i, 2]) - TURN_PER_TIC * DEFAULT_FRAME_SKIP)
    step = game.step(np.full(n, TURN_LEFT))
    model = Playing(load_policy(weights)[0], n)
    actions = np.zeros((n, steps), dtype=np.int64)
    xy = np.zeros((n, steps, 2))
    visible: list[list[list[int]]] = [[] for _ in range(n)]
    for t in range(steps):
        if player == "object-test policy":
            probs = model.step(downscale(step.obs.astype(np.uint8)))
            logits = np.log(np.maximum(probs, 1e-30))
            a = (logits.argmax(1) if temperature == 0
                 else np.argmax(logits / temperature + rng.gumbel(size=probs.shape), axis=1))
        elif player == "uniform random":
            a = rng.integers(9, size=n)
        else:
            a = np.array([circle_step(step.features[i], (raw.oois[i].x, raw.oois[i].y), OBJECT_RADIUS)
                          for i in range(n)])
        step = game.step(a)
        actions[:, t] = a
        xy[:, t] = step.features[:, :2]
        for i in range(n):
            visible[i].append([v.ooi for v in raw.visible[i]])
    return actions, xy, visible


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default=str(OBJECT_TEST_WEIGHTS), help="object-test imitation policy")
    parser.add_argument("--level-seed", type=int, default=100)
    parser.add_argument("--objects", type=int, default=16)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--temperature", type=float, default=1.0, help="the policy's sampling temperature (0: greedy)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    raw = DoomParkVector(args.objects, level_seed=args.level_seed, preset="large", max_steps=args.steps + 2)
    game = wrap(raw, [("detect", {})])
    meta = load_policy(args.weights)[1]
    demonstrated, threshold = np.asarray(meta["demonstrated"]), float(meta["js_threshold"])
    places = starts(raw, args.objects, np.random.default_rng(args.seed))
    index = {o.id: k for k, o in enumerate(raw.oois)}
    xy_objects = np.array([[o.x, o.y] for o in raw.oois])
    print(f"large park level {args.level_seed}: {args.objects} objects, each from 3-6 cells away, "
          f"{args.steps} steps; JS threshold {threshold:.3f}\n")
    print(f"{'player':<22}{'tested':>10}{'succeeded':>12}{'mean steps':>12}{'seconds':>9}")
    try:
        for player in ("object-test policy", "uniform random", "scripted circle"):
            start = time.perf_counter()
            actions, xy, visible = run(player, raw, game, places, args.steps, args.weights, args.seed,
                                      args.temperature)
            tested = succeeded = 0
            lengths = []
            for i, ooi in enumerate(raw.oois[: args.objects]):
                done = [d for d in executed_tests(xy[i], visible[i], index, xy_objects) if d.object == index[ooi.id]]
                if done:
                    tested += 1
                    lengths.append(done[0].end + 1)
                    succeeded += int(execution_divergences(actions[i], done, demonstrated)[0] <= threshold)
            print(f"{player:<22}{tested:>5} of {args.objects:<3}{succeeded:>7} of {tested:<3}"
                  f"{np.mean(lengths) if lengths else float('nan'):>11.0f}{time.perf_counter() - start:>9.1f}")
    finally:
        game.close()


if __name__ == "__main__":
    main()
