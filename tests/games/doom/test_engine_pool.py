"""A closed park copy hands its engine to the next one, which plays as a fresh engine would."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("vizdoom")

from games.doom import engine_pool  # noqa: E402
from games.doom.park.doom_park import ACTIONS, DoomParkVector  # noqa: E402


def _frames(game: DoomParkVector, seed: int, actions: np.ndarray) -> np.ndarray:
    frames = [game.reset([seed] * game.num_envs)[0][0]]
    for a in actions:
        frames.append(game.step(np.full(game.num_envs, a)).obs[0])
    return np.array(frames)


def test_a_reused_engine_plays_the_same_episode_as_a_fresh_one() -> None:
    actions = np.random.default_rng(3).integers(len(ACTIONS), size=25)
    engine_pool.close_idle()
    fresh = DoomParkVector(1, level_seed=1, max_steps=40)
    expected = _frames(fresh, 7, actions)
    fresh.close()
    busy = DoomParkVector(2, level_seed=1, max_steps=40)  # one engine taken, one started
    assert engine_pool.idle_engines() == 0
    _frames(busy, 11, actions[::-1])  # another episode, half played, in both
    busy.close()
    assert engine_pool.idle_engines() == 2
    reused = DoomParkVector(1, level_seed=1, max_steps=40)
    try:
        assert engine_pool.idle_engines() == 1
        np.testing.assert_array_equal(_frames(reused, 7, actions), expected)
    finally:
        reused.close()
        engine_pool.close_idle()
    assert engine_pool.idle_engines() == 0


def test_a_stopped_or_failed_engine_is_not_handed_on() -> None:
    engine_pool.close_idle()
    game = DoomParkVector(1, level_seed=1, max_steps=40)
    game.copies[0].game.close()  # the engine died under the copy
    game.close()
    assert engine_pool.idle_engines() == 0
    failed = DoomParkVector(1, level_seed=1, max_steps=40)
    failed.copies[0].close(reuse=False)  # a copy whose step raised: its engine is stopped
    failed.close()
    assert engine_pool.idle_engines() == 0
