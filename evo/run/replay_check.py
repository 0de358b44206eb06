"""Whether a game replays, checked once as a run starts: what ``bug_replays: auto`` decides on.

Every bug the engine reports is a seed and actions; in a game that replays (the same seed and
actions give the same states) it shows again every time, and a rate says nothing a tester
needs. In one that does not (sticky inputs, physics on threads, a generator no seed reaches)
a bug shows in some replays only, and the rate is what a tester files. So a run whose
experiment leaves ``bug_replays`` at ``auto`` plays seeded episodes of random actions twice
each in one copy of its game before its first generation (:data:`TRIES` of up to :data:`STEPS`
steps, more where they end sooner), and compares every
step's state features, observation, reward and ending: where any differ, each bug the oracles
report is played again :data:`AUTO_REPLAYS` times for its rate (:mod:`evo.run.rates`); where all
agree, none. ``config.yaml`` records the number, so a resumed run plays as the first did.

A game whose chance shows only rarely (a collision of two bodies once a minute) can pass
these steps as one that replays; its bugs then come without a rate, as before, and
``bug_replays: 10`` asks for them.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from evo.run.config import Experiment

log = logging.getLogger(__name__)

AUTO_REPLAYS = 10
"""Replays of each bug in a game seen not to replay (``bug_replays: auto``)."""
TRIES = 2
"""Episodes played twice each, at least."""
STEPS = 60
"""Most steps of each episode compared (fewer where it ends first)."""
MAX_TRIES = 8
"""Episodes played twice each, at most, until :data:`TRIES` * :data:`STEPS` steps were compared:
a game whose bug ends episodes a few steps from the start still shows its chance."""
PROCESS_FAULTS = ("GameHang", "GameProcessDied", "GameOutOfMemory")
"""Faults of an isolated game's process, which end the check (:mod:`games.adapter`)."""


def replays(factory: Any, seed: int, label: str = "the game") -> bool | None:
    """True where ``factory``'s game played seeded episodes of random actions (:data:`TRIES` of
    :data:`STEPS` steps, more where they end sooner) the same way twice (a step that raised in both counts as the same end), False where some step
    differed, None where it could not tell (the game could not be made, its process hung or
    died, or every episode ended at its first step)."""
    game = None
    try:
        game = factory.make_vector(1)
        return _compare(game, seed)
    except Exception as exc:  # noqa: BLE001 - a game that cannot be checked plays without rates, as
        # before (and one that cannot start says so where the run starts its copies)
        log.info("%s: could not check whether it replays (%s: %s); bug_replays auto plays none",
                 label, type(exc).__name__, exc)
        return None
    finally:
        if game is not None:
            game.close()


def _compare(game: Any, seed: int) -> bool | None:
    """:func:`replays` on a game copy already made."""
    rng = np.random.default_rng([int(seed), 0x5245])
    n_actions = int(game.game_spec.n_actions)
    compared = 0
    for tried in range(MAX_TRIES):
        if tried >= TRIES and compared >= TRIES * STEPS:
            break
        episode_seed, actions = int(rng.integers(0, 2**31)), rng.integers(0, n_actions, STEPS)
        first, raised = _play(game, episode_seed, actions)
        if raised in PROCESS_FAULTS:
            return None  # played again, a hang costs its timeout again: the run meets it anyway
        again, raised_again = _play(game, episode_seed, actions)
        if raised != raised_again or len(first) != len(again) or not all(map(_same, first, again)):
            return False
        compared += len(first) - 1
    return True if compared else None


def _play(game: Any, episode_seed: int, actions: np.ndarray) -> tuple[list[tuple[np.ndarray, ...]], str | None]:
    """Every step of one episode from the reset of ``episode_seed`` until it ends or raises, and
    the type of the error a step raised (None where none did)."""
    obs, features = game.reset([episode_seed])
    steps = [(np.asarray(features), np.asarray(obs))]
    for action in actions.tolist():
        out = game.step(np.array([action]))
        if out.errors:
            return steps, out.errors[0].type
        steps.append((out.features, out.obs, out.reward, out.terminated, out.truncated))
        if out.terminated[0] or out.truncated[0]:
            break
    return steps, None


def _same(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y, equal_nan=x.dtype.kind == "f") for x, y in zip(a, b))


def resolved(exp: Experiment, factory: Any, label: str) -> Experiment:
    """``exp`` with ``bug_replays: auto`` as its number: :data:`AUTO_REPLAYS` where the game
    does not replay, else 0 (one line says which where it plays any)."""
    if exp.bug_replays != "auto":
        return exp
    same = replays(factory, exp.seed, label)
    n = AUTO_REPLAYS if same is False else 0
    if n:
        log.info("%s does not replay (the same seed and actions played differently): each bug is played "
                 "again %d times for its rate (bug_replays: auto)", label, n)
    return exp.model_copy(update={"bug_replays": n})
