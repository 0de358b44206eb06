"""What the engine reads of a Gymnasium game that declares little: spec and state features."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from gymnasium import spaces

from games.core.base import GameSpec, GameSpecError
from games.adapter.derived_features import CELL_LEVELS, ImageCells, PooledVector
from games.adapter.vector_game import GymVectorGame
from games.adapter.spec import DEFAULT_BINS, with_learned_cells
from tests.games.plugin_envs import SIZE, ContradictorySpec, FrameAndPosition, OwnFeatures, PixelWalk, WideObservation


def test_own_state_features_are_honoured_without_a_spec() -> None:
    with GymVectorGame(OwnFeatures, 3) as game:
        spec = game.game_spec
        assert spec.n_features == 2 and spec.feature_bins == (DEFAULT_BINS,) * 2
        # No bounds declared: the features are open, their cells learned by the run's probe.
        assert spec.feature_open == (True, True) and not spec.cells_known
        _, feats = game.reset([1, 2, 3])
        np.testing.assert_array_equal(feats, np.zeros((3, 2)))
        step = game.step(np.array([0, 0, 0]))
        assert step.features.shape == (3, 2) and not step.errors


def test_learned_cells_keep_every_column_apart_beyond_what_the_first_episodes_reached() -> None:
    """A grid game whose first episodes stayed in columns 0 to 8: each later column is a
    cell of its own, never one edge bucket (the two-room game of issue 26)."""
    with GymVectorGame(OwnFeatures, 1) as game:
        spec = game.game_spec
    first_room = np.array([(x, y) for x in range(9) for y in range(7)], dtype=np.float64)
    learned = with_learned_cells(spec, first_room)
    assert learned.cells_known and spec.key_space() is None
    beyond = np.array([(x, 3.0) for x in range(9, 40)])
    columns = learned.buckets(beyond)[:, 0]
    np.testing.assert_array_equal(columns, np.arange(9, 40))  # one cell a column, on and on
    assert len(set(learned.bucket_keys(beyond).tolist())) == 31
    # Continuous features: a tenth of the range the first episodes covered.
    smooth = with_learned_cells(spec, np.random.default_rng(0).uniform(0, 5, (500, 2)))
    width = (np.asarray(smooth.feature_high) - np.asarray(smooth.feature_low)) / DEFAULT_BINS
    assert width == pytest.approx([0.5, 0.5], rel=0.01)


def test_a_spec_the_engine_learned_is_taken_by_every_copy_without_a_reset() -> None:
    """Copies made with the engine's spec (its learned cells) do not reset the game to
    derive one of their own, in this process or in a worker."""
    with GymVectorGame(OwnFeatures, 1) as game:
        learned = with_learned_cells(game.game_spec, np.zeros((1, 2)))
    with GymVectorGame(_NoReset, 2, spec=learned) as game:
        assert game.game_spec == learned
    with GymVectorGame(_NoReset, 1, step_timeout_s=30.0, spec=learned) as game:
        assert game.game_spec == learned


def test_a_flat_observation_of_28_floats_is_its_own_features() -> None:
    with GymVectorGame(WideObservation, 2) as game:
        spec = game.game_spec
        assert spec.n_features == 28 and spec.feature_low == (0.0,) * 28 and spec.feature_high == (1.0,) * 28
        obs, feats = game.reset([0, 1])
        np.testing.assert_allclose(feats, obs)


def test_frames_get_go_explore_cells() -> None:
    with GymVectorGame(PixelWalk, 2) as game:
        spec = game.game_spec
        assert spec.obs_shape == (3, 84, 84)  # Gymnasium's (H, W, C) handed on as frames
        assert spec.n_features == 88 and spec.feature_bins == (CELL_LEVELS,) * 88
        assert spec.feature_low == (0.0,) * 88 and spec.feature_high == (255.0,) * 88  # the declared range
        _, start = game.reset([0, 1])
        np.testing.assert_array_equal(start[0], start[1])  # the same frame, the same cell
        assert start.min() >= 0 and start.max() <= 255  # the cells' mean values
        assert set(np.unique(spec.buckets(start))) <= set(range(CELL_LEVELS))  # 8 levels
        moved = start
        for _ in range(6):
            moved = game.step(np.array([0, 2])).features  # right, down
        assert not np.array_equal(moved[0], start[0]) and not np.array_equal(moved[1], start[1])
        assert not np.array_equal(moved[0], moved[1])


@pytest.mark.parametrize("step_timeout_s", [None, 30.0], ids=["in_process", "isolated"])
def test_a_frame_game_hands_on_its_frames_digests_where_the_cells_cannot_tell(
    step_timeout_s: float | None,
) -> None:
    """Cells are a coarse summary of the frame: the spec says so, and a copy asked for
    ``obs_digest`` gives each step's frame CRC, which changes when the frame does."""
    with GymVectorGame(PixelWalk, 1) as game:
        assert game.game_spec.coarse_features
    with GymVectorGame(WideObservation, 1) as game:
        assert not game.game_spec.coarse_features  # its features are the observation itself
    with GymVectorGame(PixelWalk, 2, step_timeout_s=step_timeout_s, info_keys=("obs_digest",)) as game:
        game.reset([0, 0])
        digests = []
        for _ in range(20):
            step = game.step(np.array([0, 1]))  # right (moves but for lost moves), up (a wall)
            assert zlib.crc32(step.obs[0].tobytes()) == step.info["obs_digest"][0]
            digests.append(step.info["obs_digest"])
    moving, walled = np.array(digests).T
    assert len(set(moving)) > 5 and len(set(walled)) == 1


def test_a_frame_beside_a_position_keeps_the_position_as_features() -> None:
    """A ``Dict`` of a frame and two numbers: the frame gets its cells, the numbers stay
    themselves (averaged down whole, they were two values among 3,074)."""
    with GymVectorGame(FrameAndPosition, 2) as game:
        spec = game.game_spec
        assert spec.n_features == 88 + 2 and spec.feature_names[-2:] == ("pos0", "pos1")
        assert spec.feature_names[0] == "frame.cell0_0" and spec.coarse_features
        assert spec.feature_bins[-2:] == (DEFAULT_BINS, DEFAULT_BINS) and spec.feature_high[-2:] == (1.0, 1.0)
        _, start = game.reset([0, 1])
        for _ in range(3):
            moved = game.step(np.array([0, 2])).features  # down, right
        np.testing.assert_array_equal(start[:, -2:], 0.0)
        assert moved[0, -1] > 0 and moved[1, -2] > 0  # each position moved along its own axis


def test_image_cells_read_channels_first_stacks_and_grey_frames() -> None:
    stack = np.zeros((4, 48, 40), dtype=np.float32)
    stack[:, :6, :4] = 255
    cells = ImageCells.for_space(stack.shape, np.zeros(stack.shape), np.full(stack.shape, 255.0))
    assert not cells.channels_last and cells.n_features == 88
    out = cells(stack.reshape(-1)).reshape(8, 11)
    assert out[0, 0] == 255 and out[1:, 1:].max() == 0
    grey = ImageCells.for_space((5, 7), np.zeros((5, 7)), np.ones((5, 7)))
    assert grey.n_features == 35  # smaller than a cell grid: one cell a pixel
    np.testing.assert_array_equal(grey(np.full(35, 0.5)), np.full(35, 0.5))


def _frame_spec(n: int) -> GameSpec:
    return GameSpec(obs_shape=(3, 7, 7), n_actions=3, feature_names=tuple(f"image.cell0_{j}" for j in range(n)),
                    feature_low=(0.0,) * n, feature_high=(255.0,) * n, feature_bins=(CELL_LEVELS,) * n,
                    max_steps=10, coarse_features=True)


def test_a_frame_of_grey_levels_keeps_go_explore_eight_levels() -> None:
    seen = np.random.default_rng(0).uniform(0, 255, size=(500, 4))
    assert with_learned_cells(_frame_spec(4), seen) == _frame_spec(4)


def test_a_frame_of_codes_gets_a_level_per_code() -> None:
    """MiniGrid's grid says 0 to 255 and holds object codes 0 to 10: read as 8 grey levels of
    32 values, every frame of the game was one cell. Each code seen is a level of its own."""
    codes = np.array([0.0, 1 / 3, 2 / 3, 7 / 3, 3.0, 10 / 3])
    seen = np.random.default_rng(0).choice(codes, size=(300, 5))
    spec = with_learned_cells(_frame_spec(5), seen)
    assert len(set(spec.feature_low)) == 1 and len(set(spec.feature_bins)) == 1  # one size a frame
    levels = spec.buckets(np.tile(codes, (5, 1)).T)  # each code in every cell
    assert [len(set(levels[:, j])) for j in range(5)] == [6] * 5


def test_a_long_vector_is_averaged_down() -> None:
    pooled = PooledVector(1000, 128)
    out = pooled(np.arange(1000, dtype=np.float64))
    assert out.shape == (128,) and np.all(np.diff(out) > 0)
    low, high = pooled.bounds(np.zeros(1000), np.full(1000, 2.0))
    np.testing.assert_array_equal(low, 0.0)
    np.testing.assert_array_equal(high, 2.0)


def test_a_spec_that_contradicts_state_features_fails_at_the_first_reset_in_one_line() -> None:
    """Found where the game first plays, not by resetting it in the engine's process when it
    is built (a game may kill the process that resets it)."""
    with GymVectorGame(ContradictorySpec, 2) as game:
        with pytest.raises(GameSpecError, match=r"state_features returns 2 values but its game_spec names 5"):
            game.reset([0, 1])


def test_a_spec_mistake_in_a_worker_process_is_the_same_error() -> None:
    with GymVectorGame(ContradictorySpec, 1, step_timeout_s=30.0) as game:
        with pytest.raises(GameSpecError, match=r"game_spec names 5"):
            game.reset([0])


class _NoReset(OwnFeatures):
    def reset(self, *, seed=None, options=None):
        raise RuntimeError("level file missing")


def test_own_features_of_a_game_that_cannot_reset_is_one_line_at_start() -> None:
    with pytest.raises(GameSpecError, match="could not be reset to count them"):
        GymVectorGame(_NoReset, 1)


def test_a_non_discrete_action_space_is_a_spec_error() -> None:
    class Continuous(OwnFeatures):
        def __init__(self) -> None:
            super().__init__()
            self.action_space = spaces.Box(-1, 1, (2,))

    with pytest.raises(GameSpecError, match="the engine plays Discrete actions"):  # not through a factory
        GymVectorGame(Continuous, 1)


def test_the_walk_reaches_its_goal() -> None:
    """The test games are real games: a straight path reaches the goal and ends."""
    env = OwnFeatures()
    env.reset(seed=0)
    done, steps = False, 0
    while not done and steps < 60:
        _, reward, done, _, _ = env.step(0 if steps % 2 else 2)
        steps += 1
    assert done and reward == 1.0 and (env.pos == SIZE - 1).all()
