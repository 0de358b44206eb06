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


def test_a_restored_snapshot_plays_on_as_the_emulator_did() -> None:
    """Go-Explore's returns restore the emulator's state: the snapshot a copy sent after 20
    steps, restored into another copy, plays the same actions into the same states, and the
    horizon still counts from the reset."""
    rng = np.random.default_rng(1)
    actions = rng.integers(0, 18, size=60)
    game = MontezumaVector(1, noop_max=30, max_steps=50)
    game.reset_from([7], None, None, every=10)
    trace, taken = [], {}
    for t, a in enumerate(actions[:50]):
        step = game.step(np.array([a]))
        trace.append(step.features[0])
        taken.update({t + 1: s for s in step.snapshots.values()})
    assert sorted(taken) == [10, 20, 30, 40]  # none at the horizon: the episode is over
    assert step.truncated[0]
    other = MontezumaVector(2, max_steps=50)
    _, start = other.reset_from([0, 0], [taken[20], None], [20, 0])
    np.testing.assert_array_equal(start[0], trace[19])
    for t, a in enumerate(actions[20:50], start=20):
        step = other.step(np.array([a, 0]))
        np.testing.assert_array_equal(step.features[0], trace[t])
    assert step.truncated.tolist() == [True, False]


def test_with_sticky_actions_an_episode_does_not_replay_but_its_snapshots_restore() -> None:
    """ALE's sticky actions draw from the emulator's generator, which a reset does not bring
    back: the same seed and actions walk Joe elsewhere the second time. A snapshot still
    restores the state it was taken in, so the run's check keeps returns by snapshot."""
    from evo.search.explore.snapshot_check import snapshot_every
    from games.registry import GameFactory

    actions = np.random.default_rng(2).integers(0, 18, size=80)
    game = MontezumaVector(1, sticky=0.25)
    traces = []
    for _ in range(2):
        game.reset([3])
        traces.append(np.stack([game.step(np.array([a])).features[0] for a in actions]))
    assert not np.array_equal(traces[0], traces[1])
    assert snapshot_every(GameFactory(name="montezuma", kwargs=(("sticky", 0.25),)), 0) == 10
    with pytest.raises(ValueError, match="sticky must be a chance from 0 up to"):
        MontezumaVector(1, sticky=1.0)


def test_terminal_on_life_loss_ends_the_episode_at_the_first_death() -> None:
    """Held random inputs lose Joe's first life within 300 steps: the game plays on to its next
    life by default, and ends the episode at that step with terminal_on_life_loss (Go-Explore's
    exploration stopped at a death), from the reset and from a snapshot alike."""
    rng = np.random.default_rng(0)
    actions, a = [], 0
    for _ in range(400):
        a = int(rng.integers(18)) if rng.random() > 0.95 else a
        actions.append(a)
    plain, ending = MontezumaVector(1), MontezumaVector(1, terminal_on_life_loss=True)
    plain.reset([0])
    ending.reset_from([0], every=50)
    died = snapshot = None
    for t, a in enumerate(actions):
        lives = plain.ales[0].lives()
        step, end = plain.step(np.array([a])), ending.step(np.array([a]))
        snapshot = end.snapshots.get(0, snapshot)
        if died is None and plain.ales[0].lives() < lives:
            died = t
            assert not step.terminated[0] and end.terminated[0]
            break
        assert not end.terminated[0]
    assert died is not None and died >= 50
    ending.reset_from([0], starts=[snapshot], offsets=[0])
    ends = [ending.step(np.array([a])).terminated[0] for a in actions[died // 50 * 50 : died + 1]]
    assert ends[-1] and not any(ends[:-1])
    with pytest.raises(ValueError, match="terminal_on_life_loss must be true or false, got 'yes'"):
        MontezumaVector(1, terminal_on_life_loss="yes")
