"""Games that show frames (``games.core.base.ShowsFrames``): what a replay video is made of."""

from __future__ import annotations

import numpy as np
import pytest

from games import GameFactory
from games.core.base import ShowsFrames
from games.maze.block_maze import BlockMazeVector
from games.core.wrappers import wrap


def _frames_after_steps(game, steps: int = 3) -> np.ndarray:
    game.reset(list(range(game.num_envs)))
    for _ in range(steps):
        game.step(np.zeros(game.num_envs, dtype=np.int64))
    return game.render_frames()


@pytest.mark.parametrize("timeout", [None, 30.0], ids=["in-process", "isolated"])
def test_a_gymnasium_env_renders_when_made_for_it(timeout: float | None) -> None:
    pytest.importorskip("pygame")  # CartPole draws with it
    factory = GameFactory(gym_id="CartPole-v1", step_timeout_s=timeout)
    rendering = factory.rendering()
    assert dict(rendering.kwargs) == {"render_mode": "rgb_array"}
    game = rendering.make_vector(2)
    try:
        frames = _frames_after_steps(game)
        assert frames.shape == (2, 400, 600, 3) and frames.dtype == np.uint8
        assert frames.std() > 0  # a cart and a pole on a white ground, not a blank image
    finally:
        game.close()
    plain = factory.make_vector(1)  # made without a render mode: it draws nothing
    try:
        assert _frames_after_steps(plain) is None
    finally:
        plain.close()


def test_a_game_with_a_vector_form_is_not_given_a_render_mode() -> None:
    factory = GameFactory(name="block_maze")
    assert factory.rendering() is factory
    assert not isinstance(factory.make_vector(1), ShowsFrames)  # drawn from its map instead
    assert BlockMazeVector.action_names == ("N", "S", "E", "W")


def test_mspacman_shows_its_screen_through_wrappers() -> None:
    pytest.importorskip("ale_py")
    from games.atari.mspacman import ACTION_NAMES, MsPacmanPerfVector

    game = wrap(MsPacmanPerfVector(2, obs_type="frames"), [("frame_stack", {"k": 2})])
    try:
        assert isinstance(game, ShowsFrames) and game.action_names == ACTION_NAMES
        frames = _frames_after_steps(game, 10)
        assert frames.shape == (2, 210, 160, 3) and frames.dtype == np.uint8
        assert len(np.unique(frames[0].reshape(-1, 3), axis=0)) > 3  # maze, dots, sprites
    finally:
        game.close()


def test_vizdoom_shows_its_screen() -> None:
    pytest.importorskip("vizdoom")
    from games.doom.vizdoom_game import VizDoomVector

    game = VizDoomVector(1, max_steps=10)
    try:
        assert game.render_frames() is None  # nothing rendered before a reset
        frames = _frames_after_steps(game, 2)
        assert frames.shape == (1, 240, 320, 3) and frames.std() > 0
        assert game.action_names[0] == "forward"
    finally:
        game.close()
