"""The fast path of :class:`games.adapter.vector_game.GymVectorGame`: its copies in this process,
stepped in a plain loop (``game.isolated: false``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np

from games.adapter.game_copy import GAME_FAULTS, GameCopy, Reply, game_error
from games.core.base import GameSpec


def info_column(values: Sequence[Any]) -> np.ndarray:
    """One step's values of an info key across copies, ``[N]``: float64 when every copy that
    gave one gave a number (0 for the others), else objects (None for the others)."""
    if all(v is None or isinstance(v, (bool, int, float)) for v in values):
        return np.array([0.0 if v is None else float(v) for v in values], dtype=np.float64)
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


class InProcessRunner:
    """The fast path: the envs live in this process and are stepped in a plain loop."""

    def __init__(self, make_env: Callable[[], gym.Env], num_envs: int, info_keys: Sequence[str] = (),
                 spec: GameSpec | None = None) -> None:
        self.copies: list[GameCopy] = []
        try:
            for _ in range(num_envs):
                self.copies.append(GameCopy.tracked(make_env, info_keys, spec=spec))
                spec = self.copies[0].spec  # the first copy's, for every other
        except BaseException:
            self.close()
            raise
        self.spec = self.copies[0].spec

    def reset(self, seeds: Sequence[int], starts: Sequence[bytes | None] | None = None,
              every: int = 0) -> list[Reply]:
        """Each copy's new episode: from its seed, or from its snapshot where ``starts`` has
        one; snapshots after every ``every`` steps of it (0: none)."""
        out: list[Reply] = []
        for i, (copy, seed) in enumerate(zip(self.copies, seeds)):
            start = None if starts is None else starts[i]
            try:
                out.append(copy.reset(seed, every) if start is None else copy.restore(start, every))
            except GAME_FAULTS as exc:
                out.append(game_error(exc))
        return out

    def step(self, indices: Sequence[int], actions: Sequence[int]) -> list[Reply]:
        out: list[Reply] = []
        for i, action in zip(indices, actions):
            try:
                out.append(self.copies[i].step(action))
            except GAME_FAULTS as exc:
                out.append(game_error(exc))
        return out

    def render(self) -> list[Reply]:
        out: list[Reply] = []
        for copy in self.copies:
            try:
                out.append(copy.render())
            except GAME_FAULTS as exc:
                out.append(game_error(exc))
        return out

    def close(self) -> None:
        for copy in self.copies:
            copy.close()
