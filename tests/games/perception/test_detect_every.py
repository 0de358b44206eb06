"""The ``detect`` wrapper's ``every`` option: the detector runs on a copy's reset frame and on
every k-th step after; between them the frame is masked with the last boxes, which are
published without crops."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.base import GameSpec, VecStep
from games.perception.base import DETECTIONS_KEY, Detections, od_mask
from games.core.wrappers import wrap

FRAMES = 12


def frame(t: int) -> np.ndarray:
    """A colourful 120x160 frame whose top-left red value says which frame it is."""
    rng = np.random.default_rng(t)
    out = rng.integers(0, 256, (3, 120, 160), dtype=np.uint8)
    out[0, 0, 0] = t
    return out


class Walk:
    """Copy ``i`` shows frame ``t + i`` after ``t`` steps; copy 1 ends at its 4th step."""

    def __init__(self) -> None:
        self.num_envs, self.t = 2, 0
        self.game_spec = GameSpec((3, 120, 160), 3, ("t",), (0.0,), (99.0,), (99,), 99, obs_dtype="uint8")

    def _obs(self) -> np.ndarray:
        return np.stack([frame(self.t), frame(self.t + 1)])

    def reset(self, seeds):
        self.t = 0
        return self._obs(), np.zeros((2, 1))

    def step(self, actions):
        self.t += 1
        done = np.array([False, self.t == 4])
        return VecStep(self._obs(), np.zeros(2), done, np.zeros(2, bool), np.zeros((2, 1)))

    def close(self) -> None:
        pass


class MarkerDetector:
    """Finds one 20x30 box per frame, at x = 8 * the frame's number: each frame's box is its
    own, so a carried box is told from a fresh one. Records which frames it saw."""

    types = ("barrel",)

    def __init__(self) -> None:
        self.seen: list[list[int]] = []

    def detect(self, frames: np.ndarray) -> list[Detections]:
        self.seen.append([int(f[0, 0, 0]) for f in frames])
        found = []
        for f in frames:
            box = np.array([[8 * int(f[0, 0, 0]), 40, 20, 30]], dtype=np.int32)
            found.append(Detections(box, np.zeros(1, np.int64), np.ones(1, np.float32),
                                    (f[:, 40:70, box[0, 0]:box[0, 0] + 20].copy(),)))
        return found


def detect_game(every: int):
    game = wrap(Walk(), [("detect", {"every": every})])
    game.detector = MarkerDetector()
    return game


def test_detection_runs_on_the_reset_frame_and_every_kth_step_only() -> None:
    game = detect_game(every=3)
    game.reset([0, 1])
    for _ in range(7):
        game.step(np.zeros(2, dtype=np.int64))
    # frames on reset (0, 1), then steps 3 and 6 (copy 0: frames 3, 6; copy 1 ended at step 4)
    assert game.detector.seen == [[0, 1], [3, 4], [6]]


def test_between_detections_the_last_boxes_mask_the_new_frame_and_are_published_without_crops() -> None:
    game = detect_game(every=3)
    game.reset([0, 1])
    for t in (1, 2, 3):
        out = game.step(np.zeros(2, dtype=np.int64))
        published = out.info[DETECTIONS_KEY]
        source = 0 if t < 3 else 3  # copy 0's boxes: those of its reset frame until step 3
        expect = np.array([[8 * source, 40, 20, 30]], dtype=np.int32)
        assert np.array_equal(published[0].boxes, expect)
        assert np.array_equal(out.obs[0], od_mask(frame(t)[None], [expect])[0])
        if t < 3:
            assert published[0].crops == () and np.array_equal(published[1].boxes[:, 0], [8])
        else:  # detected on this frame: crops cut from it, unmasked
            assert np.array_equal(published[0].crops[0], frame(3)[:, 40:70, 24:44])
    assert np.array_equal(game.detections[0].boxes, expect)


def test_a_reset_detects_again_and_restarts_the_count() -> None:
    game = detect_game(every=3)
    game.reset([0, 1])
    for _ in range(2):
        game.step(np.zeros(2, dtype=np.int64))
    game.reset([2, 3])
    for _ in range(2):
        game.step(np.zeros(2, dtype=np.int64))
    # without the restart, the third step overall (the first after the reset) would detect
    assert game.detector.seen == [[0, 1], [0, 1]]
    game.step(np.zeros(2, dtype=np.int64))
    assert game.detector.seen[-1] == [3, 4]


def test_every_one_detects_every_frame_and_a_finished_copy_publishes_nothing() -> None:
    game = detect_game(every=1)
    game.reset([0, 1])
    for _ in range(5):
        out = game.step(np.zeros(2, dtype=np.int64))
    assert game.detector.seen == [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5]]
    assert out.info[DETECTIONS_KEY][1] is None and len(out.info[DETECTIONS_KEY][0].crops) == 1


@pytest.mark.parametrize("every", [0, -2, True, 2.5, "4"])
def test_a_bad_every_is_a_value_error(every) -> None:
    with pytest.raises(ValueError, match="every must be a positive number of steps between detections"):
        wrap(Walk(), [("detect", {"every": every})])
