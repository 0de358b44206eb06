"""The visual oracle on a game that is not the park: it places what it saw with the game's own
camera and object heights (its scene, :mod:`games.core.scene`), takes the frame size from
the camera where the observations are not frames, and a game without a camera is one line."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from evo.run.game_facts import GameFacts  # noqa: E402
from games.core.component import Context  # noqa: E402
from games.core.base import GameSpec  # noqa: E402
from games.core.record import Rollout, RolloutBatch  # noqa: E402
from games.core.scene import Camera, ObjectType, Scene  # noqa: E402
from games.perception.base import DETECTIONS_KEY, Detections  # noqa: E402
from oracles.visual import VisualConfig, VisualOracle  # noqa: E402

CAMERA = Camera(hfov_degrees=60.0, pixel_aspect=1.0, frame_size=(200, 150))
"""Not the park's: a narrower view, square map units, another frame size."""
LAMP = ObjectType("lamp", height=50.0, width=10.0)
SPEC = GameSpec((4,), 4, ("x", "y", "angle"), (0.0, 0.0, 0.0), (1000.0, 1000.0, 360.0), (10, 10, 8), 100)
"""Observations are 4 numbers, not frames: the boxes are in the camera's frames."""


class PaintJudge:
    """Stands in for the texture judge: every crop is bugged."""

    types = ("lamp",)

    def bug_probability(self, crops: Sequence[np.ndarray], types: Sequence[str], frame_height: int) -> np.ndarray:
        return np.ones(len(crops))


def circling(target: tuple[float, float], radius: float, n: int) -> Rollout:
    """An episode looking at ``target`` from ``n`` places around it: each box centred, as tall
    as the garden's camera draws a lamp at that distance."""
    width, height = CAMERA.frame_size
    column = np.empty(n, dtype=object)
    features = []
    for k in range(n):
        a = math.radians(15.0 + 360.0 * k / n)  # mid-sector: one direction each
        viewer = (target[0] + radius * math.cos(a), target[1] + radius * math.sin(a))
        h = round(CAMERA.pixel_aspect * CAMERA.focal(width) * LAMP.height / radius)
        box = np.array([[width // 2 - 5, height // 2 - h // 2, 10, h]], dtype=np.int32)
        column[k] = Detections(box, np.array([0]), np.ones(1, dtype=np.float32),
                               (np.full((3, h, 10), 200, dtype=np.uint8),))
        features.append((*viewer, (math.degrees(a) + 180.0) % 360.0))
    features = np.array([features[0], *features])
    return Rollout(policy=0, episode_seed=0, actions=np.zeros(n, dtype=np.int64), rewards=np.zeros(n),
                   features=features, frame_ms=np.zeros(n), terminated=False, truncated=True,
                   info={DETECTIONS_KEY: column})


def test_views_are_placed_with_the_games_camera_and_heights() -> None:
    facts = GameFacts("garden", SPEC, False, (), None, Scene((LAMP,), camera=CAMERA))
    oracle = VisualOracle(SPEC, VisualConfig(), Context(facts=facts))
    oracle.judge = PaintJudge()
    assert (oracle.frame_width, oracle.frame_height) == CAMERA.frame_size and oracle.types == ["lamp"]
    (bug,) = oracle.check(RolloutBatch.from_rollouts([circling((400.0, 600.0), 150.0, 12)]))
    assert bug.data["type"] == "lamp" and bug.data["views"] == 12
    assert math.dist((bug.data["x"], bug.data["y"]), (400.0, 600.0)) < 5.0


def test_a_game_without_a_camera_is_one_line() -> None:
    for context in (Context(), Context(facts=GameFacts("maze", SPEC, False, (), None, Scene((LAMP,))))):
        with pytest.raises(ValueError) as caught:
            VisualOracle(SPEC, VisualConfig(), context)
        assert str(caught.value).startswith("oracle visual: the game describes no camera")
        assert "\n" not in str(caught.value)
