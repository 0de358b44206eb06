"""CartPole with RELINE's two injected performance bugs, as a Gymnasium env and a numpy batch.

RELINE (Tufano et al., "Using reinforcement learning for load testing of video games") seeds
CartPole with two places where a frame is slow: the cart at x in (-0.50, -0.45) and in
(0.45, 0.50). Here every step that ends with the cart in one of them runs a heavy operation
for ``heavy_ms`` milliseconds of real CPU work, so the engine, which times ``step`` itself,
sees the slow frame; nothing is reported in ``info``. Episodes are capped at 1000 steps
(RELINE). :class:`CartPolePerfVector` steps many copies with Gymnasium's ``CartPoleEnv``
equations in numpy; :class:`CartPolePerf` is the generic scalar adapter over one copy
(:class:`games.core.scalar_env.VectorEnv`), with ``CartPoleEnv``'s spaces and rendering.

Whether a step is slow is decided on the cart position as the observation shows it (float32),
so a slow frame and the state features it is bucketed by always agree.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from gymnasium.envs.classic_control.cartpole import CartPoleEnv
from gymnasium.utils import seeding

from games.core.base import GameSpec, InjectedBug, VecStep
from games.core.frame_cost import CLOCKS, BatchClock, heavy_operation
from games.core.scalar_env import VectorEnv

__all__ = ["BUG_INTERVALS", "CLOCKS", "CartPolePerf", "CartPolePerfVector", "bug_of", "heavy_operation"]

# RELINE: CartPole's performance bugs at cart position x in (-0.50, -0.45) and (0.45, 0.50).
BUG_INTERVALS: tuple[tuple[float, float], ...] = ((-0.50, -0.45), (0.45, 0.50))
# RELINE: episodes capped at 1000 steps.
MAX_STEPS = 1000

X_THRESHOLD = 2.4
THETA_THRESHOLD = 12 * 2 * math.pi / 360
# 96 buckets over [-2.4, 2.4] are 0.05 wide with edges at multiples of 0.05, so each bug
# interval is exactly one bucket of x (38 and 57) and that bucket holds nothing else but its
# closed left edge. 8 buckets of the pole angle tell "leaning left/right, a little/a lot".
X_BINS = 96
THETA_BINS = 8

# Gymnasium's CartPole constants (CartPoleEnv.__init__), for the numpy batch.
_GRAVITY = 9.8
_MASSCART = 1.0
_MASSPOLE = 0.1
_TOTAL_MASS = _MASSPOLE + _MASSCART
_LENGTH = 0.5
_POLEMASS_LENGTH = _MASSPOLE * _LENGTH
_FORCE_MAG = 10.0
_TAU = 0.02


def bug_of(x: np.ndarray | float) -> np.ndarray:
    """Index of the bug interval each cart position lies in (strictly inside), -1 for none."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, -1, dtype=np.int64)
    for i, (low, high) in enumerate(BUG_INTERVALS):
        out[(x > low) & (x < high)] = i
    return out


def _game_spec(max_steps: int) -> GameSpec:
    return GameSpec(
        obs_shape=(4,),
        n_actions=2,
        feature_names=("x", "theta"),
        feature_low=(-X_THRESHOLD, -THETA_THRESHOLD),
        feature_high=(X_THRESHOLD, THETA_THRESHOLD),
        feature_bins=(X_BINS, THETA_BINS),
        max_steps=max_steps,
    )


def _injected_bugs() -> list[InjectedBug]:
    return [
        InjectedBug(
            id=i,
            kind="performance",
            location=(round((low + high) / 2, 3), 0.0),
            description=f"every frame with the cart at x in ({low:g}, {high:g}) runs a heavy operation",
        )
        for i, (low, high) in enumerate(BUG_INTERVALS)
    ]


def _match(bug: Any) -> int | None:
    """Id of the injected bug a report is: a performance report whose frame ended in a bug
    interval (``next_state``'s x); None otherwise."""
    if bug.kind != "performance":
        return None
    x = float(np.asarray(bug.next_state, dtype=np.float64).ravel()[0])
    i = int(bug_of(x))
    return None if i < 0 else i


def _check_kwargs(heavy_ms: float, max_steps: int) -> None:
    if heavy_ms < 0:
        raise ValueError(f"heavy_ms must be >= 0, got {heavy_ms}")
    if max_steps < 1:
        raise ValueError(f"max_steps must be positive, got {max_steps}")


class CartPolePerfVector:
    """``num_envs`` copies of CartPole with RELINE's slow regions, stepped together in numpy.

    Gymnasium's equations (Euler integration, the same thresholds), one array operation per
    term over all copies; only copies that end a step in a bug interval run the heavy
    operation, one by one. Reset draws each copy's start state exactly as Gymnasium's
    ``CartPoleEnv.reset`` does for the same seed. No auto-reset: a finished copy keeps its
    state, reward 0 and its done flags until the next ``reset``.

    ``frame_ms[i]`` is the batch's own wall time shared evenly between the copies plus the
    measured heavy time of copy ``i``, if it ran one.

    Args:
        num_envs: Number of copies.
        heavy_ms, max_steps, inject_bugs: Those of :class:`CartPolePerf`.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        heavy_ms: float = 2.0,
        max_steps: int = MAX_STEPS,
        inject_bugs: bool = True,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        _check_kwargs(heavy_ms, max_steps)
        self.num_envs = int(num_envs)
        self.heavy_ms = float(heavy_ms)
        self.inject_bugs = bool(inject_bugs)
        self.game_spec = _game_spec(int(max_steps))
        self.injected_bugs: list[InjectedBug] = _injected_bugs() if inject_bugs else []
        n = self.num_envs
        self.state = np.zeros((n, 4), dtype=np.float64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)

    def _observe(self) -> tuple[np.ndarray, np.ndarray]:
        obs = self.state.astype(np.float32)
        return obs, obs[:, [0, 2]].astype(np.float64)

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start every copy as ``CartPolePerf.reset(seed=seeds[i])`` would."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        for i, seed in enumerate(seeds):
            rng, _ = seeding.np_random(int(seed))
            self.state[i] = rng.uniform(low=-0.05, high=0.05, size=(4,))
        self._steps.fill(0)
        self._terminated.fill(False)
        self._truncated.fill(False)
        return self._observe()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy still playing with CartPole's physics."""
        clock = BatchClock()
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {actions.shape}")
        active = ~(self._terminated | self._truncated)
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(actions == 1, _FORCE_MAG, -_FORCE_MAG)
        costheta = np.cos(theta)
        sintheta = np.sin(theta)
        temp = (force + _POLEMASS_LENGTH * np.square(theta_dot) * sintheta) / _TOTAL_MASS
        thetaacc = (_GRAVITY * sintheta - costheta * temp) / (
            _LENGTH * (4.0 / 3.0 - _MASSPOLE * np.square(costheta) / _TOTAL_MASS)
        )
        xacc = temp - _POLEMASS_LENGTH * thetaacc * costheta / _TOTAL_MASS
        new = np.stack(
            (x + _TAU * x_dot, x_dot + _TAU * xacc, theta + _TAU * theta_dot,
             theta_dot + _TAU * thetaacc),
            axis=1,
        )
        self.state = np.where(active[:, None], new, self.state)
        nx, ntheta = self.state[:, 0], self.state[:, 2]
        ended = active & (
            (nx < -X_THRESHOLD) | (nx > X_THRESHOLD)
            | (ntheta < -THETA_THRESHOLD) | (ntheta > THETA_THRESHOLD)
        )
        reward = active.astype(np.float64)
        self._steps += active
        self._terminated |= ended
        self._truncated |= active & ~ended & (self._steps >= self.game_spec.max_steps)
        obs, features = self._observe()

        heavy = np.zeros(self.num_envs, dtype=np.float64)
        if self.inject_bugs:
            for i in np.flatnonzero(active & (bug_of(obs[:, 0]) >= 0)).tolist():
                heavy[i] = heavy_operation(self.heavy_ms)
        return VecStep(
            obs=obs,
            reward=reward,
            terminated=self._terminated.copy(),
            truncated=self._truncated.copy(),
            features=features,
            frame_ms=clock.frame_ms(heavy),
        )

    def match(self, bug: Any) -> int | None:
        """Ground truth: which injected bug a reported bug is (see :func:`_match`)."""
        return _match(bug) if self.inject_bugs else None

    def close(self) -> None:
        """Nothing to release: the game lives in this process's arrays."""


class CartPolePerf(VectorEnv):
    """Gymnasium's CartPole with RELINE's two slow regions and a 1000-step horizon.

    Observation, actions, reward (+1 per step) and termination are CartPole's. A step that
    ends with the cart strictly inside (-0.50, -0.45) or (0.45, 0.50) burns ``heavy_ms`` of
    CPU. State features are ``(x, theta)``: where the cart is and how the pole leans. The
    velocities are left out: the bugs depend on the position only, they have no natural
    bounds, and two more dimensions would spread a point's visits (the performance oracle
    needs several per point) and reward jitter in speed as coverage.

    One copy of :class:`CartPolePerfVector` (:class:`games.core.scalar_env.VectorEnv`); ``state``
    is its physical state, as ``CartPoleEnv.state`` is.

    Args:
        heavy_ms: CPU time a slow frame burns, in milliseconds.
        max_steps: Episode horizon (truncation).
        inject_bugs: False plays plain CartPole with the same horizon.
        render_mode: ``CartPoleEnv``'s: None, ``"human"`` or ``"rgb_array"``.
    """

    metadata = CartPoleEnv.metadata

    def __init__(
        self,
        heavy_ms: float = 2.0,
        max_steps: int = MAX_STEPS,
        inject_bugs: bool = True,
        render_mode: str | None = None,
    ) -> None:
        game = CartPolePerfVector(1, heavy_ms=heavy_ms, max_steps=max_steps, inject_bugs=inject_bugs)
        self._view = CartPoleEnv(render_mode=render_mode)
        super().__init__(game, self._view.observation_space, render_mode=render_mode)

    @property
    def state(self) -> np.ndarray:
        """``(x, x_dot, theta, theta_dot)`` of the cart (a view: writing it moves the cart)."""
        return self.game.state[0]

    @state.setter
    def state(self, value: np.ndarray) -> None:
        self.game.state[0] = np.asarray(value, dtype=np.float64)

    def render(self) -> Any:
        """``CartPoleEnv``'s drawing of the current state."""
        self._view.state = self.state.copy()
        return self._view.render()

    def close(self) -> None:
        self._view.close()
        super().close()
