"""Discrete actions for a game whose own are not: a grid of its action space, one index a cell.

The engine's policies choose one of ``n`` actions, and a bug's replay handle is that list of
choices. A game that takes a vector (a ``Box`` of steering and throttle, a ``MultiDiscrete``
of buttons) is played through a fixed grid of its actions:

- ``Box``: ``levels`` values per dimension, evenly spaced from ``low`` to ``high`` inclusive
  (3: low, middle, high), every combination one action. Gymnasium's ``DiscretizeAction``
  takes its bins' centres, which never reach the ends of the range; a game's limits (full
  lock, full throttle) are where a tester looks for bugs first.
- ``MultiDiscrete`` and ``MultiBinary``: every combination of their values.

The grid is a pure function of the space and ``levels``, so a replay in another process or on
another machine presses the same actions. A space whose grid would hold more than
``MAX_ACTIONS`` actions, an unbounded ``Box``, or any other kind has no grid, and the game is
refused in one line that says why (:func:`why_not`).
"""

from __future__ import annotations

import itertools
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import GameSpecError

__all__ = ["ActionGrid", "DEFAULT_LEVELS", "MAX_ACTIONS", "discrete_actions", "why_not"]

DEFAULT_LEVELS = 3
"""Values per dimension of a ``Box``: low, middle, high."""
MAX_ACTIONS = 256
"""The most actions a grid may hold: a policy's output layer, and what random play must cover."""


def _axes(space: gym.Space[Any], levels: int) -> list[np.ndarray] | None:
    """The values each dimension takes, or None for a space the grid cannot cover."""
    if isinstance(space, spaces.Box):
        low, high = np.ravel(space.low).astype(np.float64), np.ravel(space.high).astype(np.float64)
        if not (np.isfinite(low).all() and np.isfinite(high).all()):
            return None
        axes = [np.linspace(lo, hi, levels) for lo, hi in zip(low, high)]
        if np.issubdtype(space.dtype, np.integer):
            axes = [np.unique(np.round(a)) for a in axes]
        return axes
    if isinstance(space, spaces.MultiDiscrete):
        return [start + np.arange(n) for start, n in zip(np.ravel(space.start), np.ravel(space.nvec))]
    if isinstance(space, spaces.MultiBinary):
        return [np.array([0, 1])] * int(np.prod(space.shape))
    return None


def why_not(space: gym.Space[Any], levels: int = DEFAULT_LEVELS) -> str | None:
    """Why a space gets no grid (for the one-line error), or None when it gets one."""
    axes = _axes(space, levels)
    if axes is None:
        if isinstance(space, spaces.Box):
            return "a Box without finite low and high has no grid of actions; bound it, or give the game a Discrete action space"
        return "the engine plays Discrete actions, and turns bounded Box, MultiDiscrete and MultiBinary ones into a grid"
    count = int(np.prod([len(a) for a in axes], dtype=object))
    if count > MAX_ACTIONS:
        return (f"its grid of actions would hold {count:,} ({len(axes)} dimensions), more than "
                f"{MAX_ACTIONS}; fewer game.action_levels, or a Discrete action space of its own")
    return None


class ActionGrid(gym.ActionWrapper):
    """A game played through a grid of its actions: action ``i`` is the grid's ``i``-th cell,
    the first dimension varying slowest."""

    def __init__(self, env: gym.Env[Any, Any], levels: int = DEFAULT_LEVELS) -> None:
        super().__init__(env)
        space = env.action_space
        axes = _axes(space, levels)
        if axes is None or why_not(space, levels) is not None:
            raise ValueError(f"no grid of actions for {space}: {why_not(space, levels)}")
        cells = np.array(list(itertools.product(*axes)), dtype=np.float64)
        shape = space.shape if space.shape is not None else (len(axes),)
        self.choices = cells.astype(space.dtype).reshape(len(cells), *shape)
        """Every action the game is sent, in the order of their indices."""
        self.action_space = spaces.Discrete(len(cells))

    def action(self, action: Any) -> np.ndarray:
        return self.choices[int(action)].copy()


def discrete_actions(env: gym.Env[Any, Any], levels: int = DEFAULT_LEVELS, label: str = "") -> gym.Env[Any, Any]:
    """``env`` itself when its actions are ``Discrete``, else ``env`` played through
    :class:`ActionGrid`.

    Raises:
        GameSpecError: The actions have no grid (:func:`why_not`); ``env`` is closed.
    """
    if isinstance(env.action_space, spaces.Discrete):
        return env
    reason = why_not(env.action_space, levels)
    if reason is not None:
        space = env.action_space
        env.close()
        raise GameSpecError(f"game {label or env} has action space {space}; {reason}")
    return ActionGrid(env, levels)
