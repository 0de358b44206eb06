"""The cell archive: shortest ways to every cell, Go-Explore's weights, seeded selection,
and its state through a checkpoint."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evo.run.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from evo.search.explore.cell_archive import CellArchive, selection_weights
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch

SPEC = GameSpec(obs_shape=(1,), n_actions=2, feature_names=("x",), feature_low=(0.0,), feature_high=(10.0,),
                feature_bins=(10,), max_steps=20, )


def walk(seed: int, xs: list[int]) -> Rollout:
    """An episode on a line through the cells ``xs`` (action 1 moves right, 0 left)."""
    actions = np.array([1 if b > a else 0 for a, b in zip(xs[:-1], xs[1:])], dtype=np.int64)
    n = len(actions)
    return Rollout(0, seed, actions, np.zeros(n), np.array(xs, dtype=np.float64)[:, None] + 0.5, np.zeros(n),
                   terminated=False, truncated=True)


def test_insertion_keeps_the_shortest_way_to_each_cell() -> None:
    archive = CellArchive(SPEC)
    long_way = walk(7, [0, 1, 0, 1, 2, 3])  # cell 3 after 5 steps
    found = archive.update(RolloutBatch.from_rollouts([long_way]), generation=0, env_steps=5)
    assert found.tolist() == [True] and len(archive) == 4
    row = int(archive.rows_of(np.array([3]))[0])
    assert archive.columns["length"][row] == 5 and archive.columns["seed"][row] == 7
    # A later batch: one episode reaches cell 3 in 3 steps, one in 4 (the shorter wins),
    # and one finds nothing new.
    batch = RolloutBatch.from_rollouts([walk(8, [0, 1, 2, 1, 2, 3]), walk(9, [0, 1, 2, 3]), walk(10, [0, 1, 0])])
    found = archive.update(batch, generation=2, env_steps=40)
    assert found.tolist() == [False, False, False]
    assert archive.columns["length"][row] == 3 and archive.columns["seed"][row] == 9
    np.testing.assert_array_equal(archive.prefixes[row], [1, 1, 1])
    assert archive.columns["generation"][row] == 0 and archive.columns["env_steps"][row] == 5  # first found
    # Visits: cell 0 was visited twice in the first episode, then 1, 1 and 2 times.
    assert archive.columns["seen"][int(archive.rows_of(np.array([0]))[0])] == 2 + 1 + 1 + 2
    # Every way to cell 3 so far ended the episode there: nothing to explore from it.
    assert archive.columns["open"][row] == 0 and archive.weights()[row] == 0
    # A longer way never replaces a shorter one of the same kind ...
    archive.update(RolloutBatch.from_rollouts([walk(11, [0, 1, 2, 1, 2, 3])]), generation=3, env_steps=50)
    assert archive.columns["length"][row] == 3 and archive.columns["seed"][row] == 9
    # ... but a way that plays on from the cell replaces one that ended there.
    archive.update(RolloutBatch.from_rollouts([walk(12, [0, 1, 0, 1, 2, 3, 4])]), generation=4, env_steps=60)
    assert archive.columns["length"][row] == 5 and archive.columns["open"][row] == 1 and len(archive) == 5
    assert archive.columns["generation"][-1] == 4 and archive.columns["open"][-1] == 0  # cell 4, new, closed
    assert (archive.select(100, np.random.default_rng(0)) != len(archive) - 1).all()  # never a closed cell


def test_weights_favour_new_and_rarely_chosen_cells() -> None:
    w = selection_weights(seen=np.array([1, 1, 100, 1]), chosen=np.array([0, 5, 0, 50]))
    assert w[0] > w[1] > w[3]  # chosen more often, weighs less
    assert w[0] > w[2]  # visited more often, weighs less
    assert w[0] == w.max()  # never chosen, rarely seen: first


def test_selection_is_seeded_and_counts_choices() -> None:
    archive = CellArchive(SPEC)
    archive.update(RolloutBatch.from_rollouts([walk(1, [0, 1, 2, 3, 4, 5])]), 0, 5)
    a = archive.select(50, np.random.default_rng(3))
    chosen = archive.columns["chosen"].copy()
    assert chosen.sum() == 50
    again = CellArchive(SPEC)
    again.update(RolloutBatch.from_rollouts([walk(1, [0, 1, 2, 3, 4, 5])]), 0, 5)
    np.testing.assert_array_equal(again.select(50, np.random.default_rng(3)), a)
    # Cells chosen often are drawn less from then on.
    archive.columns["chosen"][:3] += 1000
    later = archive.select(200, np.random.default_rng(4))
    assert (later >= 3).mean() > 0.5  # weights ~1.04 against ~0.74: 58% expected
    archive.credit(np.array([0, 1, 1]), np.array([True, True, False]))
    assert archive.columns["productive"][:2].tolist() == [1, 1]


def test_an_archive_without_open_cells_has_nothing_to_return_to() -> None:
    with pytest.raises(ValueError, match="cell archive has no open cell"):
        CellArchive(SPEC).select(1, np.random.default_rng(0))
    goal = CellArchive(SPEC)  # an episode that ended where it began: its one cell is closed
    goal.update(RolloutBatch.from_rollouts([walk(0, [0])]), 0, 0)
    with pytest.raises(ValueError, match="no open cell"):
        goal.select(1, np.random.default_rng(0))


def test_state_round_trips_through_a_checkpoint(tmp_path: Path) -> None:
    archive = CellArchive(SPEC)
    archive.update(RolloutBatch.from_rollouts([walk(1, [0, 1, 2, 3]), walk(2, [0, 1, 0, 1, 2, 3, 4, 5])]), 1, 9)
    archive.select(4, np.random.default_rng(0))
    meta = {"generation": 0, "cells": archive.state_dict()}
    save_checkpoint(tmp_path, Checkpoint(np.zeros((1, 0), np.float32), np.zeros(1), np.zeros((1, 1)), meta))
    loaded = CellArchive(SPEC)
    (path,) = (tmp_path / "checkpoints").glob("*.pt")
    loaded.load_state_dict(load_checkpoint(path).meta["cells"])  # torch.load(weights_only=True)
    for name, column in archive.columns.items():
        np.testing.assert_array_equal(loaded.columns[name], column)
    np.testing.assert_array_equal(loaded.features, archive.features)
    assert [p.tolist() for p in loaded.prefixes] == [p.tolist() for p in archive.prefixes]
    np.testing.assert_array_equal(loaded.select(5, np.random.default_rng(1)), archive.select(5, np.random.default_rng(1)))
    assert list(loaded.table().columns[-1:]) == ["x"] and len(loaded.table()) == len(archive)


def test_hashed_keys_work_like_dense_ones() -> None:
    """A bucket space too large for dense keys (hashed): the same cells and ways."""
    big = GameSpec(obs_shape=(1,), n_actions=2, feature_names=("x", "y", "z"), feature_low=(0.0,) * 3,
                   feature_high=(10.0,) * 3, feature_bins=(1000, 1000, 1000), max_steps=20)
    assert big.key_space() is None
    archive = CellArchive(big)
    r = walk(3, [0, 1, 2, 1, 2])
    r3 = Rollout(0, 3, r.actions, r.rewards, np.repeat(r.features, 3, axis=1), r.frame_ms, False, True)
    archive.update(RolloutBatch.from_rollouts([r3]), 0, 4)
    assert len(archive) == 3 and sorted(archive.columns["length"].tolist()) == [0, 1, 2]
