"""States and buckets in words, for the messages a person reads in a run's progress and report.

A game that names a handful of state features (``x``, ``y``, ``theta``) is described in full.
A game that names none gets one feature per cell of its frame (Go-Explore's cells, 88 for a
48 x 48 frame), and a message listing all of them is a screen of zeros: there only the
features that differ from the common value are named, a few of them, with a count of the rest.
Messages are words, not keys: a bug's ``signature`` keeps the whole bucket.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

from games.core.base import GameSpec

FULL = 8
"""States with at most this many features are written out in full."""
NAMED = 6
"""Of a longer state, at most this many differing features are named."""


def describe_state(spec: GameSpec, state: Sequence[float]) -> str:
    """``x=0.47 theta=-0.01``: a state by its feature names.

    A state of more than ``FULL`` features names only those that differ from the most common
    value: ``cell4_8=1 cell4_7=2 (86 others 0)``.
    """
    values = [float(v) for v in state]
    return _brief(spec.feature_names, values, lambda v: f"{v:.4g}")


def describe_point(spec: GameSpec, point: Sequence[int]) -> str:
    """``(8, 13)``: a bucket of the state features, as the tuple it is when it is short.

    A bucket of more than ``FULL`` features names the buckets that differ from the most
    common one: ``cell4_8=1 cell4_7=2 (86 others 0)``.
    """
    buckets = [int(b) for b in point]
    if len(buckets) <= FULL:
        return str(tuple(buckets))
    return _brief(spec.feature_names, buckets, str)


def _brief(names: Sequence[str], values: Sequence[float], fmt: Callable[[float], str]) -> str:
    """The features by name, or only the uncommon ones when there are many."""
    if len(values) <= FULL:
        return " ".join(f"{name}={fmt(v)}" for name, v in zip(names, values))
    common, count = Counter(values).most_common(1)[0]
    odd = [(name, v) for name, v in zip(names, values) if v != common]
    shown = " ".join(f"{name}={fmt(v)}" for name, v in odd[:NAMED])
    more = f" and {len(odd) - NAMED} more" if len(odd) > NAMED else ""
    rest = f"({count} others {fmt(common)})"
    return f"{shown}{more} {rest}" if shown else f"all {len(values)} features {fmt(common)}"
