"""Montezuma's Revenge: Go-Explore's cells read from the RAM, and episodes that replay."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ale_py")

from games.atari.montezuma import FEATURES, MontezumaVector  # noqa: E402

RIGHT, LEFT = 3, 4  # indices in the minimal action set (NOOP, FIRE, UP, RIGHT, LEFT, ...)


def test_the_spec_is_the_ram_and_go_explores_cells() -> None:
    game = MontezumaVector(1)
    spec = game.game_spec
    assert spec.obs_shape == (128,) and spec.obs_dtype == "uint8" and spec.n_actions == 18
    assert spec.feature_names == FEATURES and spec.key_space() == 10 * 8 * 24 * 3 * 9
    obs, features = game.reset([0])
    assert obs.dtype == np.uint8
    # Panama Joe starts in room 1 of level 0, on the middle ladder's top, holding nothing.
    assert features[0].tolist() == [77.0, 235.0, 1.0, 0.0, 0.0]


def test_walking_moves_joe_along_x() -> None:
    game = MontezumaVector(2)
    _, start = game.reset([0, 0])
    for _ in range(6):
        step = game.step(np.array([RIGHT, LEFT]))
    assert step.features[0, 0] > start[0, 0] > step.features[1, 0]
    assert (step.features[:, 2] == 1).all()


def test_the_same_seed_and_actions_replay_the_same_episode() -> None:
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 18, size=(120, 3))
    actions[:, 2] = actions[:, 0]
    runs = []
    for _ in range(2):
        game = MontezumaVector(3, noop_max=30)
        _, f = game.reset([5, 6, 5])
        trace = [f]
        for a in actions:
            trace.append(game.step(a).features)
        runs.append(np.stack(trace))
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0][:, 0], runs[0][:, 2])  # copies with one seed agree


def test_bad_kwargs_are_one_line() -> None:
    with pytest.raises(ValueError, match="frameskip must be an integer of at least 1, got 0"):
        MontezumaVector(1, frameskip=0)
