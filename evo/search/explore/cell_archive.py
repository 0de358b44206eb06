"""The cell archive: every state bucket a run reached, and the shortest way back to it.

Go-Explore's archive (Ecoffet et al., "First return, then explore", Nature 2021): a cell is
a state bucket (:meth:`games.core.base.GameSpec.bucket_keys` of the state features, hashed where
the bucket space is large); for each one the archive keeps the shortest known way there
from a reset (the episode seed and the action prefix), when it was found (generation, env
steps), how often the run visited it, how often it was chosen as a start, and how often
exploring from it found a cell nobody had reached before.

Because a way there is a seed and actions from the reset, an episode that returns to a cell
is an ordinary episode of the record: whatever it finds replays from the reset like any
other bug. Where the game took snapshots on the way (:mod:`games.core.snapshots`), a cell also
keeps the last one taken at or before it, so that a return restores it and replays only the
steps after; the snapshots are kept within :data:`SNAPSHOT_MB`, those of the cells least
likely to be chosen dropped first (theirs is a return by replay again).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd
import torch

from games.core.base import GameSpec
from games.core.buckets import tally
from games.core.record import RolloutBatch

COLUMNS = ("key", "seed", "length", "open", "generation", "env_steps", "seen", "chosen", "productive",
           "snap", "snap_at")
"""The archive's int64 columns, one row per cell (``length``: steps of its prefix; ``open``:
1 where play goes on from the end of the prefix, 0 where the episode ended there, at a goal,
a fatal error or the horizon, so that nothing can be explored from it; ``snap``: the id of
the snapshot a return restores, -1 for none, taken ``snap_at`` steps into the prefix)."""

SNAPSHOT_MB = 512.0
"""The most the archive's snapshots take (compressed): 170,000 of MiniGrid's, 25,000 of Crafter's."""


def selection_weights(seen: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Go-Explore's count-based cell weights: fewer visits and fewer choices weigh more.

    Each count ``c`` contributes ``1 / sqrt(c + 1)`` (Go-Explore's count subscores, power
    0.5; Ecoffet et al. 2019 Sec. 2.1, Nature 2021 Methods), so a cell never chosen
    outweighs every chosen cell seen as often: new cells first.
    """
    return 1.0 / np.sqrt(np.asarray(chosen, np.float64) + 1.0) + 1.0 / np.sqrt(np.asarray(seen, np.float64) + 1.0)


class CellArchive:
    """The cells a run reached, updated from whole rollout batches in linear time.

    Args:
        spec: The game's spec (features, bins, actions).
        bins: Intervals per feature that define a cell; the game's ``feature_bins`` if None.
    """

    def __init__(self, spec: GameSpec, bins: Sequence[int] | None = None) -> None:
        self.spec = spec
        self.bins = tuple(int(b) for b in (spec.feature_bins if bins is None else bins))
        self.columns = {name: np.zeros(0, dtype=np.int64) for name in COLUMNS}
        self.features = np.zeros((0, spec.n_features), dtype=np.float64)
        """``[C, F]`` the state each cell's prefix ends in (what a table shows of a cell)."""
        self.prefixes: list[np.ndarray] = []
        """Per cell, the actions from the reset (int32), ``length`` of them."""
        self.snapshots: dict[int, bytes] = {}
        """Snapshot id -> the game's state, shared by the cells whose ``snap`` it is."""
        self._ids: dict[bytes, int] = {}
        self._bytes = 0
        self._next_id = 0
        self._index: pd.Index | None = None

    def __len__(self) -> int:
        return int(self.columns["key"].shape[0])

    # ------------------------------------------------------------------ lookup and update
    def rows_of(self, keys: np.ndarray) -> np.ndarray:
        """The archive row of each key, -1 for keys not archived."""
        if self._index is None:
            self._index = pd.Index(self.columns["key"])
        return np.asarray(self._index.get_indexer(np.asarray(keys, dtype=np.int64)), dtype=np.int64)

    def keys_of(self, batch: RolloutBatch) -> np.ndarray:
        """``[N, T + 1]`` cell key of every state of the batch (padding included)."""
        return batch.state_keys(self.spec, self.bins)

    def update(self, batch: RolloutBatch, generation: int, env_steps: int) -> np.ndarray:
        """Add the batch's cells, shorten the ways to known ones, count the visits.

        States are taken time-major (step 0 of every episode, then step 1...), each
        episode's last state after all the others (by length): the first occurrence of a
        key is its earliest step from which play went on, or failing that its shortest
        way to an end. An open way replaces a closed one; otherwise only a shorter way
        replaces the archived one.

        Returns:
            ``[N]`` bool: the episodes that reached a cell the archive did not have.
        """
        found = np.zeros(len(batch), dtype=bool)
        if not len(batch):
            return found
        lengths = batch.lengths
        steps_open, rows_open = np.nonzero(np.arange(batch.features.shape[1])[:, None] < lengths[None, :])
        rows_end = np.argsort(lengths, kind="stable")
        steps, rows = np.concatenate([steps_open, lengths[rows_end]]), np.concatenate([rows_open, rows_end])
        keys, first, counts = tally(self.keys_of(batch)[rows, steps], self.spec.key_space(self.bins))
        step, row, is_open = steps[first], rows[first], (first < steps_open.size).astype(np.int64)
        at = self.rows_of(keys)
        old = at >= 0
        c = self.columns
        c["seen"][at[old]] += counts[old]
        was_open, length = c["open"][at[old]], c["length"][at[old]]
        start = batch.starts()
        step_abs = start[row] + step  # from the reset, where a row began from a snapshot
        better = old.copy()
        better[old] = (is_open[old] > was_open) | ((is_open[old] == was_open) & (step_abs[old] < length))
        for i in np.flatnonzero(better):  # a loop over improved cells only, not over steps
            self._write(int(at[i]), batch, int(row[i]), int(step[i]), int(is_open[i]))
        new = ~old
        if new.any():
            found[row[new]] = True
            n = int(new.sum())
            snaps = np.array([self._snapshot_of(batch, int(r), int(t)) for r, t in zip(row[new], step[new])],
                             dtype=np.int64).reshape(n, 2)
            added = {
                "key": keys[new], "seed": batch.episode_seed[row[new]], "length": step_abs[new], "open": is_open[new],
                "generation": np.full(n, generation), "env_steps": np.full(n, env_steps),
                "seen": counts[new], "chosen": np.zeros(n, np.int64), "productive": np.zeros(n, np.int64),
                "snap": snaps[:, 0], "snap_at": snaps[:, 1],
            }
            for name in COLUMNS:
                c[name] = np.concatenate([c[name], np.asarray(added[name], dtype=np.int64)])
            self.features = np.concatenate([self.features, batch.features[row[new], step[new]]])
            self.prefixes.extend(self._way(batch, int(r), int(s)) for r, s in zip(row[new], step[new]))
            self._index = None
        self._bound()
        return found

    def _way(self, batch: RolloutBatch, row: int, step: int) -> np.ndarray:
        """The actions from the reset to ``step`` of ``batch`` row ``row`` (int32)."""
        way = batch.actions[row, :step].astype(np.int32)
        return way if batch.head is None else np.concatenate([batch.head[row].astype(np.int32), way])

    def _write(self, at: int, batch: RolloutBatch, row: int, step: int, is_open: int) -> None:
        """A better way to cell ``at``: ``step`` actions of ``batch`` row ``row``."""
        c = self.columns
        way = self._way(batch, row, step)
        c["seed"][at], c["length"][at], c["open"][at] = batch.episode_seed[row], way.shape[0], is_open
        c["snap"][at], c["snap_at"][at] = self._snapshot_of(batch, row, step)
        self.features[at] = batch.features[row, step]
        self.prefixes[at] = way

    # ------------------------------------------------------------------ snapshots
    def _snapshot_of(self, batch: RolloutBatch, row: int, step: int) -> tuple[int, int]:
        """``(id, steps from the reset)`` of the last snapshot row ``row`` took at or before its
        ``step``, kept in the archive; ``(-1, 0)`` where it took none."""
        taken = {} if batch.snapshots is None else batch.snapshots[row]
        at = max((k for k in taken if k <= step and taken[k]), default=None)
        if at is None:
            return -1, 0
        snapshot = taken[at]
        if snapshot not in self._ids:
            self._ids[snapshot], self._next_id = self._next_id, self._next_id + 1
            self.snapshots[self._ids[snapshot]] = snapshot
            self._bytes += len(snapshot)
        return self._ids[snapshot], int(batch.starts()[row]) + at

    def _bound(self, limit_mb: float = SNAPSHOT_MB) -> None:
        """Drop snapshots, those whose cells weigh least first, until they take at most
        ``limit_mb``; their cells are returned to by replay."""
        if self._bytes <= limit_mb * 2**20:
            return
        snap = self.columns["snap"]
        has = snap >= 0
        best = pd.Series(self.weights()[has]).groupby(snap[has]).max().sort_values()
        for sid in best.index:
            if self._bytes <= 0.9 * limit_mb * 2**20:
                break
            snapshot = self.snapshots.pop(int(sid))
            del self._ids[snapshot]
            self._bytes -= len(snapshot)
            snap[snap == sid] = -1

    def start_of(self, row: int) -> tuple[bytes | None, int]:
        """The snapshot a return to cell ``row`` restores and the steps of its prefix it stands
        for; ``(None, 0)`` where the return replays from the reset."""
        sid = int(self.columns["snap"][row])
        if sid < 0:
            return None, 0
        return self.snapshots[sid], int(self.columns["snap_at"][row])

    # ------------------------------------------------------------------ selection
    def weights(self) -> np.ndarray:
        """``[C]`` selection weights (:func:`selection_weights`), 0 for cells that are not
        open (the episode ended there: nothing to explore)."""
        return selection_weights(self.columns["seen"], self.columns["chosen"]) * self.columns["open"]

    def select(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``n`` cells (with replacement) by their weights and count them as chosen.

        Args:
            n: Cells to draw.
            rng: The experiment's generator for exploration (never global state).

        Returns:
            ``[n]`` archive rows.
        """
        w = self.weights()
        if not w.any():
            raise ValueError("the cell archive has no open cell: nothing to return to")
        rows = rng.choice(len(self), size=n, p=w / w.sum())
        np.add.at(self.columns["chosen"], rows, 1)
        return rows

    def credit(self, rows: np.ndarray, productive: np.ndarray) -> None:
        """Count the returns to ``rows`` whose exploration found a new cell."""
        np.add.at(self.columns["productive"], np.asarray(rows)[np.asarray(productive, dtype=bool)], 1)

    def landed(self, batch: RolloutBatch, rows: np.ndarray, copies: np.ndarray) -> np.ndarray:
        """Whether each returning copy reached its cell at the end of its prefix.

        Args:
            batch: The batch the copies played.
            rows: ``[R]`` the archive row each returning copy went back to.
            copies: ``[R]`` their rows in ``batch``.

        Returns:
            ``[R]`` bool; False where the episode ended before the prefix did or its state
            there lies in another bucket (a game that does not replay). An episode the
            run's wall budget truncated inside its prefix says nothing either way: True.
        """
        length = self.columns["length"][rows] - batch.starts()[copies]  # the part the copy played
        long_enough = batch.lengths[copies] >= length
        step = np.minimum(length, batch.lengths[copies])
        reached = self.spec.bucket_keys(batch.features[copies, step], self.bins)
        cut = ~long_enough & batch.truncated[copies]  # a prefix is never longer than the horizon
        return (long_enough & (reached == self.columns["key"][rows])) | cut

    # ------------------------------------------------------------------ tables and state
    def table(self) -> pd.DataFrame:
        """One row per cell: its columns and the features of its state, in order found."""
        frame = pd.DataFrame({name: self.columns[name] for name in COLUMNS})
        for j, name in enumerate(self.spec.feature_names):
            frame[name] = self.features[:, j]
        return frame

    def state_dict(self) -> dict[str, Any]:
        """Tensors for the checkpoint: the columns, the features and the prefixes packed
        end to end (their lengths are the ``length`` column)."""
        flat = np.concatenate(self.prefixes) if self.prefixes else np.zeros(0, dtype=np.int32)
        ids = sorted(self.snapshots)
        return {
            "bins": list(self.bins),
            "columns": {name: torch.from_numpy(self.columns[name].copy()) for name in COLUMNS},
            "features": torch.from_numpy(self.features.copy()),
            "prefixes": torch.from_numpy(flat.astype(np.int32)),
            "snapshot_ids": torch.tensor(ids + [self._next_id], dtype=torch.int64),
            "snapshot_sizes": torch.tensor([len(self.snapshots[i]) for i in ids], dtype=torch.int64),
            "snapshots": torch.from_numpy(np.frombuffer(b"".join(self.snapshots[i] for i in ids), np.uint8).copy()),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (tensors or arrays)."""
        self.bins = tuple(int(b) for b in state["bins"])
        n = len(np.asarray(state["columns"]["key"]))
        unsnapped = {"snap": np.full(n, -1), "snap_at": np.zeros(n)}  # a run begun before returns by snapshot
        self.columns = {name: np.asarray(state["columns"].get(name, unsnapped.get(name)), dtype=np.int64).copy()
                        for name in COLUMNS}
        self.features = np.asarray(state["features"], dtype=np.float64).reshape(-1, self.spec.n_features).copy()
        flat = np.asarray(state["prefixes"], dtype=np.int32)
        bounds = np.cumsum(self.columns["length"])[:-1]
        self.prefixes = [p.copy() for p in np.split(flat, bounds)] if len(self) else []
        *ids, self._next_id = (int(i) for i in np.asarray(state.get("snapshot_ids", [0])))
        data = np.asarray(state.get("snapshots", []), dtype=np.uint8).tobytes()
        ends = np.cumsum(np.asarray(state.get("snapshot_sizes", []), dtype=np.int64))
        self.snapshots = {i: data[a:b] for i, a, b in zip(ids, np.concatenate([[0], ends[:-1]]), ends)}
        self._ids = {snapshot: i for i, snapshot in self.snapshots.items()}
        self._bytes = int(ends[-1]) if len(ends) else 0
        self._index = None
