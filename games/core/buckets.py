"""Keys of state buckets and how to count them: the set operations behind coverage, the
performance oracle's points and every other "which places" question.

A bucket is the tuple of a state's interval indices (:meth:`games.core.base.GameSpec.buckets`).
Its key is an int64: dense (the mixed-radix number) where the bucket space is small enough
to count with ``np.bincount``, a 64-bit hash beyond, so that no number of features or bins
overflows. Both kinds count in linear time here.
"""

from __future__ import annotations

import numpy as np

# pandas (hash tables for hashed keys) is imported where it is used: importing the games, as
# the command line does before it parses anything, stays light.

DENSE_KEYS = 1 << 22
"""Bucket spaces up to this size get dense keys, counted with ``np.bincount``."""


def count_keys(keys: np.ndarray, key_space: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``keys`` (sorted) and how often each occurs, in linear time: ``np.bincount``
    over a dense key space (``key_space`` keys, :meth:`GameSpec.key_space`), a hash table
    (pandas) over hashed keys."""
    keys = np.asarray(keys, dtype=np.int64).reshape(-1)
    if key_space is not None:
        counts = np.bincount(keys, minlength=key_space)
        present = np.flatnonzero(counts)
        return present, counts[present]
    import pandas as pd

    codes, uniques = pd.factorize(keys, sort=True)
    return np.asarray(uniques, dtype=np.int64), np.bincount(codes, minlength=len(uniques))


def tally(keys: np.ndarray, key_space: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``keys``, the index where each first occurs, and how often each occurs, in
    linear time (see :func:`count_keys`): sorted over a dense key space, in order of first
    appearance over hashed keys."""
    keys = np.asarray(keys, dtype=np.int64).reshape(-1)
    if key_space is not None:
        counts = np.bincount(keys, minlength=key_space)
        present = np.flatnonzero(counts)
        first = np.full(key_space, keys.size, dtype=np.int64)
        np.minimum.at(first, keys, np.arange(keys.size, dtype=np.int64))
        return present, first[present], counts[present]
    import pandas as pd

    codes, uniques = pd.factorize(keys)
    # Codes number the keys in order of appearance: the running maximum steps up by one
    # exactly where a key appears for the first time.
    first = np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1) > 0)
    return np.asarray(uniques, dtype=np.int64), first, np.bincount(codes, minlength=len(uniques))


def hash_rows(rows: np.ndarray) -> np.ndarray:
    """``[..., F]`` integers to ``[...]`` int64: a 64-bit hash of each row (pandas' row
    hashing, ``hash_pandas_object``), so that distinct rows collide with probability about
    ``2**-64`` per pair: a run that visits a billion buckets expects no collision."""
    import pandas as pd

    rows = np.asarray(rows)
    flat = pd.DataFrame(rows.reshape(-1, rows.shape[-1]))
    hashed = pd.util.hash_pandas_object(flat, index=False).to_numpy()
    return hashed.view(np.int64).reshape(rows.shape[:-1])
