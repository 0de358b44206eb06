"""Tiny hand-built rollouts on a 10 x 10 grid with 4 actions."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pytest

from games.core.base import GameError, GameSpec
from games.core.record import Rollout

MakeRollout = Callable[..., Rollout]


@pytest.fixture
def spec() -> GameSpec:
    """A 10 x 10 grid, one bucket per cell, 4 moves."""
    return GameSpec(
        obs_shape=(2,), n_actions=4, feature_names=("x", "y"), feature_low=(0.0, 0.0),
        feature_high=(10.0, 10.0), feature_bins=(10, 10), max_steps=100,
    )


def build_rollout(
    positions: Sequence[Sequence[float]],
    actions: Sequence[int] | None = None,
    frame_ms: Sequence[float] | float = 10.0,
    error: GameError | None = None,
    violations: Sequence[tuple[int, str]] = (),
    policy: int = 0,
    seed: int = 0,
) -> Rollout:
    """A rollout through ``positions`` (reset state first, then one per step).

    Actions default to cycling 0, 1, 2, 3; a scalar ``frame_ms`` is every step's frame time.
    """
    feats = np.asarray(positions, dtype=np.float64).reshape(len(positions), -1)
    t = feats.shape[0] - 1
    acts = np.arange(t) % 4 if actions is None else np.asarray(actions)
    ms = np.broadcast_to(np.asarray(frame_ms, dtype=np.float64), (t,)).copy()
    return Rollout(
        policy=policy, episode_seed=seed, actions=acts.astype(np.int64),
        rewards=np.zeros(t), features=feats, frame_ms=ms,
        terminated=error is not None, truncated=error is None,
        error=error, violations=tuple(violations),
    )


@pytest.fixture
def make_rollout() -> MakeRollout:
    """The :func:`build_rollout` factory."""
    return build_rollout
