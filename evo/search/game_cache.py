"""The vector games a process keeps between tasks, so that a worker makes its game once.

A worker plays chunk after chunk of one game (:mod:`evo.search.tasks`); making the copies
again for every chunk would start the game again (an engine, a process per isolated copy) for
every chunk. :data:`WORKER_GAMES` is this process's cache: the tasks take their games from it,
and it closes them when the process exits (a loky worker when its pool shuts down, the run's
own process at its end) or when :meth:`evo.run.parallel.Executor.close` closes it in the
run's own process (the serial backend plays there).

The serial backend may play its tasks in lanes (threads, :mod:`evo.run.parallel`): each lane
keeps games of its own, so that two lanes never step one game. A thread says its lane with
:func:`in_lane`; without one it is lane 0.
"""

from __future__ import annotations

import contextlib
import multiprocessing.util
import threading
from typing import Iterator, Protocol

from games.core.base import VectorGame

CLOSE_PRIORITY = 10
"""``exitpriority`` of the hook that closes a process's games at its exit: multiprocessing runs
hooks of priority 0 and above before it terminates the process's daemonic children (an
isolated copy's worker is one), so the copies close their games themselves rather than being
SIGTERMed, which runs no ``close``."""


class GameFactory(Protocol):
    """What the cache needs of a game factory (:class:`games.registry.GameFactory`): its
    vector games, and equality by value."""

    def make_vector(self, num_envs: int) -> VectorGame:
        """``num_envs`` copies of the game, stepped together."""
        ...


class GameCache:
    """Vector games kept by game factory and number of copies: made on first use, then reused.

    A game is found by the factory's value (a frozen dataclass, compared field by field):
    a task reaches a worker as a fresh copy of the run's factory, which identity would never
    match, and a factory may hold kwargs no hash takes (a list from the YAML).
    """

    def __init__(self) -> None:
        self._games: list[tuple[GameFactory, int, int, VectorGame]] = []
        self._at_exit: multiprocessing.util.Finalize | None = None
        self._lock = threading.Lock()  # lanes ask at once; a game is made by one at a time

    def get(self, factory: GameFactory, n: int) -> VectorGame:
        """The game of ``n`` copies of ``factory``, made now if this cache holds none.

        Games of fewer copies of the same factory are closed first: a worker asks for more
        copies once parents play again beside their children, and a game whose closed copies
        hand their engines on (the park's, :mod:`games.doom.engine_pool`) then starts only the
        copies it adds. A smaller game asked for later (fine-tuning's chunks) is made again.

        The first game made registers :meth:`close` to run at this process's exit: loky's
        workers leave their loop when the pool shuts down and then run multiprocessing's exit
        hooks (``util._exit_function``), as the main process does at exit.
        """
        lane = current_lane()
        with self._lock:
            for kept, copies, its_lane, game in self._games:
                if copies == n and its_lane == lane and kept == factory:
                    return game
            if self._at_exit is None:
                self._at_exit = multiprocessing.util.Finalize(None, self.close, exitpriority=CLOSE_PRIORITY)
            smaller = [e for e in self._games if e[1] < n and e[2] == lane and e[0] == factory]
            for entry in smaller:
                self._games.remove(entry)
                _close(entry[3])
            game = factory.make_vector(n)
            self._games.append((factory, n, lane, game))
            return game

    def drop(self, factory: GameFactory, n: int) -> None:
        """Close and forget this lane's game of ``n`` copies of ``factory`` (a broken one):
        the next :meth:`get` makes a fresh one."""
        lane = current_lane()
        with self._lock:
            for i, (kept, copies, its_lane, game) in enumerate(self._games):
                if copies == n and its_lane == lane and kept == factory:
                    del self._games[i]
                    _close(game)
                    return

    def close(self) -> None:
        """Close every game this cache holds."""
        with self._lock:
            while self._games:
                _close(self._games.pop(0)[3])

    def __len__(self) -> int:
        return len(self._games)


def _close(game: VectorGame) -> None:
    with contextlib.suppress(Exception):  # a broken game may fail to close too
        game.close()


_LANE = threading.local()


def current_lane() -> int:
    """The lane this thread plays in (:func:`in_lane`), 0 outside one."""
    return int(getattr(_LANE, "index", 0))


@contextlib.contextmanager
def in_lane(index: int) -> Iterator[None]:
    """Play in lane ``index`` on this thread: the games it takes are that lane's."""
    before = current_lane()
    _LANE.index = index
    try:
        yield
    finally:
        _LANE.index = before


WORKER_GAMES = GameCache()
"""This process's games: each worker process (and the run's own process) has its own."""
