"""The work of a worker: the fine-tuning reward and the games a worker keeps."""

from __future__ import annotations

import numpy as np

from evo.search.tasks import DenseReward
from games.core.record import Rollout, RolloutBatch
from objectives.base import Objective


def _episode(length: int) -> Rollout:
    return Rollout(
        policy=0, episode_seed=0, actions=np.zeros(length, dtype=np.int64), rewards=np.ones(length),
        features=np.zeros((length + 1, 1)), frame_ms=np.ones(length), terminated=True, truncated=False,
    )


class Steps(Objective):
    """An objective whose dense reward is the step index."""

    name, sense = "steps", "max"

    def score(self, rollouts: RolloutBatch) -> float:
        return 0.0

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        return np.arange(rollout.length, dtype=np.float32)


class Plain(Objective):
    """An objective that declares no dense reward."""

    name, sense = "plain", "min"

    def score(self, rollouts: RolloutBatch) -> float:
        return 0.0


def test_fine_tuning_sums_each_objectives_declared_step_rewards_weighted() -> None:
    batch = RolloutBatch.from_rollouts([_episode(3), _episode(1)])
    reward = DenseReward((Steps(), Plain()), (2.0, 5.0))(batch, horizon=4)
    np.testing.assert_array_equal(reward, [[0.0, 2.0, 4.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    assert reward.dtype == np.float64
