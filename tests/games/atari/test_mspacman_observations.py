"""MsPacman's observations: the features read from RAM, the screen frames (stacked by the
frame_stack wrapper) against an ALE driven by hand, and that what an agent observes does not
make another game."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

pytest.importorskip("ale_py")

from games import GameFactory  # noqa: E402
from games.atari.mspacman import (  # noqa: E402
    FRAME_SHAPE, INTRO_FRAMES, OBS_DIMS, X_BINS, Y_BINS, MsPacmanPerf, MsPacmanPerfVector,
)
from games.core.wrappers import wrap  # noqa: E402
from tests.games.atari.test_mspacman import play, route_actions  # noqa: E402


def test_features_observation_shows_where_pacman_and_the_ghosts_are() -> None:
    ram_env = MsPacmanPerf(heavy_ms=0.0, noop_max=0)
    env = MsPacmanPerf(heavy_ms=0.0, noop_max=0, obs_type="features")
    assert env.observation_space.shape == (OBS_DIMS["features"],) == env.game_spec.obs_shape
    ram_obs, ram_feats = play(ram_env, 0, route_actions())
    obs, feats = play(env, 0, route_actions())
    # The same game: the features observation gives the same position as the RAM does.
    np.testing.assert_array_equal(feats, ram_feats)
    ram = np.rint(ram_obs * 255).astype(int)
    cells = obs[:, 15:15 + X_BINS * Y_BINS].reshape(len(obs), X_BINS, Y_BINS)
    assert (cells.sum(axis=(1, 2)) == 1).all() and (obs[:, 2:6].sum(axis=1) == 1).all()
    buckets = env.game_spec.buckets(feats)
    for t in range(len(obs)):
        assert cells[t, buckets[t, 0], buckets[t, 1]] == 1  # the cell Pac-Man is in
        # Ghost 0 (RAM bytes 6 and 12) relative to Pac-Man (bytes 10 and 16).
        assert obs[t, 6] == pytest.approx((ram[t, 6] - ram[t, 10]) / 160, abs=1e-6)
        assert obs[t, 7] == pytest.approx((ram[t, 12] - ram[t, 16]) / 170, abs=1e-6)
    # The dots left: one bit clears for each dot eaten (the game counts them in RAM byte 119),
    # and none ever comes back.
    dots = obs[:, 15 + X_BINS * Y_BINS:]
    assert dots.shape[1] == 42 and dots[0].sum() * 8 > 100
    eaten = -np.diff(dots.sum(axis=1) * 8).round()
    assert (eaten >= 0).all()
    np.testing.assert_array_equal(eaten, np.diff(ram[:, 119]))
    assert eaten.sum() > 10
    # The route goes left, up, left, ...: the direction one-hot follows the joystick.
    assert obs[5, 2 + 3] == 1 and obs[12, 2 + 0] == 1
    # The vector form observes the same.
    game = MsPacmanPerfVector(2, heavy_ms=0.0, noop_max=0, obs_type="features")
    first, _ = game.reset([0, 0])
    np.testing.assert_array_equal(first[0], obs[0])
    for t, a in enumerate(route_actions()[:20]):
        np.testing.assert_array_equal(game.step(np.array([a, a])).obs[1], obs[t + 1])
    check_env(env, skip_render_check=True)


def screen_frames(seed: int, actions: list[int], noop_max: int = 30, frameskip: int = 4) -> tuple[list[np.ndarray], int]:
    """Every grayscale frame of an episode from an ALE started by hand: power-on, the intro
    and the seed's no-op frames, then each action held for ``frameskip`` frames. Returns the
    frames and the index of the frame the episode starts on."""
    from ale_py import ALEInterface, roms

    noops = int(np.random.default_rng(seed).integers(0, noop_max + 1))
    ale = ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(roms.get_rom_path("ms_pacman")))
    ale.reset_game()
    frames = []

    def grab() -> None:
        frames.append(np.zeros((210, 160), dtype=np.uint8))
        ale.getScreenGrayscale(frames[-1])

    grab()
    for _ in range(INTRO_FRAMES + noops):
        ale.act(0)
        grab()
    start = len(frames) - 1
    for a in actions:
        for _ in range(frameskip):
            ale.act([0, 2, 3, 4, 5][a])
            grab()
    return frames, start


def downsampled(before: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """The documented downsampling, written plainly: the max of two frames, rows 3..194,
    the max of each 4 x 4 block (gray levels, uint8)."""
    return np.maximum(before, frame)[3:195].reshape(48, 4, 40, 4).max(axis=(1, 3))


@pytest.mark.parametrize(("seed", "noops"), [(27, 0), (23, 1), (11, 4)])
def test_frames_are_the_screen_downsampled_and_stacked(seed: int, noops: int) -> None:
    """Each observation is the screen downsampled; the frame_stack wrapper shifts its stack by
    one frame per step and a reset fills it with its first frame. Seeds with 0 and 1 no-op
    frames start on the frames of the post-intro snapshot, which ``restoreState`` does not
    restore."""
    env = MsPacmanPerf(heavy_ms=0.0, obs_type="frames")
    actions = route_actions()[:30]
    frames, start = screen_frames(seed, actions)
    assert start - INTRO_FRAMES == noops
    play(env, 3, actions[::-1])  # another episode first: its screen must not leak into reset
    obs, feats = play(env, seed, actions)

    assert obs.shape == (len(actions) + 1, 1, *FRAME_SHAPE) and obs.dtype == np.float32
    assert env.observation_space.shape == env.game_spec.obs_shape == (1, 48, 40)
    assert 0.0 <= obs.min() and obs.max() <= 1.0
    levels = np.rint(obs * 255.0)
    np.testing.assert_allclose(obs, levels / 255.0, rtol=1e-6)  # gray levels / 255
    pooled = [downsampled(frames[start - 1], frames[start])]
    for t in range(1, len(actions) + 1):
        at = start + 4 * t
        pooled.append(downsampled(frames[at - 1], frames[at]))
    np.testing.assert_array_equal(levels[:, 0], np.stack(pooled))
    assert (levels[:, 0] == 167).any(axis=(1, 2)).all()  # Pac-Man's gray is in every frame

    game = wrap(MsPacmanPerfVector(1, heavy_ms=0.0, obs_type="frames"), [("frame_stack", {"k": 4})])
    assert game.game_spec.obs_shape == (4, 48, 40)
    stacked = [game.reset([seed])[0][0]] + [game.step(np.array([a])).obs[0] for a in actions]
    stacked_levels = np.rint(np.array(stacked) * 255.0)
    for t in range(len(stacked)):
        expected = [pooled[max(s, 0)] for s in range(t - 3, t + 1)]  # oldest first
        np.testing.assert_array_equal(stacked_levels[t], np.stack(expected))
    stacked = np.array(stacked)
    assert all((stacked[0] == stacked[0, -1]).all(axis=(1, 2)))  # reset: four copies of one frame
    np.testing.assert_array_equal(stacked[1:, :-1], stacked[:-1, 1:])  # one frame in, the oldest out
    game.close()


def test_frames_keep_the_features_of_the_ram_and_pass_check_env() -> None:
    """The position (state features, and so coverage, mouths and bug locations) is the same
    whatever the observation: with frames it is read from the RAM, not from the pixels."""
    _, ram_feats = play(MsPacmanPerf(heavy_ms=0.0, noop_max=0), 0, route_actions())
    env = MsPacmanPerf(heavy_ms=0.0, noop_max=0, obs_type="frames")
    obs, feats = play(env, 0, route_actions())
    np.testing.assert_array_equal(feats, ram_feats)
    assert obs.shape[1:] == env.game_spec.obs_shape == (1, *FRAME_SHAPE)
    game = MsPacmanPerfVector(1, heavy_ms=0.0, noop_max=0, obs_type="frames")
    first, vec_feats = game.reset([0])
    np.testing.assert_array_equal(first[0], obs[0])
    for t, a in enumerate(route_actions()):
        step = game.step(np.array([a]))
        np.testing.assert_array_equal(step.obs[0], obs[t + 1])
        np.testing.assert_array_equal(step.features[0], ram_feats[t + 1])
    game.close()
    check_env(env, skip_render_check=True)


def test_frames_through_the_registry_keep_their_image_shape() -> None:
    """The policy reads the image layout from the spec, by name and by entry point alike,
    with the wrappers' shape when there are some."""
    stack = (("frame_stack", (("k", 4),)),)
    for factory in (
        GameFactory(name="mspacman_perf", kwargs=(("obs_type", "frames"),)),
        GameFactory(entry_point="games.atari.mspacman:MsPacmanPerf", kwargs=(("obs_type", "frames"),)),
    ):
        assert factory.spec().obs_shape == (1, *FRAME_SHAPE)
        assert replace(factory, wrappers=stack).spec().obs_shape == (4, *FRAME_SHAPE)


def test_observation_kwargs_do_not_make_another_game() -> None:
    """evo evaluate compares agents that play from RAM, features or pixels as one game."""
    ram = GameFactory(name="mspacman_perf", kwargs=(("heavy_ms", 2.0),))
    pixels = GameFactory(name="mspacman_perf", kwargs=(("heavy_ms", 2.0), ("obs_type", "frames")),
                         wrappers=(("frame_stack", (("k", 2),)),))
    assert ram.played() == pixels.played()
    assert ram.played() != GameFactory(name="mspacman_perf", kwargs=(("heavy_ms", 5.0),)).played()
