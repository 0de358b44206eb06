"""Random starts on the park (PPGTA's evaluation): a walkable cell drawn from the episode's seed,
the same seed the same start and frames; the default start is the map's."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("vizdoom")

from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.doom.park.navigation import walkable  # noqa: E402


def test_random_starts_are_walkable_cells_drawn_from_the_episode_seed() -> None:
    game = DoomParkVector(3, level_seed=0, start="random", max_steps=3)
    try:
        obs, features = game.reset([11, 12, 11])
        free = walkable(game.layout)
        cells = (features[:, :2] // 64).astype(int)
        assert free[cells[:, 0], cells[:, 1]].all()
        assert np.allclose(features[:, :2] % 64, 32)  # a cell's centre
        assert not np.allclose(features[0, :2], features[1, :2])  # another seed, another place
        assert np.array_equal(features[0], features[2]) and np.array_equal(obs[0], obs[2])  # same seed
        step = game.step(np.zeros(3, dtype=np.int64))  # forward: the first step moves
        assert not np.allclose(step.features[:, :2], features[:, :2])
        starts = {tuple(game.reset([s, s + 1, s + 2])[1][0, :2]) for s in range(0, 30, 3)}
        assert len(starts) >= 8  # spread over the park
    finally:
        game.close()


def test_the_default_start_is_the_maps_and_a_bad_start_is_one_line() -> None:
    game = DoomParkVector(1, level_seed=0, max_steps=3)
    try:
        _, features = game.reset([5])
        assert tuple(features[0, :2]) == game.layout.start[:2]
    finally:
        game.close()
    with pytest.raises(ValueError, match="start must be one of fixed, random, got 'anywhere'"):
        DoomParkVector(1, level_seed=0, start="anywhere")
