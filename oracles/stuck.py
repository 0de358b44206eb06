"""Stuck oracle: the state stopped changing while the policy kept trying different actions.

Wuji, oracle "stuck": the moving average of the previous n states is compared with the
current state; "if the difference between current observed state s and s̄ is less than a
threshold, a stuck potential bug is discovered". Wuji checks states, not screens, because
"monitoring the game screen is too heavy and not scalable".

The comparison here is with every one of the previous n states, not with their mean: an
agent walking a small loop (up, right, down, left) stands on the mean of its window while
moving all the time, and the mean test calls that stuck.

A state that does not change is not enough on its own: an agent pushing one way into a wall
stays put too, and that is the game working. So the oracle also asks that the ignored steps
used several different actions (all of them, by default): every input was tried and none
moved the game.

Where the state features are a coarse summary of the observation (a Gymnasium game that
observes frames gets Go-Explore's cells: :attr:`games.core.base.GameSpec.coarse_features`), a
sprite can move a pixel a step and stay in its cell, and the features alone would call that
stuck. There a step also changed the state when it changed the observation's digest (the
``info.obs_digest`` column); a game that animates something every frame is then never stuck,
which misses a bug rather than reporting a false one.

A game that says which features are its position (:attr:`games.core.base.GameSpec.position`:
an Unreal camera's location) is compared on those alone: a player
who can still turn the camera but can no longer move changes its state every step and was
never called stuck. There frames are not compared, and a place is one bug whichever way the
camera looked.

A game with chance in its moves can hold a state for a window by luck: on slippery ice
(Gymnasium's FrozenLake) a move slips into the wall one time in three. What tells luck from a
trap is the rest of the batch: a run is reported only if no step of the batch, from the same
state (its features equal; for coarse features, its frame too) and with an action the run
tried, ever changed the state. A trap ignores its actions every time; a slip does not. A freeze
that lets go after a while (the same place, the same action, moving later) is not reported
either: it was not stuck, only slow.

Where the state features are exact (no frame digest), the oracle also watches for chance: one
state and action that held in one step and moved in another (sticky inputs, the last move
played again by chance, hold a robot in a dead end until its exit goes through). Once it has
seen chance, it remembers over the run each state that let go after it held, with the action
that moved it, so that a hold the episode's end cuts short is luck wherever an earlier episode
moved on from the same state with an action the run tried; and a hold at a place not held
before is kept back until the place holds again: a trap holds every time, a dead end lets go.
A game without chance never pays for the memory, and replays (:meth:`forget_visits`) are
judged without it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import OBS_DIGEST_KEY, RolloutBatch
from oracles.base import Bug, Oracle, OracleConfig, register
from oracles.describe import describe_point


class StuckConfig(OracleConfig):
    """Settings of the stuck oracle."""

    window: int = Field(default=8, ge=1)
    """n of Wuji's moving average: how many previous states the current one is compared with,
    and how many steps in a row the game must have ignored."""

    tolerance: float = Field(default=1e-6, ge=0.0)
    """Wuji's threshold on the difference to each of the window's states, per feature (max-abs). The default only forgives
    float rounding: a feature that moves at all is not stuck."""

    min_distinct_actions: int | None = Field(default=None, ge=1)
    """How many different actions the ignored steps must include; ``None`` means every
    action of the game (``spec.n_actions``). 1 turns the action check off."""


@register("stuck", StuckConfig)
class StuckOracle(Oracle):
    """Reports, once per rollout, the first step at which the game ignored ``window`` steps."""

    name = "stuck"

    def __init__(self, spec: GameSpec, config: StuckConfig, context: Context) -> None:
        self.spec = spec
        self.config = config
        self.min_distinct = (
            spec.n_actions if config.min_distinct_actions is None
            else config.min_distinct_actions
        )
        self.position = [spec.feature_names.index(p) for p in spec.position] or None
        """The features compared (:attr:`games.core.base.GameSpec.position`); None: all."""
        digest = spec.coarse_features and self.position is None
        self.requires = frozenset({f"info.{OBS_DIGEST_KEY}"}) if digest else frozenset()
        self.let_go: set[tuple[bytes, int]] = set()
        """(state as float64 bytes, action) of each held state the run saw an action move on
        from since it saw chance (exact features only: see the module)."""
        self.chancy = False
        """Whether the game was seen to ignore an input by chance."""
        self.held_once: set[str] = set()
        """Signatures of holds kept back in a chancy game, until they hold again."""

    def changed(self, features: np.ndarray, digests: np.ndarray | None = None) -> np.ndarray:
        """``[T, N]`` (time-major): whether step ``t`` of each of N padded episodes changed the
        state: some feature moved by more than ``tolerance``, or, where ``digests`` (``[N, T]``
        observation digests after each step) are given, the observation changed. The first
        step has no digest before it, so it counts as changed there: the oracle never calls a
        step unchanged without evidence.

        Args:
            features: ``[N, T + 1, F]`` states.
            digests: ``[N, T]`` digests, or None.
        """
        # Time-major ([T, N]): every scan below runs down contiguous rows of the batch.
        feats = np.ascontiguousarray(features.transpose(1, 0, 2))
        delta = np.abs(feats[1:] - feats[:-1])
        changed = delta[:, :, 0] > self.config.tolerance
        for j in range(1, delta.shape[2]):  # a loop over the few features beats max(axis=2)
            changed |= delta[:, :, j] > self.config.tolerance
        if digests is not None and changed.shape[0]:
            seen = np.ascontiguousarray(np.asarray(digests).T)
            changed[0] = True
            changed[1:] |= seen[1:] != seen[:-1]
        return changed

    def first_stuck_steps(
        self, features: np.ndarray, actions: np.ndarray, lengths: np.ndarray,
        digests: np.ndarray | None = None,
    ) -> np.ndarray:
        """The first stuck step of each of N padded episodes, or -1, all at once.

        Step ``t`` is stuck when it and the steps before it back to the start ``s`` of the
        run left the state unchanged (each within ``tolerance`` of the one before), the run
        is at least ``window`` steps long (``t + 1 - s >= window``), and the steps of the
        run, ``actions[s : t + 1]``, used at least ``min_distinct`` different actions.
        Counting over the whole run, not only its last ``window`` steps, lets a policy with
        strong preferences show that it tried everything, given time.

        Args:
            features: ``[N, T + 1, F]`` states.
            actions: ``[N, T]`` actions.
            lengths: ``[N]`` valid steps per row.
            digests: ``[N, T]`` observation digests after each step, or None (:meth:`changed`).
        """
        n_rows, horizon = actions.shape
        if horizon == 0:
            return np.full(n_rows, -1, dtype=np.int64)
        return self._first_stuck(self.changed(features, digests), actions, lengths)

    def _first_stuck(self, changed: np.ndarray, actions: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """:meth:`first_stuck_steps` from the ``[T, N]`` changed steps."""
        n_rows, horizon = actions.shape
        out = np.full(n_rows, -1, dtype=np.int64)
        steps = np.arange(horizon)[:, None]
        # Only episodes with at least `window` state-preserving steps can be stuck.
        maybe = np.flatnonzero(((~changed) & (steps < lengths[None, :])).sum(axis=0) >= self.config.window)
        if maybe.size == 0:
            return out
        changed, lengths = changed[:, maybe], lengths[maybe]
        acts = np.ascontiguousarray(actions[maybe].T)
        n_rows = maybe.size
        # State index at which the current run of unchanged states began, per step.
        run_start = np.maximum.accumulate(np.where(changed, steps + 1, 0), axis=0)
        distinct = np.zeros((horizon, n_rows), dtype=np.int64)
        for a in range(max(self.spec.n_actions, int(acts.max(initial=0)) + 1)):
            last = np.maximum.accumulate(np.where(acts == a, steps, -1), axis=0)
            distinct += last >= run_start
        stuck = (
            (steps < lengths[None, :]) & ~changed
            & (steps + 1 - run_start >= self.config.window)
            & (distinct >= self.min_distinct)
        )
        out[maybe] = np.where(stuck.any(axis=0), stuck.argmax(axis=0), -1)
        return out

    @staticmethod
    def _left_elsewhere(rollouts: RolloutBatch, features: np.ndarray, changed: np.ndarray,
                        digests: np.ndarray | None, row: int, begin: int, t: int) -> bool:
        """Whether a step of the batch, from the state row ``row`` froze in at ``begin``, with
        an action its run ``begin..t`` tried, changed the state (``changed``: ``[T, N]``).

        States are the same when their features are equal and, where ``digests`` are given
        (coarse features), the frames they were observed in too; the reset's frame has no
        digest, so a run frozen from the reset on has no such evidence."""
        before = features[:, :-1]
        same = (before == features[row, begin]).all(axis=-1)
        if digests is not None:
            if begin == 0:
                return False
            seen = np.concatenate([np.full((len(rollouts), 1), np.nan), np.asarray(digests[:, :-1], dtype=np.float64)], axis=1)
            same &= seen == float(digests[row, begin - 1])
        steps = np.arange(rollouts.actions.shape[1])[None, :]
        tried = np.isin(rollouts.actions, np.unique(rollouts.actions[row, begin : t + 1]))
        return bool((same & tried & changed.T & (steps < rollouts.lengths[:, None])).any())

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """At most one ``stuck`` bug per rollout, at its first stuck step.

        The signature is the bucket of the stuck state (the game's ``feature_bins``), so one
        trap reached by many policies, or from slightly different positions inside one cell,
        is one bug.
        """
        bugs: list[Bug] = []
        n = self.config.window
        if rollouts.actions.shape[1] == 0:
            return bugs
        digests = rollouts.info.get(OBS_DIGEST_KEY) if self.position is None else None
        features = rollouts.features if self.position is None else rollouts.features[..., self.position]
        changed = self.changed(features, digests)
        if digests is None and not self.chancy:
            self.chancy = self._chance_in(features, changed, rollouts.actions, rollouts.lengths)
        firsts = self._first_stuck(changed, rollouts.actions, rollouts.lengths)
        seen: set[str] = set()  # the archive keeps the first of a signature; so can we
        for i in np.flatnonzero(firsts >= 0):
            rollout, t = rollouts[int(i)], int(firsts[i])
            point = tuple(int(b) for b in self.spec.buckets(rollout.features[t + 1]))
            where = point if self.position is None else tuple(point[j] for j in self.position)
            if f"stuck:{where}" in seen:
                continue
            run = np.flatnonzero(changed[: t + 1, i])
            begin = int(run[-1]) + 1 if run.size else 0  # the first state of the frozen run
            if self._left_elsewhere(rollouts, features, changed, digests, int(i), begin, t) or (
                    digests is None and self._let_go_before(features[int(i), begin], rollout.actions[begin : t + 1])):
                self.chancy = True
                continue  # luck, not a trap: the same state and action moved on elsewhere
            if self.chancy and f"stuck:{where}" not in self.held_once:
                self.held_once.add(f"stuck:{where}")
                continue  # kept back until it holds again
            seen.add(f"stuck:{where}")
            distinct = len(np.unique(rollout.actions[begin : t + 1]))
            bugs.append(Bug.at_step(
                rollout, t,
                kind="stuck",
                oracle=self.name,
                signature=f"stuck:{where}",
                message=(
                    f"{'position' if self.position else 'state'} unchanged for {t + 1 - begin} steps at step "
                    f"{rollout.start + t} "
                    f"despite {distinct} different actions (bucket {describe_point(self.spec, point)})"
                ),
                data={"window": n, "tolerance": self.config.tolerance,
                      "distinct_actions": distinct},
            ))
        if digests is None and self.chancy:
            self._remember_let_go(features, changed, rollouts.actions, rollouts.lengths)
        return bugs

    @staticmethod
    def _chance_in(features: np.ndarray, changed: np.ndarray, actions: np.ndarray, lengths: np.ndarray) -> bool:
        """Whether one state and action of the batch held in one step and moved in another."""
        valid = np.arange(actions.shape[1])[None, :] < lengths[:, None]
        states = np.ascontiguousarray(features[:, :-1][valid], dtype=np.float64)
        if not len(states):
            return False
        rows = np.concatenate([states, actions[valid].astype(np.float64)[:, None]], axis=1)
        _, group = np.unique(rows, axis=0, return_inverse=True)
        moved = changed.T[valid]
        group = group.ravel()
        return bool(np.any(np.bincount(group, moved) * np.bincount(group, ~moved)))

    def _let_go_before(self, state: np.ndarray, tried: np.ndarray) -> bool:
        key = np.asarray(state, dtype=np.float64).tobytes()
        return any((key, int(a)) in self.let_go for a in np.unique(tried).tolist())

    def _remember_let_go(self, features: np.ndarray, changed: np.ndarray, actions: np.ndarray,
                         lengths: np.ndarray) -> None:
        """Add the batch's steps that moved on from a state held the step before."""
        if changed.shape[0] < 2:
            return
        steps = np.arange(1, changed.shape[0])[:, None]
        t, i = np.nonzero(changed[1:] & ~changed[:-1] & (steps < lengths[None, :]))
        t = t + 1
        states = np.ascontiguousarray(features[i, t], dtype=np.float64)
        self.let_go.update(zip((row.tobytes() for row in states), actions[i, t].tolist()))

    def forget_visits(self) -> None:
        """A replay is judged on its own evidence: no memory of the run's chance."""
        self.let_go, self.chancy, self.held_once = set(), False, set()

    def state_dict(self) -> dict[str, Any]:
        """The memory of chance (JSON: each remembered state's features, then its action)."""
        pairs = sorted(self.let_go)
        return {"let_go": [[*np.frombuffer(k, dtype=np.float64).tolist(), a] for k, a in pairs],
                "chancy": self.chancy, "held_once": sorted(self.held_once)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if "let_go" not in state:  # a checkpoint from before the memory
            return
        self.let_go = {(np.asarray(row[:-1], dtype=np.float64).tobytes(), int(row[-1])) for row in state["let_go"]}
        self.chancy, self.held_once = bool(state["chancy"]), set(state["held_once"])
