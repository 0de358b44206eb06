"""MsPacman with RELINE's tunnel-mouth performance bugs: Gymnasium conformance, exact replays,
the ALE vector form agreeing with the scalar game, a route through the four mouths that makes
exactly those steps slow, ground truth, bucket alignment, the frames observation (stacked by
the frame_stack wrapper) and kwargs checking."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

pytest.importorskip("ale_py")

from games import GameFactory, VectorGame  # noqa: E402
from games.mspacman import (  # noqa: E402
    FRAME_SHAPE, INTRO_FRAMES, MOUTHS, OBS_DIMS, REFERENCE_ROUTE, X_BINS, Y_BINS, MsPacmanPerf,
    MsPacmanPerfVector, features_of, mouth_of,
)
from games.wrappers import wrap  # noqa: E402
from oracles.base import Bug  # noqa: E402

HEAVY_MS = 20.0  # far above an ordinary step (about 0.3 ms), so a busy machine cannot blur it


def route_actions() -> list[int]:
    return [a for a, k in REFERENCE_ROUTE for _ in range(k)]


def bug(next_state: tuple[float, float], kind: str = "performance") -> Bug:
    return Bug(kind=kind, oracle="performance", signature="s", message="m", step=0,
               state=(80.0, 100.0), next_state=next_state, policy=0, episode_seed=0,
               actions=(0,))


@pytest.fixture(scope="module")
def env() -> MsPacmanPerf:
    return MsPacmanPerf(heavy_ms=0.0)


def play(env: MsPacmanPerf, seed: int, actions: list[int]) -> tuple[np.ndarray, np.ndarray]:
    obs, info = env.reset(seed=seed)
    all_obs, feats = [obs], [env.state_features(obs, info)]
    for a in actions:
        obs, _, terminated, truncated, info = env.step(a)
        all_obs.append(obs)
        feats.append(env.state_features(obs, info))
        if terminated or truncated:
            break
    return np.array(all_obs), np.array(feats)


def test_passes_gymnasium_check_env() -> None:
    check_env(MsPacmanPerf(), skip_render_check=True)


def test_registered_with_its_vector_form() -> None:
    factory = GameFactory(name="mspacman_perf", kwargs=(("heavy_ms", 1.0),))
    factory.validate()
    assert isinstance(factory.make_env(), MsPacmanPerf)
    game = factory.make_vector(2)
    assert isinstance(game, MsPacmanPerfVector) and isinstance(game, VectorGame)
    spec = game.game_spec
    assert (spec.obs_shape, spec.n_actions, spec.feature_names) == ((128,), 5, ("x", "y"))
    game.close()


def test_same_seed_and_actions_replay_exactly(env: MsPacmanPerf) -> None:
    actions = np.random.default_rng(0).integers(0, 5, 120).tolist()
    obs_a, feats_a = play(env, 7, actions)
    play(env, 3, actions[::-1])  # whatever was played in between
    obs_b, feats_b = play(env, 7, actions)
    np.testing.assert_array_equal(obs_a, obs_b)
    np.testing.assert_array_equal(feats_a, feats_b)
    # A fresh instance (its own ALE, ROM loaded anew) plays the same episode.
    obs_c, _ = play(MsPacmanPerf(heavy_ms=0.0), 7, actions)
    np.testing.assert_array_equal(obs_a, obs_c)
    # Seeds draw different no-op starts, so some episodes differ.
    starts = {env.reset(seed=s)[0].tobytes() for s in range(8)}
    assert len(starts) > 1


def test_reset_restores_what_a_freshly_started_game_plays(env: MsPacmanPerf) -> None:
    """The post-intro snapshot is exact: reset_game() plus the intro and the no-op frames,
    then the same actions, give the same RAM every step."""
    from ale_py import ALEInterface, roms

    seed = 11
    noops = int(np.random.default_rng(seed).integers(0, env.noop_max + 1))
    ale = ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(roms.get_rom_path("ms_pacman")))
    ale.reset_game()
    for _ in range(INTRO_FRAMES + noops):
        ale.act(0)
    ram = np.zeros(128, dtype=np.uint8)
    actions = np.random.default_rng(1).integers(0, 5, 60).tolist()
    obs, _ = play(env, seed, actions)
    codes = [0, 2, 3, 4, 5]
    for t in range(len(obs)):
        ale.getRAM(ram)
        np.testing.assert_array_equal(np.rint(obs[t] * 255).astype(np.uint8), ram)
        if t < len(actions):
            for _ in range(env.frameskip):
                ale.act(codes[actions[t]])


@pytest.mark.parametrize("obs_type", ["ram", "frames"])
def test_vector_form_equals_the_scalar_game_step_by_step(obs_type: str) -> None:
    seeds = [0, 1, 2, 3]
    n = len(seeds)
    vec = MsPacmanPerfVector(n, heavy_ms=0.0, max_steps=420, obs_type=obs_type)
    scalars = [MsPacmanPerf(heavy_ms=0.0, max_steps=420, obs_type=obs_type) for _ in seeds]
    try:
        obs, feats = vec.reset(seeds)
        for i, (e, seed) in enumerate(zip(scalars, seeds)):
            o, info = e.reset(seed=seed)
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(feats[i], e.state_features(o, info))
        rng = np.random.default_rng(0)
        done = np.zeros(n, dtype=bool)
        last_obs = obs.copy()
        for _ in range(430):
            # Copy 0 stands still until the ghosts take its three lives (game over about
            # step 410); the others play at random and some live to the horizon.
            actions = rng.integers(0, 5, n)
            actions[0] = 0
            step = vec.step(actions)
            for i, e in enumerate(scalars):
                if done[i]:
                    assert step.reward[i] == 0.0 and step.frame_ms[i] == 0.0
                    np.testing.assert_array_equal(step.obs[i], last_obs[i])
                    continue
                o, r, term, trunc, info = e.step(int(actions[i]))
                np.testing.assert_array_equal(step.obs[i], o)
                np.testing.assert_array_equal(step.features[i], e.state_features(o, info))
                assert (step.reward[i], step.terminated[i], step.truncated[i]) == (r, term, trunc)
                done[i] = term or trunc
            last_obs = step.obs.copy()
        assert done.all()
        assert step.terminated[0] and step.truncated.any()  # both ways an episode ends
    finally:
        vec.close()


def test_the_reference_route_passes_all_four_mouths_and_only_they_are_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = MsPacmanPerf(noop_max=0, heavy_ms=HEAVY_MS)
    actions = route_actions()
    assert len(actions) == 77 <= env.game_spec.max_steps
    calls: list[float] = []
    monkeypatch.setattr("games.mspacman.heavy_operation", lambda ms, clock="wall": calls.append(ms) or ms)
    _, feats = play(env, 0, actions)
    assert len(feats) == len(actions) + 1  # no game over on the way
    mouths = mouth_of(feats[1:, 0], feats[1:, 1])
    assert sorted(set(mouths.tolist()) - {-1}) == [0, 1, 2, 3]
    assert all((mouths == i).sum() >= 2 for i in range(4))
    assert len(calls) == int((mouths >= 0).sum())  # a heavy operation per mouth step, no more


def test_steps_in_a_mouth_really_take_heavy_ms() -> None:
    env = MsPacmanPerf(noop_max=0, heavy_ms=HEAVY_MS)
    env.reset(seed=0)
    slow, fast, seen = [], [], set()
    for a in route_actions():
        start = time.perf_counter()
        obs, *_ = env.step(a)
        ms = (time.perf_counter() - start) * 1000.0
        mouth = int(mouth_of(*env.state_features(obs, {})))
        (slow if mouth >= 0 else fast).append(ms)
        seen.add(mouth)
    assert seen == {-1, 0, 1, 2, 3}
    assert min(slow) >= 0.75 * HEAVY_MS  # heavy_operation busy-waits the full 20 ms
    assert np.median(fast) < 5.0  # an ordinary step is four emulated frames

    # The vector form charges the heavy time to the copy in the mouth, not to its neighbour.
    vec = MsPacmanPerfVector(2, noop_max=0, heavy_ms=HEAVY_MS)
    vec.reset([0, 0])
    charged, neighbour = [], []
    for a in route_actions():
        step = vec.step(np.array([a, 0]))  # copy 1 stays in the start corridor
        in_mouth = mouth_of(step.features[:, 0], step.features[:, 1]) >= 0
        assert not in_mouth[1]
        if in_mouth[0]:
            charged.append(step.frame_ms[0])
            neighbour.append(step.frame_ms[1])
    vec.close()
    assert len(charged) == len(slow) and min(charged) >= HEAVY_MS
    assert np.median(neighbour) < 5.0


def test_the_cpu_clock_charges_the_heavy_operation_and_no_scheduler_delay() -> None:
    """clock='cpu': frame times are the emulator thread's CPU time; a mouth step burns
    heavy_ms of it, an ordinary step a fraction of a millisecond however busy the machine."""
    vec = MsPacmanPerfVector(1, noop_max=0, heavy_ms=HEAVY_MS, clock="cpu")
    vec.reset([0])
    slow, fast = [], []
    for a in route_actions():
        step = vec.step(np.array([a]))
        in_mouth = mouth_of(step.features[:, 0], step.features[:, 1])[0] >= 0
        (slow if in_mouth else fast).append(step.frame_ms[0])
    vec.close()
    assert slow and min(slow) >= HEAVY_MS
    assert max(fast) < 0.25 * HEAVY_MS


def test_no_slow_steps_without_injected_bugs(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    monkeypatch.setattr("games.mspacman.heavy_operation", calls.append)
    env = MsPacmanPerf(noop_max=0, inject_bugs=False)
    play(env, 0, route_actions())
    assert calls == [] and env.injected_bugs == [] and env.match(bug((4.0, 56.0))) is None


def test_injected_bugs_and_match(env: MsPacmanPerf) -> None:
    assert [(b.id, b.kind, b.location) for b in env.injected_bugs] == [
        (0, "performance", (4.0, 56.0)), (1, "performance", (156.0, 56.0)),
        (2, "performance", (4.0, 104.0)), (3, "performance", (156.0, 104.0)),
    ]
    # Sprite centres Pac-Man really takes in the tunnels (ram_x 12..16, 169..171 | 161..168).
    assert env.match(bug((0.5, 55.5))) == 0
    assert env.match(bug((7.5, 55.5))) == 0
    assert env.match(bug((152.5, 55.5))) == 1
    assert env.match(bug((2.5, 103.5))) == 2
    assert env.match(bug((159.5, 103.5))) == 3
    assert env.match(bug((8.5, 55.5))) is None  # one step further into the maze
    assert env.match(bug((151.5, 103.5))) is None
    assert env.match(bug((79.5, 103.5))) is None  # the start
    assert env.match(bug((4.0, 79.5))) is None  # no tunnel on that row
    assert env.match(bug((4.0, 56.0), kind="stuck")) is None


def test_each_mouth_is_exactly_one_bucket_and_nothing_else(env: MsPacmanPerf) -> None:
    spec = env.game_spec
    ram_x, ram_y = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    feats = features_of(ram_x.ravel(), ram_y.ravel())
    mouths = mouth_of(feats[:, 0], feats[:, 1])
    keys = spec.bucket_keys(feats)
    mouth_keys = spec.bucket_keys(np.array([b.location for b in env.injected_bugs]))
    # Every RAM position: in a mouth box <=> in that mouth's bucket.
    for i, key in enumerate(mouth_keys):
        np.testing.assert_array_equal(mouths == i, keys == key)
    # The boxes are whole buckets: their edges are bucket edges.
    width = np.subtract(spec.feature_high, spec.feature_low) / spec.feature_bins
    for x0, x1, y0, y1 in MOUTHS:
        for v, j in ((x0, 0), (x1, 0), (y0, 1), (y1, 1)):
            k = (v - spec.feature_low[j]) / width[j]
            assert k == pytest.approx(round(k))


def test_render_map_frees_every_cell_the_route_visits(env: MsPacmanPerf) -> None:
    walls = env.render_map()
    assert walls.shape == env.game_spec.feature_bins
    _, feats = play(MsPacmanPerf(noop_max=0, heavy_ms=0.0), 0, route_actions())
    cells = env.game_spec.buckets(feats)
    assert not walls[cells[:, 0], cells[:, 1]].any()
    assert walls.sum() == walls.size - 158


def test_episodes_are_truncated_at_max_steps() -> None:
    env = MsPacmanPerf(max_steps=5, heavy_ms=0.0)
    env.reset(seed=1)
    results = [env.step(3) for _ in range(5)]
    assert [r[3] for r in results] == [False] * 4 + [True]
    assert MsPacmanPerf().game_spec.max_steps == 500


def test_the_intro_is_skipped_unless_asked() -> None:
    def x_after(env: MsPacmanPerf, steps: int) -> tuple[float, float]:
        obs, info = env.reset(seed=0)
        before = env.state_features(obs, info)[0]
        for _ in range(steps):
            obs, *_ = env.step(2)  # RIGHT
        return before, env.state_features(obs, {})[0]

    # Played: the game ignores the joystick for the 66 steps of the intro, then obeys.
    intro = MsPacmanPerf(noop_max=0, skip_intro=False, heavy_ms=0.0)
    start, after = x_after(intro, INTRO_FRAMES // intro.frameskip)
    assert after == start
    assert intro.state_features(intro.step(2)[0], {})[0] > start
    # Skipped (the default): the first step already moves Pac-Man.
    start, after = x_after(MsPacmanPerf(noop_max=0, heavy_ms=0.0), 1)
    assert after > start


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
        GameFactory(entry_point="games.mspacman:MsPacmanPerf", kwargs=(("obs_type", "frames"),)),
    ):
        assert factory.spec().obs_shape == (1, *FRAME_SHAPE)
        assert replace(factory, wrappers=stack).spec().obs_shape == (4, *FRAME_SHAPE)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"obs_type": "pixels"}, "obs_type must be one of ram, features, frames"),
        ({"heavy_ms": -1.0}, "heavy_ms must be >= 0"),
        ({"max_steps": 0}, "max_steps must be positive"),
        ({"frameskip": 0}, "frameskip must be positive"),
        ({"noop_max": -1}, "noop_max must be >= 0"),
        ({"clock": "sundial"}, "clock must be one of wall, cpu"),
    ],
)
def test_bad_kwargs_say_what_is_wrong(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MsPacmanPerf(**kwargs)
    with pytest.raises(ValueError, match=message):
        MsPacmanPerfVector(1, **kwargs)


def test_bad_calls_say_what_is_wrong(env: MsPacmanPerf) -> None:
    with pytest.raises(ValueError, match="num_envs must be at least 1"):
        MsPacmanPerfVector(0)
    vec = MsPacmanPerfVector(2, heavy_ms=0.0)
    with pytest.raises(ValueError, match="reset got 1 seeds for 2 copies"):
        vec.reset([0])
    vec.reset([0, 1])
    with pytest.raises(ValueError, match="step needs 2 actions"):
        vec.step(np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"actions must be in 0\.\.4"):
        vec.step(np.array([0, 5]))
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions must be in 0\.\.4"):
        env.step(-1)


def test_observation_kwargs_do_not_make_another_game() -> None:
    """evo evaluate compares agents that play from RAM, features or pixels as one game."""
    ram = GameFactory(name="mspacman_perf", kwargs=(("heavy_ms", 2.0),))
    pixels = GameFactory(name="mspacman_perf", kwargs=(("heavy_ms", 2.0), ("obs_type", "frames")),
                         wrappers=(("frame_stack", (("k", 2),)),))
    assert ram.played() == pixels.played()
    assert ram.played() != GameFactory(name="mspacman_perf", kwargs=(("heavy_ms", 5.0),)).played()
