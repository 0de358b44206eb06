"""Stepping the copies of a ViZDoom vector game: each engine is a process of its own, stepped
one after the other, and one that fails is that copy's error, not the game's."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from games.adapter.vector_game import game_error
from games.core.base import GameError


def step_each(copies: Sequence[Any], actions: np.ndarray, playing: np.ndarray) -> tuple[dict[int, Any], dict[int, GameError]]:
    """Step every copy still ``playing`` with its action, in copy order: what each one's
    ``step`` returned, and the error of each that raised (one not reset yet included).

    Raises:
        ValueError: not one action per copy.
    """
    actions = np.asarray(actions, dtype=np.int64)
    if actions.shape != (len(copies),):
        raise ValueError(f"step needs {len(copies)} actions, got shape {actions.shape}")
    stepped: dict[int, Any] = {}
    errors: dict[int, GameError] = {}
    for i in np.flatnonzero(playing).tolist():
        copy = copies[i]
        try:
            if copy is None:
                raise RuntimeError("step called before reset")
            stepped[i] = copy.step(int(actions[i]))
        except Exception as exc:  # noqa: BLE001 - the game's fault, reported per copy
            errors[i] = game_error(exc)
    return stepped, errors
