"""Reports played again before the run keeps them: what an oracle's ``confirm`` is handed.

The performance oracle flags a place from the frames of its visits, which a busy machine can
make slow by chance; it asks for the report's actions to be played again, a few copies at
once, and keeps the report only where the place is slow again (``Oracle.confirm``). The run
plays those replays in its own process, in copies of its game made the first time they are
needed and kept for the run (an isolated game's copies are processes, slow to start).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from evo.search.agents.script import ScriptAgent
from evo.search.play import play
from games.core.base import VectorGame
from games.core.record import RolloutBatch
from games.registry import GameFactory


class Replays:
    """Plays action scripts from a seed in copies of the run's game.

    Args:
        factory: The run's game.
        n_actions: The game's actions (the script agent's width).
        columns: The optional record columns the run's components read.
        max_copies: Copies played at once at most, the rest in further rounds: the copies one
            worker of the run plays at once, which exist (a game that serves one client, such
            as a running Unreal game on ``port + i``, has no copy beyond them).
    """

    def __init__(self, factory: GameFactory, n_actions: int, columns: frozenset[str], max_copies: int) -> None:
        self.factory, self.n_actions, self.columns = factory, n_actions, columns
        self.max_copies = max(1, int(max_copies))
        self._games: dict[int, VectorGame] = {}

    def __call__(self, seed: int, actions: Sequence[int], copies: int, snapshot: bytes | None = None,
                 at: int = 0) -> RolloutBatch:
        """``actions`` played from the reset of episode ``seed`` in ``copies`` copies; with
        ``snapshot`` (taken ``at`` steps after the reset, on the way of ``actions``), its
        actions after ``at`` played from there."""
        script = [int(a) for a in actions[at:]] if snapshot is not None else [int(a) for a in actions]
        head = np.asarray(actions[:at], dtype=np.int64) if snapshot is not None else None
        rounds = []
        for start in range(0, copies, self.max_copies):
            n = min(self.max_copies, copies - start)
            if n not in self._games:
                self._games[n] = self.factory.make_vector(n)
            result = play(self._games[n], [int(seed)] * n, [0] * n, ScriptAgent([script] * n, self.n_actions),
                          max_steps=len(script), columns=self.columns,
                          starts=None if snapshot is None else [snapshot] * n,
                          heads=None if head is None else [head] * n)
            if result.game_broken:  # made again the next time
                self._games.pop(n).close()
            rounds.append(result.rollouts)
        return RolloutBatch.concat(rounds)

    def close(self) -> None:
        for game in self._games.values():
            game.close()
        self._games.clear()
