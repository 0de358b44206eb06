"""MsPacman with RELINE's tunnel-mouth performance bugs: Gymnasium conformance, exact replays,
the ALE vector form agreeing with the scalar game, a route through the four mouths that makes
exactly those steps slow, ground truth, bucket alignment and kwargs checking (the
observations are in test_mspacman_observations.py)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

pytest.importorskip("ale_py")

from games import GameFactory, VectorGame  # noqa: E402
from games.atari.mspacman import (  # noqa: E402
    INTRO_FRAMES, MOUTHS, REFERENCE_ROUTE, MsPacmanPerf, MsPacmanPerfVector, features_of, mouth_of,
)
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


def test_the_reference_route_passes_all_four_mouths_and_only_they_are_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = MsPacmanPerf(noop_max=0, heavy_ms=HEAVY_MS)
    actions = route_actions()
    assert len(actions) == 77 <= env.game_spec.max_steps
    calls: list[float] = []
    monkeypatch.setattr("games.atari.mspacman.heavy_operation", lambda ms, clock="wall": calls.append(ms) or ms)
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
    heavy_ms of it, an ordinary step a fraction of a millisecond however busy the machine.
    An ordinary step's CPU time may still hold work of this thread that is not the game's (a
    garbage collection: 6.8 ms once on a loaded machine), never the heavy operation's."""
    vec = MsPacmanPerfVector(1, noop_max=0, heavy_ms=HEAVY_MS, clock="cpu")
    vec.reset([0])
    slow, fast = [], []
    for a in route_actions():
        step = vec.step(np.array([a]))
        in_mouth = mouth_of(step.features[:, 0], step.features[:, 1])[0] >= 0
        (slow if in_mouth else fast).append(step.frame_ms[0])
    vec.close()
    assert slow and min(slow) >= HEAVY_MS
    assert np.median(fast) < 0.1 * HEAVY_MS and max(fast) < 0.5 * HEAVY_MS


def test_no_slow_steps_without_injected_bugs(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    monkeypatch.setattr("games.atari.mspacman.heavy_operation", calls.append)
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
