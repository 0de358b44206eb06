"""GameSpec's state abstraction (buckets and their keys) and the Rollout record."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.base import GameSpec
from games.core.buckets import count_keys, hash_rows, tally
from games.core.record import Rollout

# A 5 x 3 grid over [0, 10] x [-3, 3]: cells 2 wide in x, 2 tall in y.
SPEC = GameSpec(
    obs_shape=(2,), n_actions=4, feature_names=("x", "y"), feature_low=(0.0, -3.0),
    feature_high=(10.0, 3.0), feature_bins=(5, 3), max_steps=20,
)


def test_buckets_cut_features_into_equal_intervals() -> None:
    features = np.array([[0.0, -3.0], [1.99, -1.01], [2.0, -1.0], [5.0, 0.0], [9.99, 2.99]])
    np.testing.assert_array_equal(
        SPEC.buckets(features), [[0, 0], [0, 0], [1, 1], [2, 1], [4, 2]]
    )
    assert SPEC.buckets(features).dtype == np.int64


def test_buckets_clip_out_of_range_values_into_the_end_buckets() -> None:
    features = np.array([[-100.0, -3.5], [10.0, 3.0], [1e9, 50.0], [-0.01, -1e9]])
    np.testing.assert_array_equal(SPEC.buckets(features), [[0, 0], [4, 2], [4, 2], [0, 0]])


def test_buckets_take_other_intervals_when_given() -> None:
    features = np.array([[4.9, -0.1], [5.0, 0.0], [12.0, -9.0]])
    np.testing.assert_array_equal(SPEC.buckets(features, bins=(2, 2)), [[0, 0], [1, 1], [1, 0]])


def test_a_constant_feature_falls_in_one_bucket() -> None:
    spec = GameSpec(
        obs_shape=(1,), n_actions=2, feature_names=("level",), feature_low=(1.0,),
        feature_high=(1.0,), feature_bins=(3,), max_steps=5,
    )
    np.testing.assert_array_equal(spec.buckets(np.array([[1.0], [0.0], [2.0]])), [[0], [0], [2]])


def cell_centres(spec: GameSpec, bins: tuple[int, int]) -> np.ndarray:
    """``[bins_x, bins_y, 2]`` centre of every cell of a ``bins`` grid over the spec's bounds."""
    (lx, ly), (hx, hy) = spec.feature_low, spec.feature_high
    xs = lx + (np.arange(bins[0]) + 0.5) * (hx - lx) / bins[0]
    ys = ly + (np.arange(bins[1]) + 0.5) * (hy - ly) / bins[1]
    return np.stack(np.meshgrid(xs, ys, indexing="ij"), axis=-1)


def test_bucket_keys_are_unique_per_cell() -> None:
    centres = cell_centres(SPEC, (5, 3))
    keys = SPEC.bucket_keys(centres)
    assert keys.shape == (5, 3) and keys.dtype == np.int64  # leading dims are kept
    assert np.unique(keys).size == 15
    # Another point of the same cell has the same key.
    np.testing.assert_array_equal(SPEC.bucket_keys(centres + 0.4), keys)


def test_bucket_keys_are_unique_per_cell_of_other_intervals() -> None:
    keys = SPEC.bucket_keys(cell_centres(SPEC, (3, 7)), bins=(3, 7))
    assert np.unique(keys).size == 21


def test_bucket_keys_never_overflow() -> None:
    """28 features of 10 bins are 10^28 buckets, an image's cells far more: keys are hashes,
    so every state still gets one int64 key and distinct buckets get distinct keys."""
    rng = np.random.default_rng(0)
    spec = GameSpec(
        obs_shape=(28,), n_actions=2, feature_names=tuple(f"f{j}" for j in range(28)),
        feature_low=(0.0,) * 28, feature_high=(1.0,) * 28, feature_bins=(10,) * 28, max_steps=5,
    )
    states = rng.random((20_000, 28))
    keys = spec.bucket_keys(states)
    assert keys.dtype == np.int64 and keys.shape == (20_000,)
    distinct_buckets = np.unique(spec.buckets(states), axis=0).shape[0]
    assert np.unique(keys).size == distinct_buckets
    wide = GameSpec(
        obs_shape=(88,), n_actions=2, feature_names=tuple(f"c{j}" for j in range(88)),
        feature_low=(0.0,) * 88, feature_high=(8.0,) * 88, feature_bins=(8,) * 88, max_steps=5,
    )
    assert np.unique(wide.bucket_keys(rng.integers(0, 8, (5000, 88)).astype(float))).size == 5000


def test_bucket_keys_of_every_cell_of_a_large_grid_are_distinct() -> None:
    """Small integers are where weak hash combiners collide (boost's did on a 20 x 20 maze)."""
    for shape in ((64, 64), (20, 20, 8), (512, 512)):
        grid = np.stack(np.meshgrid(*[np.arange(k) for k in shape], indexing="ij"), -1).reshape(-1, len(shape))
        assert np.unique(hash_rows(grid)).size == grid.shape[0]


def test_bucket_keys_tell_apart_rows_that_differ_in_one_place() -> None:
    base = np.zeros((64, 6), dtype=np.int64)
    rows = np.concatenate([base[:1]] + [np.eye(1, 6, j, dtype=np.int64) * v for j in range(6) for v in (1, 2, 3)])
    assert np.unique(hash_rows(rows)).size == rows.shape[0]
    # Order matters: (1, 2) and (2, 1) are different buckets.
    assert hash_rows(np.array([[1, 2]]))[0] != hash_rows(np.array([[2, 1]]))[0]


def test_small_bucket_spaces_keep_dense_keys_and_large_ones_are_hashed() -> None:
    assert SPEC.key_space() == 15
    keys = SPEC.bucket_keys(cell_centres(SPEC, (5, 3)))
    assert sorted(keys.ravel().tolist()) == list(range(15))  # dense: counted with bincount
    huge = GameSpec(
        obs_shape=(28,), n_actions=2, feature_names=tuple(f"f{j}" for j in range(28)),
        feature_low=(0.0,) * 28, feature_high=(1.0,) * 28, feature_bins=(10,) * 28, max_steps=5,
    )
    assert huge.key_space() is None


@pytest.mark.parametrize("space", [8, None])
def test_count_and_tally_agree_with_numpy(space: int | None) -> None:
    keys = np.array([5, 3, 5, 7, 3, 3, 0])
    if space is None:
        keys = hash_rows(keys[:, None])
    present, counts = count_keys(keys, space)
    want, want_counts = np.unique(keys, return_counts=True)
    np.testing.assert_array_equal(present, want)
    np.testing.assert_array_equal(counts, want_counts)
    distinct, first, n = tally(keys, space)
    assert sorted(distinct.tolist()) == sorted(want.tolist())
    for key, i, c in zip(distinct, first, n):
        assert keys[i] == key and np.flatnonzero(keys == key)[0] == i and c == (keys == key).sum()


def test_rollout_length_and_return() -> None:
    ep = Rollout(
        policy=3, episode_seed=11, actions=np.array([0, 2, 1], dtype=np.int64),
        rewards=np.array([1.0, -0.5, 2.0]), features=np.zeros((4, 2)), frame_ms=np.ones(3),
        terminated=True, truncated=False,
    )
    assert ep.length == 3
    assert ep.episode_return == 2.5
    assert ep.error is None and ep.violations == ()
