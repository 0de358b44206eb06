"""A bug's message names a state a person can read, even for a game with a feature per cell."""

from __future__ import annotations

import numpy as np

from games.core.component import Context
from games.core.base import GameSpec
from games.core.record import RolloutBatch
from oracles.describe import describe_point, describe_state
from oracles.stuck import StuckConfig, StuckOracle


def _cells(n: int = 88) -> GameSpec:
    """A game that names no features of its own: one per cell of its frame, 8 buckets each."""
    return GameSpec(
        obs_shape=(n,), n_actions=4, feature_names=tuple(f"cell{i}" for i in range(n)),
        feature_low=(0.0,) * n, feature_high=(8.0,) * n, feature_bins=(8,) * n, max_steps=100,
    )


def test_a_few_features_are_written_in_full(spec):
    assert describe_state(spec, (0.5, 5.25)) == "x=0.5 y=5.25"
    assert describe_point(spec, (8, 13)) == "(8, 13)"


def test_many_features_name_only_those_that_differ():
    cells = _cells()
    point = np.zeros(88, dtype=int)
    point[[41, 52]] = [1, 2]
    assert describe_point(cells, point) == "cell41=1 cell52=2 (86 others 0)"
    assert describe_state(cells, point * 1.5) == "cell41=1.5 cell52=3 (86 others 0)"
    point[:10] = 7  # 12 differ from the common 0: six are named
    assert describe_point(cells, point) == (
        "cell0=7 cell1=7 cell2=7 cell3=7 cell4=7 cell5=7 and 6 more (76 others 0)"
    )
    assert describe_point(cells, np.zeros(88, dtype=int)) == "all 88 features 0"


def test_stuck_on_a_frame_game_reads_short_and_keeps_its_whole_signature(make_rollout):
    cells = _cells()
    moving = [np.eye(88)[i] * 3.5 for i in range(6)]  # one bright cell walks along the row
    frozen = moving[-1] + np.eye(88)[40] * 1.5
    rollout = make_rollout(moving + [frozen] * 20)
    (bug,) = StuckOracle(cells, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([rollout]))
    assert bug.message.endswith("(bucket cell5=3 cell40=1 (86 others 0))")
    bucket = [0] * 88
    bucket[5], bucket[40] = 3, 1
    assert bug.signature == f"stuck:{tuple(bucket)}"  # the archive's key: every bucket, as before
