"""Whether a game's snapshots play on as the game itself does: checked once, before a run
returns to any cell by one.

A snapshot that pickles may still be wrong: Box2D's world pickles to a shell whose next step
raises (LunarLander), and a game whose state lives in a process or a socket does not pickle
at all. Either would turn every return into a false crash report or a lost cell. So a run
plays a few seeded episodes of random actions in one copy, snapshots each after
:data:`games.core.snapshots.SNAPSHOT_EVERY` steps, restores the snapshot and plays the same
actions again: returns restore snapshots only where every state and observation came out the
same. A game that does not replay (sticky inputs drawn from its own generator) plays on
differently from its own reset too: there a snapshot need only bring back the state it was
taken in and play on without raising, which is all a return asks of it.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from games.core.base import VecStep
from games.core.snapshots import SNAPSHOT_EVERY

log = logging.getLogger(__name__)

TRIES = 5
"""Episodes tried; one that ends (or raises) before its snapshot says nothing either way."""
AFTER = SNAPSHOT_EVERY
"""Steps compared after the snapshot."""


def snapshot_every(factory: Any, seed: int, label: str = "the game") -> int:
    """:data:`SNAPSHOT_EVERY` where ``factory``'s game restores its snapshots faithfully, else 0
    (with one line saying why returns replay instead)."""
    game = None
    try:
        game = factory.make_vector(1)
        if not hasattr(game, "reset_from"):
            return 0
        rng = np.random.default_rng([int(seed), 0x534E])
        n_actions, horizon = game.game_spec.n_actions, int(game.game_spec.max_steps)
        for _ in range(TRIES):
            verdict = _try(game, int(rng.integers(0, 2**31)), rng.integers(0, n_actions, SNAPSHOT_EVERY + AFTER),
                           horizon)
            if verdict is not None:
                if not verdict:
                    log.info("%s: a restored snapshot played on differently; returns replay from the reset", label)
                return SNAPSHOT_EVERY if verdict else 0
        return 0
    except Exception as exc:  # noqa: BLE001 - a game that cannot do this replays, as before (and
        # one that cannot start says so where the run starts its copies)
        log.info("%s: no snapshots (%s: %s); returns replay from the reset", label, type(exc).__name__, exc)
        return 0
    finally:
        if game is not None:
            game.close()


def _try(game: Any, episode_seed: int, actions: np.ndarray, horizon: int) -> bool | None:
    """True where the restored snapshot played ``actions`` as the game did, False where not,
    None where this episode could not tell (it ended or raised before the comparison)."""
    if horizon <= SNAPSHOT_EVERY:
        return None
    game.reset_from([episode_seed], None, None, SNAPSHOT_EVERY)
    seen: list[VecStep] = []
    snapshot = None
    for t, action in enumerate(actions.tolist()):
        out = game.step(np.array([action]))
        if out.errors:
            return None
        seen.append(out)
        if t + 1 == SNAPSHOT_EVERY:
            snapshot = out.snapshots.get(0)
            if not snapshot:  # none taken, or the game cannot be pickled
                return False
        if out.terminated[0] or out.truncated[0]:
            break
    if snapshot is None or len(seen) <= SNAPSHOT_EVERY:
        return None
    obs, features = game.reset_from([episode_seed], [snapshot], [SNAPSHOT_EVERY], 0)
    taken = seen[SNAPSHOT_EVERY - 1]
    if not (np.array_equal(features, taken.features) and np.array_equal(obs, taken.obs)):
        return False  # not even the state it was taken in
    after = _replayed(game, seen[SNAPSHOT_EVERY:], actions[SNAPSHOT_EVERY:])
    if after != "differs":
        return after == "same"
    game.reset_from([episode_seed], None, None, 0)  # does the game replay from its reset?
    return _replayed(game, seen, actions) == "differs"


def _replayed(game: Any, seen: list[VecStep], actions: np.ndarray) -> str:
    """How the game, stepped with ``actions``, plays against the steps ``seen``: "same",
    "differs" (a state or an observation) or "raised"."""
    for before, action in zip(seen, actions.tolist()):
        out = game.step(np.array([action]))
        if out.errors:
            return "raised"
        if not (np.array_equal(out.features, before.features) and np.array_equal(out.obs, before.obs)
                and bool(out.terminated[0]) == bool(before.terminated[0])):
            return "differs"
    return "same"
