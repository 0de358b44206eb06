"""How long an isolated copy's step is awaited before it is a hang.

A fixed 10 s made a game that hangs at a place most episodes reach cost 10 s of every copy of
its vector game at each arrival, and a 60 s run took 342 s. So the wait is:

- **learned from the game's own steps** (unless ``game.step_timeout_s`` is set): once
  :data:`LEARN_AFTER` replies have come, :data:`FACTOR` times the slowest step seen, never
  under :data:`FLOOR_S`. A 1 ms game is awaited 3 s, a game whose slowest step took 2 s is
  awaited 40 s (more than the old 10 s: a slow game's slow step is not a hang). Until then,
  the configured timeout.
- **short at a place known to hang**: the cell of the state features a copy hung from is
  remembered, and a copy stepping from there again is awaited :data:`KNOWN_FACTOR` times the
  slowest step, at least :data:`KNOWN_FLOOR_S`, not the full wait again. A copy cut short
  there is the same fault at the same place (one bug: the crash oracle's signature), never
  a new report.
"""

from __future__ import annotations

import time
from typing import Any, Hashable, Sequence

import numpy as np

from games.adapter.game_copy import StepResult
from games.core.base import GameError, GameSpec

LEARN_AFTER = 32
"""Replies seen before the wait is learned from them."""
FACTOR = 20.0
"""A learned wait: this many times the slowest step seen."""
FLOOR_S = 3.0
"""The shortest learned wait: a step of a fast game preempted on a loaded machine, swapped out
or caught in a collection takes a good part of a second now and then, never this long."""
KNOWN_FACTOR = 5.0
"""At a place known to hang: this many times the slowest step seen."""
KNOWN_FLOOR_S = 0.1
"""At a place known to hang: at least this long."""


class StepWaits:
    """Per copy, how long its next step is awaited; learns from every reply.

    Args:
        timeout_s: The configured wait (``game.step_timeout_s``, or the default).
        learn: Learn the wait from the game's steps (the timeout was not set by the user).
        spec: The game's spec: where its cells are known, a place is a cell; otherwise the
            exact state features.
    """

    def __init__(self, timeout_s: float, learn: bool = False, spec: GameSpec | None = None) -> None:
        self.timeout_s = float(timeout_s)
        self.learn = learn
        self.spec = spec
        self.slowest_s = 0.0
        self.seen = 0
        self._since: dict[int, float] = {}
        """Per copy, when the step it is in began (``time.monotonic()``, the same clock in every
        process): when it was sent, or, for steps sent ahead, when the copy finished the one
        before. A copy's wait runs from there, not from when this process gets to read it, so
        copies overdue at the same time are waited for at the same time."""
        self._at: dict[int, np.ndarray] = {}
        """Per copy, the state features it steps from."""
        self._hangs: set[Hashable] = set()

    @property
    def full_s(self) -> float:
        """The wait of a step from a place not known to hang."""
        if not self.learn or self.seen < LEARN_AFTER:
            return self.timeout_s
        return max(FLOOR_S, FACTOR * self.slowest_s)

    @property
    def known_s(self) -> float:
        """The wait of a step from a place known to hang."""
        return min(self.full_s, max(KNOWN_FLOOR_S, KNOWN_FACTOR * self.slowest_s))

    def wait_s(self, i: int) -> float:
        at = self._at.get(i) if self._hangs else None  # a place is named only once one hung
        return self.known_s if at is not None and self._place(at) in self._hangs else self.full_s

    def started(self, indices: Sequence[int], at: float) -> None:
        """The copies ``indices`` began a step (or the first of the steps sent ahead) ``at``."""
        for i in indices:
            self._since[i] = at

    def deadlines(self, indices: Sequence[int]) -> dict[int, float]:
        """Per copy, when its step is overdue (``time.monotonic()``)."""
        now = time.monotonic()
        return {i: self._since.get(i, now) + self.wait_s(i) for i in indices}

    def took(self, seconds: float) -> None:
        """A step took ``seconds``."""
        self.seen += 1
        self.slowest_s = max(self.slowest_s, seconds)

    def moved(self, i: int, features: np.ndarray | None) -> None:
        """Copy ``i`` is now where ``features`` say (None: nowhere known, a restarted copy)."""
        if features is None:
            self._at.pop(i, None)
        else:
            self._at[i] = features

    def moved_all(self, replies: dict[int, Any]) -> None:
        """Where each copy is after its reply to a reset or a step (a place unknown after an
        error: the copy restarts)."""
        for i, reply in replies.items():
            if isinstance(reply, StepResult):
                self.moved(i, reply.features)
                if i in self._since:
                    self.took(reply.done_at - self._since[i])
                self._since[i] = reply.done_at  # where a step sent ahead begins
            elif isinstance(reply, tuple) and len(reply) == 2:  # a reset's (obs, features)
                self.moved(i, reply[1])
            elif isinstance(reply, GameError):
                self.moved(i, None)

    def hung(self, i: int) -> None:
        """Copy ``i`` hung in a step from where it was: that place is known to hang."""
        at = self._at.pop(i, None)
        if at is not None:
            self._hangs.add(self._place(at))

    def _place(self, features: np.ndarray) -> Hashable:
        """The cell of ``features`` where the spec knows its cells, else the values themselves."""
        feats = np.asarray(features, dtype=np.float64).reshape(1, -1)
        if self.spec is not None and self.spec.cells_known and feats.shape[1] == self.spec.n_features:
            return int(self.spec.bucket_keys(feats)[0])
        return feats.tobytes()


def hang_message(what: str, timeout_s: float | dict[int, float]) -> str:
    """A ``GameHang``'s message. A step's names no number: its wait is learned and short at a
    place known to hang, and one fault must read the same (one signature, one bug) whichever
    wait caught it."""
    if what == "step" or isinstance(timeout_s, dict):
        return f"{what} did not return within the step timeout"
    return f"{what} did not return within {timeout_s:g} s"
