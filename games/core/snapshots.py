"""Snapshots of a game's state: what lets a return to an archived cell cost nothing.

Go-Explore returns to a cell by restoring the emulator's state where it can (Ecoffet et al.,
Nature 2021); replaying the way there from the reset costs as many steps as the way is
long (a median of 294 steps to the cells past KeyCorridor's key, for 100 of exploration).
A Gymnasium game written in Python (MiniGrid, Crafter, highway-env, the numpy games) holds
its whole state in its objects: the game, pickled with its wrappers (their step counters,
its random generator), is its snapshot, and unpickled it plays on as the original would.

A game whose state lives elsewhere (a physics engine's C++ world, an engine in another
process, a socket) either cannot be pickled, or plays on differently from its copy; the
engine tries a snapshot on the game at the start of a run (:func:`evo.search.explore.snapshot_check`)
and returns by replay where it does not play on the same.
"""

from __future__ import annotations

import pickle
import zlib
from typing import Any

SNAPSHOT_EVERY = 10
"""A copy that is asked to snapshots its game after every this many steps of an episode: a
cell first reached between two snapshots is returned to by restoring the one before and
replaying at most this many steps less one."""

SNAPSHOT_FAILED = b""
"""What a copy sends instead of a snapshot once pickling its game failed: it takes no more."""


def take(state: Any) -> bytes:
    """The snapshot of ``state`` (a game and what the engine needs beside it), compressed:
    MiniGrid's 9 KB pickle is 3 KB, Crafter's 145 KB is 20 KB."""
    return zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 1)


def load(snapshot: bytes) -> Any:
    """What :func:`take` was given, as a new object."""
    return pickle.loads(zlib.decompress(snapshot))
