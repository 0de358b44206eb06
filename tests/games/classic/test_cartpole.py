"""CartPole with RELINE's performance bugs: Gymnasium conformance, slow frames that really
happen in the two intervals and nowhere else, ground truth, bucket alignment, and the numpy
batch agreeing with the scalar game step by step."""

from __future__ import annotations

import time

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from games import GameFactory, VectorGame
from games.classic.cartpole import BUG_INTERVALS, CartPolePerf, CartPolePerfVector, bug_of
from oracles.base import Bug

HEAVY_MS = 20.0  # far above any normal CartPole step, so a busy machine cannot blur the test


def timed_step(env: CartPolePerf, x: float, action: int = 1) -> tuple[float, float]:
    """Put the cart at ``x`` (at rest, pole upright), step once; (seconds, x after)."""
    env.reset(seed=0)
    env.unwrapped.state = np.array([x, 0.0, 0.0, 0.0])
    start = time.perf_counter()
    obs, *_ = env.step(action)
    return time.perf_counter() - start, float(obs[0])


def bug(next_x: float, kind: str = "performance") -> Bug:
    return Bug(kind=kind, oracle="performance", signature="s", message="m", step=0,
               state=(0.0, 0.0), next_state=(next_x, 0.0), policy=0, episode_seed=0, actions=(1,))


def test_passes_gymnasium_check_env() -> None:
    check_env(CartPolePerf(), skip_render_check=True)


def test_registered_with_its_vector_form() -> None:
    factory = GameFactory(name="cartpole_perf", kwargs=(("heavy_ms", 1.0),))
    assert isinstance(factory.make_env(), CartPolePerf)
    game = factory.make_vector(3)
    assert isinstance(game, CartPolePerfVector) and isinstance(game, VectorGame)
    assert factory.spec().feature_names == ("x", "theta")


@pytest.mark.parametrize("centre", [-0.475, 0.475])
def test_a_step_that_ends_in_a_bug_interval_is_really_slow(centre: float) -> None:
    env = CartPolePerf(heavy_ms=HEAVY_MS)
    # One step from rest moves the cart by tau * x_dot = 0: it stays at the centre.
    seconds, x = timed_step(env, centre)
    assert bug_of(x) >= 0
    assert seconds * 1000.0 >= HEAVY_MS


@pytest.mark.parametrize("x", [0.0, -0.7, 0.3, -0.44, 0.52, 1.5])
def test_steps_elsewhere_are_fast(x: float, monkeypatch: pytest.MonkeyPatch) -> None:
    env = CartPolePerf(heavy_ms=HEAVY_MS)
    # The best of three, so that one hiccup of a busy machine is not a slow frame.
    assert min(timed_step(env, x)[0] for _ in range(3)) * 1000.0 < HEAVY_MS
    calls: list[float] = []
    monkeypatch.setattr("games.classic.cartpole.heavy_operation", lambda ms, clock="wall": calls.append(ms) or ms)
    timed_step(env, x)
    assert calls == []
    timed_step(env, 0.475)
    assert calls == [HEAVY_MS]


def test_no_slow_frames_without_injected_bugs() -> None:
    env = CartPolePerf(heavy_ms=HEAVY_MS, inject_bugs=False)
    seconds, _ = timed_step(env, 0.475)
    assert seconds * 1000.0 < HEAVY_MS
    assert env.injected_bugs == [] and env.match(bug(0.475)) is None


def test_episodes_are_truncated_at_max_steps() -> None:
    env = CartPolePerf(max_steps=5)
    env.reset(seed=1)
    results = [env.step(i % 2) for i in range(5)]
    assert [r[3] for r in results] == [False] * 4 + [True]
    assert CartPolePerf().game_spec.max_steps == 1000  # RELINE


def test_injected_bugs_and_match() -> None:
    env = CartPolePerf()
    assert [(b.id, b.kind, b.location[0]) for b in env.injected_bugs] == [
        (0, "performance", -0.475), (1, "performance", 0.475)]
    assert env.match(bug(-0.46)) == 0
    assert env.match(bug(0.49)) == 1
    assert env.match(bug(0.0)) is None
    assert env.match(bug(-0.45)) is None  # open intervals
    assert env.match(bug(0.5)) is None
    assert env.match(bug(0.47, kind="crash")) is None


@pytest.mark.parametrize("interval", BUG_INTERVALS)
def test_each_bug_interval_is_exactly_one_bucket_of_x(interval: tuple[float, float]) -> None:
    spec = CartPolePerf().game_spec
    low, high = interval
    # Every float32 position strictly inside the interval (what the observation can show)...
    inside = np.linspace(low, high, 2001, dtype=np.float32)
    inside = np.concatenate([inside, np.nextafter(np.float32([low, high]), np.float32([1, -1]))])
    inside = inside[(inside > low) & (inside < high)].astype(np.float64)
    feats = np.stack([inside, np.zeros_like(inside)], axis=1)
    buckets = set(spec.buckets(feats)[:, 0].tolist())
    assert len(buckets) == 1
    (k,) = buckets
    # ... lands in one bucket whose edges are the interval's.
    width = (spec.feature_high[0] - spec.feature_low[0]) / spec.feature_bins[0]
    assert spec.feature_low[0] + k * width == pytest.approx(low, abs=1e-12)
    assert spec.feature_low[0] + (k + 1) * width == pytest.approx(high, abs=1e-12)
    # Positions just outside are in the neighbouring buckets.
    outside = np.nextafter(np.float32([low, high]), np.float32([-1, 1])).astype(np.float64)
    outside = outside[(outside < low) | (outside >= high)]
    assert k not in spec.buckets(np.stack([outside, np.zeros(2)], axis=1))[:, 0].tolist()


def test_vector_form_charges_the_heavy_time_to_the_slow_copy() -> None:
    vec = CartPolePerfVector(4, heavy_ms=HEAVY_MS)
    vec.reset([0, 1, 2, 3])
    vec.state[:] = 0.0
    vec.state[2, 0] = 0.475
    step = vec.step(np.array([1, 0, 1, 0]))
    assert step.frame_ms[2] >= HEAVY_MS
    assert np.delete(step.frame_ms, 2).max() < HEAVY_MS
