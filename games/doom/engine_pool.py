"""Idle ViZDoom engines of this process, kept so that a new copy takes one instead of starting one.

Starting an engine (``DoomGame.init``: its process, the WAD, the map) costs about half a second
of CPU, as much as a few hundred steps. A run's workers make their games again whenever the
number of copies they play changes (a population's first generation, then parents and children
together when an objective rescores parents, then fine-tuning's chunks), and on 16 workers
that start-up was part of what held the engine back. A copy that closes hands its engine here;
the next copy asking for the same settings and view takes it. A new episode (``set_seed``,
``new_episode``) restarts the map, so an engine that played before plays the same episode a
fresh one would: results do not change.

The idle engines close at this process's exit, after :mod:`evo.search.game_cache` closed its
games (which hands their engines here).
"""

from __future__ import annotations

import contextlib
import multiprocessing.util
from typing import Any

from games.doom.engine import DoomSettings, EngineView, new_engine

IDLE_MAX = 64
"""Idle engines kept at most (each a process of some tens of MB); one more is closed, not kept."""
CLOSE_PRIORITY = 5
"""``exitpriority`` of closing the idle engines: after the game cache's (10), which hands the
engines of the games it closes here, and before multiprocessing ends daemonic children (0)."""

_IDLE: dict[tuple[DoomSettings, EngineView], list[Any]] = {}
_at_exit: multiprocessing.util.Finalize | None = None


def take_engine(settings: DoomSettings, view: EngineView) -> Any:
    """An idle engine started with ``settings`` and ``view``, or a new one (:func:`new_engine`)."""
    idle = _IDLE.get((settings, view), [])
    while idle:
        engine = idle.pop()
        if _running(engine):
            return engine
        _close(engine)
    return new_engine(settings, view=view)


def give_engine(settings: DoomSettings, view: EngineView, engine: Any, stop: bool = False) -> None:
    """Keep ``engine`` (started with ``settings`` and ``view``) for the next copy that asks; close
    it instead with ``stop`` (it failed), when it stopped, or over :data:`IDLE_MAX`. Never
    raises: a dead engine's errors are ignored."""
    global _at_exit
    if stop or idle_engines() >= IDLE_MAX or not _running(engine):
        _close(engine)
        return
    if _at_exit is None:
        _at_exit = multiprocessing.util.Finalize(None, close_idle, exitpriority=CLOSE_PRIORITY)
    _IDLE.setdefault((settings, view), []).append(engine)


def idle_engines() -> int:
    """How many engines wait to be taken."""
    return sum(len(engines) for engines in _IDLE.values())


def close_idle() -> None:
    """Close every idle engine."""
    while _IDLE:
        for engine in _IDLE.popitem()[1]:
            _close(engine)


def _running(engine: Any) -> bool:
    try:
        return bool(engine.is_running())
    except Exception:  # noqa: BLE001 - a dead engine may fail to answer
        return False


def _close(engine: Any) -> None:
    with contextlib.suppress(Exception):  # a dead engine may fail to close
        engine.close()
