"""How often a bug shows again: each new bug's seed and actions played again as the run finds it.

A game that replays (the same seed and actions give the same states) shows a bug in every
replay; one that does not (sticky inputs, physics on threads, a generator no seed reaches)
shows it in some, and a tester needs to know in how many before filing it. So, where the
experiment asks (``bug_replays``; ``auto``, the default, asks for 10 where the run saw the game
not replay as it started, :mod:`evo.run.replay_check`, and none elsewhere: each replay is an
episode played in the run's own process, 2 s on the park), each bug the
oracles report is played again in :attr:`evo.run.config.Experiment.bug_replays` copies of the
run's game from its episode seed (:class:`evo.run.replays.Replays`), each copy judged alone by
a copy of the oracle that reported it, with the state the oracle has now, as ``evo replay``
judges them (:mod:`evo.bugs.reproduce`); ``bugs.jsonl`` keeps ``reproduced: [showed, played]``.

A way of hundreds of steps from the reset almost never plays the same in such a game (the
sticky large maze: 145 of 148 bugs in none of 10 replays). Where a bug did not show in every
replay and its episode took snapshots (returns by snapshot), it is played again from the
snapshots its episode took before it, the last first (at most 9 steps before the bug), back to
:data:`SNAPSHOTS_TRIED` of them until one shows it: a bug whose evidence began earlier (a hold of
8 steps, for the stuck oracle) shows only from a snapshot before that. The closest that
shows it (else the last) is kept beside ``bugs.jsonl`` (``snapshots/bug-<id>.bin``, what ``evo
replay`` plays it from), with its own rate (``from_snapshot``).

An oracle that judges across visits (the performance oracle) proves nothing from one replay:
its report's rate is the confirmation it played itself (slow again in so many of its
replays). A fault of the game's process told while a generation plays (a hang, memory) is
not replayed here: replaying it costs the fault's own time again, and ``evo replay`` measures it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evo.run.built import Built
from evo.run.replays import Replays
from games.core.component import Context
from games.core.record import RolloutBatch
from oracles import Oracle, Reproduction, build_oracles
from oracles.base import Bug, shown_alone

SNAPSHOTS_TRIED = 4
"""Snapshots of a bug's episode tried before it, the last first, until one shows the bug."""


@dataclass(frozen=True)
class Snapshots:
    """The snapshots one observed batch's episodes took, to find the last one before a bug."""

    policy: np.ndarray
    episode_seed: np.ndarray
    starts: np.ndarray
    head: tuple[np.ndarray, ...] | None
    actions: np.ndarray
    taken: tuple[dict[int, bytes], ...]

    @classmethod
    def of(cls, batch: RolloutBatch) -> "Snapshots | None":
        """Those of ``batch``; None where its episodes took none."""
        if batch.snapshots is None or not any(batch.snapshots):
            return None
        return cls(np.asarray(batch.policy), np.asarray(batch.episode_seed), batch.starts(), batch.head,
                   batch.actions, batch.snapshots)

    def before(self, bug: Bug) -> list[tuple[bytes, int]]:
        """The snapshots ``bug``'s episode took at or before its step, each with that step (from
        the reset), the last first; none where it took none (or is not in this batch)."""
        for i in np.flatnonzero((self.policy == bug.policy) & (self.episode_seed == bug.episode_seed)).tolist():
            start = int(self.starts[i])
            way = np.concatenate([self.head[i] if self.head is not None else np.zeros(0, np.int64),
                                  self.actions[i, : max(bug.step + 1 - start, 0)]])
            if way.shape[0] != len(bug.actions) or not np.array_equal(way, bug.actions):
                continue  # another episode of the same policy and seed
            steps = sorted((k for k, shot in self.taken[i].items() if shot and start + k <= bug.step), reverse=True)
            return [(self.taken[i][k], start + k) for k in steps]
        return []


class Rates:
    """How often a new bug showed again in ``copies`` replays; None where not replayed.

    Args:
        built: The run's game and oracles.
        replays: Plays scripts in copies of the run's game.
        copies: Replays per bug (0: none).
        run_dir: The run directory (the oracles' context).
    """

    def __init__(self, built: Built, replays: Replays, copies: int, run_dir: Path) -> None:
        self.built, self.replays, self.copies, self.run_dir = built, replays, int(copies), run_dir
        self._live = {o.name: o for o in built.oracles}
        self._judges: dict[str, Oracle] = {}

    def __call__(self, bug: Bug, snapshots: Snapshots | None = None) -> Reproduction | None:
        oracle = self._live.get(bug.oracle)
        if not self.copies or oracle is None:
            return None
        if oracle.statistical:  # its own confirmation, where it played one
            data = bug.data
            return Reproduction(int(data["replays_slow"]), int(data["replays"])) if "replays" in data else None
        judge = self._judge(oracle)
        showed = self._showed(judge, oracle, bug, self.replays(bug.episode_seed, bug.actions, self.copies))
        tried = [] if snapshots is None or showed == self.copies else snapshots.before(bug)[:SNAPSHOTS_TRIED]
        kept = None
        for snapshot, at in tried:
            there = self._showed(judge, oracle, bug, self.replays(bug.episode_seed, bug.actions, self.copies, snapshot, at))
            if kept is None or there:
                kept = Reproduction(showed, self.copies, at, there, self.copies, snapshot)
            if there:
                break
        return kept or Reproduction(showed, self.copies)

    @staticmethod
    def _showed(judge: Oracle, oracle: Oracle, bug: Bug, played: RolloutBatch) -> int:
        """In how many of ``played`` the bug showed, each judged alone."""
        judge.load_state_dict(oracle.state_dict())
        return shown_alone(judge, played, bug.signature)

    def _judge(self, oracle: Oracle) -> Oracle:
        """A copy of ``oracle`` built as the run built it, made once."""
        if oracle.name not in self._judges:
            exp = self.built.exp
            kwargs: dict[str, Any] = next(o.kwargs for o in exp.oracles if o.name == oracle.name)
            context = Context(exp.seed, exp.device, self.run_dir, self.built.facts)
            self._judges[oracle.name] = build_oracles([(oracle.name, kwargs)], self.built.spec, context)[0]
        return self._judges[oracle.name]
