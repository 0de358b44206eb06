"""The visual oracle on the generated park: circling a bugged lamp gets it reported, placed
within 128 map units and with its crops as PNGs in the run directory; circling a normal lamp
gets nothing reported on it; without a run directory nothing is written."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image
import pytest

pytest.importorskip("vizdoom")
torch = pytest.importorskip("torch")

from games.core.component import Context  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.doom.park.layout import OOI_TYPES  # noqa: E402
from games.core.record import Rollout, RolloutBatch  # noqa: E402
from games.perception.base import DETECTIONS_KEY, Detections  # noqa: E402
from games.doom.park.data.walks import Walk, circle_walk  # noqa: E402
from games.perception.texture import crop, judgeable  # noqa: E402
from oracles import build_oracles  # noqa: E402
from oracles.visual import place_of  # noqa: E402
from evo.run.game_facts import GameFacts  # noqa: E402
from games.doom.park.scene import OBJECT_HEIGHTS, park_camera  # noqa: E402

TYPES = [t.name for t in OOI_TYPES]
BUGGED, NORMAL = 1, 3
"""Level 0's lamps: 1 is low-resolution, 3 is normal (ground truth, read only to check)."""


def _rollout(game: DoomParkVector, target: tuple[float, float], seed: int) -> tuple[Rollout, Walk]:
    """Circle ``target``; every step's labels-buffer boxes as the detect wrapper's Detections."""
    walk = circle_walk(game, [target], [200.0], 220, seed, np.random.default_rng(seed))
    column = np.empty(len(walk.actions), dtype=object)
    for t, (frame, visible) in enumerate(zip(walk.frames[1:], walk.visible[1:])):
        boxes = np.array([v.box for v in visible], dtype=np.int32).reshape(-1, 4)
        column[t] = Detections(boxes, np.array([TYPES.index(v.type) for v in visible], dtype=np.int64),
                               np.ones(len(visible), dtype=np.float32),
                               tuple(crop(frame, b) for b in boxes))
    n = len(walk.actions)
    return Rollout(policy=seed, episode_seed=seed, actions=walk.actions, rewards=np.zeros(n),
                   features=walk.features, frame_ms=np.zeros(n), terminated=False, truncated=True,
                   info={DETECTIONS_KEY: column}), walk


@pytest.fixture(scope="module")
def park() -> tuple[DoomParkVector, RolloutBatch, list[Walk]]:
    torch.set_num_threads(1)
    game = DoomParkVector(1, level_seed=0, max_steps=220)
    try:
        played = [_rollout(game, (game.oois[k].x, game.oois[k].y), seed)
                  for seed, k in enumerate((BUGGED, NORMAL))]
    finally:
        game.close()
    return game, RolloutBatch.from_rollouts([r for r, _ in played]), [w for _, w in played]


def _context(game: DoomParkVector, **kwargs) -> Context:
    """A context whose facts are the park's (the oracle reads its scene: camera and types)."""
    return Context(facts=GameFacts.of_game("doom_park", game.game_spec, game), **kwargs)


def _near(bugs, ooi) -> list:
    return [b for b in bugs if b.data["type"] == ooi.type
            and math.hypot(b.data["x"] - ooi.x, b.data["y"] - ooi.y) <= 128]


def test_a_bugged_object_is_reported_and_placed_a_normal_one_is_not(park, tmp_path) -> None:
    game, batch, _ = park
    (oracle,) = build_oracles([("visual", {})], game.game_spec, _context(game, run_dir=tmp_path))
    assert oracle.requires == frozenset({"info.detections"})
    bugs = oracle.check(batch)
    bugged, normal = game.oois[BUGGED], game.oois[NORMAL]
    found = _near(bugs, bugged)
    assert found, [b.message for b in bugs]
    assert not _near(bugs, normal), [b.message for b in bugs]
    bug = found[0]
    assert game.match(bug) == BUGGED  # the park's ground truth agrees
    assert bug.kind == "visual" and bug.oracle == "visual" and bug.data["views"] >= 3
    assert bug.policy == 0 and len(bug.actions) == bug.step + 1  # replay up to the last view
    # The crops are PNGs under the run directory, named relative to it.
    assert bug.data["crops"]
    for path in bug.data["crops"]:
        assert (tmp_path / path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        with Image.open(tmp_path / path) as png:  # the object's pixels, in colour
            assert png.mode == "RGB" and min(png.size) >= 1
    # Same object in a later check: same signature (and nothing written twice).
    again = _near(oracle.check(batch[:1]), bugged)
    assert again[0].signature == bug.signature and again[0].data["crops"] == bug.data["crops"]
    state = oracle.state_dict()
    (fresh,) = build_oracles([("visual", {})], game.game_spec, _context(game))
    fresh.load_state_dict(state)
    replayed = _near(fresh.check(batch[:1]), bugged)
    assert replayed[0].signature == bug.signature and replayed[0].data["crops"] == []


def test_views_are_placed_within_128_units_of_their_object(park) -> None:
    game, _, walks = park
    errors = {t.name: [] for t in OOI_TYPES}
    for walk in walks:
        for features, visible in zip(walk.features, walk.visible):
            for v in visible:
                if v.ooi >= 0 and judgeable(v.box, (120, 160)):
                    x, y, _, _ = place_of(v.box, features, OBJECT_HEIGHTS[v.type], 160, park_camera())
                    errors[v.type].append(math.hypot(x - game.oois[v.ooi].x, y - game.oois[v.ooi].y))
    for name, errs in errors.items():
        assert len(errs) > 10, name
        assert np.median(errs) < 32 and np.quantile(errs, 0.95) < 128, (name, np.quantile(errs, [0.5, 0.95]))


def test_a_second_report_of_an_object_a_little_off_is_the_same_bug(park) -> None:
    """Views placed up to ``merge_radius`` (160) from an object reported before name it again,
    so a long run does not count one bugged object twice; 192 units away (the park's closest
    spacing of one type) is another object."""
    game, batch, _ = park
    bugged = game.oois[BUGGED]
    signatures = []
    for offset in (140.0, 200.0):
        (oracle,) = build_oracles([("visual", {})], game.game_spec, _context(game))
        oracle.load_state_dict({"reported": [[bugged.type, bugged.x + offset, bugged.y, "visual:earlier"]]})
        signatures.append({b.signature for b in oracle.check(batch[:1]) if b.data["type"] == bugged.type})
    assert signatures[0] == {"visual:earlier"}
    assert len(signatures[1]) == 1 and "visual:earlier" not in signatures[1]
