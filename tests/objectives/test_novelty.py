"""Count-based novelty against the run's history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evo.run.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from evo.run.config import ConfigError, parse_experiment
from games.core.base import GameSpec
from games.core.record import Rollout, RolloutBatch
from objectives import build_objectives
from objectives.novelty import Novelty

SPEC = GameSpec(obs_shape=(1,), n_actions=2, feature_names=("x",), feature_low=(0.0,), feature_high=(10.0,),
                feature_bins=(10,), max_steps=20)


def walk(xs: list[int]) -> Rollout:
    n = len(xs) - 1
    return Rollout(0, 0, np.ones(n, dtype=np.int64), np.zeros(n), np.array(xs, dtype=np.float64)[:, None] + 0.5,
                   np.zeros(n), terminated=False, truncated=True)


def novelty(**kwargs: Any) -> Novelty:
    (objective,) = build_objectives([("novelty", kwargs)], SPEC)
    assert isinstance(objective, Novelty) and objective.sense == "max"
    return objective


def test_novelty_falls_for_repeated_visits() -> None:
    objective = novelty()
    batch = RolloutBatch.from_rollouts([walk([0, 1, 2])])
    assert objective.score(batch) == pytest.approx(3.0)  # nobody was anywhere yet: 1 each
    np.testing.assert_allclose(objective.step_rewards(batch[0]), [1.0, 1.0])
    objective.update(batch)
    assert objective.score(batch) == pytest.approx(3 / np.sqrt(2))
    np.testing.assert_allclose(objective.step_rewards(batch[0]), [1 / np.sqrt(2)] * 2)
    objective.update(RolloutBatch.from_rollouts([walk([0, 1, 2]), walk([0, 1, 1])]))
    # Cell 1: visited 1 + 1 + 2 times, cell 2: 1 + 1 (1/sqrt(N + 1)); a new cell is still worth 1.
    np.testing.assert_allclose(objective.step_rewards(walk([0, 1, 2, 3])), [1 / np.sqrt(5), 1 / np.sqrt(3), 1.0])
    # Only the first entry of a bucket in an episode earns.
    np.testing.assert_allclose(objective.step_rewards(walk([3, 4, 3, 4])), [1.0, 0.0, 0.0])
    mean = novelty(aggregate="mean")
    mean.update(batch)
    fresh = RolloutBatch.from_rollouts([walk([0, 5, 6])])
    assert mean.score(fresh) == pytest.approx((1 / np.sqrt(2) + 2) / 3)


def test_state_round_trips_through_a_checkpoint(tmp_path: Path) -> None:
    objective = novelty()
    objective.update(RolloutBatch.from_rollouts([walk([0, 1, 2, 3]), walk([0, 1, 0])]))
    meta = {"generation": 0, "objectives": [objective.state_dict()]}
    save_checkpoint(tmp_path, Checkpoint(np.zeros((1, 0), np.float32), np.zeros(1), np.zeros((1, 1)), meta))
    (path,) = (tmp_path / "checkpoints").glob("*.pt")
    resumed = novelty()
    resumed.load_state_dict(load_checkpoint(path).meta["objectives"][0])  # torch.load(weights_only=True)
    later = RolloutBatch.from_rollouts([walk([0, 1, 4, 5])])
    assert resumed.score(later) == objective.score(later)
    resumed.update(later)
    objective.update(later)
    np.testing.assert_array_equal(resumed.counts, objective.counts)
    np.testing.assert_array_equal(resumed.step_rewards(later[0]), objective.step_rewards(later[0]))


def test_bad_options_are_one_line(tiny_config: dict[str, Any]) -> None:
    tiny_config["objectives"] = [{"name": "novelty", "kwargs": {"aggregate": "max"}}]
    with pytest.raises(ConfigError, match=r"objectives\[0\].kwargs.aggregate: Input should be 'sum' or 'mean'"):
        parse_experiment(tiny_config)
    tiny_config["objectives"] = [{"name": "novelty", "kwargs": {"intervals": 0}}]
    with pytest.raises(ConfigError, match=r"objectives\[0\].kwargs.intervals: intervals must be at least 1"):
        parse_experiment(tiny_config)


def test_a_search_optimises_novelty_and_resumes_with_its_counts(tiny_config: dict[str, Any], tmp_path: Path) -> None:
    from evo.run.kinds.evolve import Evolve

    tiny_config["objectives"] = [{"name": "winning"}, {"name": "novelty"}]
    tiny_config["budget"] = {"generations": 2}
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    state = load_checkpoint(sorted((tmp_path / "run" / "checkpoints").glob("*.pt"))[-1]).meta["objectives"][1]
    assert int(state["counts"].sum()) > 0  # every evaluated state counted


def test_parents_are_scored_against_the_same_counts_as_their_children(tiny_config: dict[str, Any], tmp_path: Path) -> None:
    """A survivor's score from when its buckets were new would outrank every later child for
    good (NSGA-II keeps it); scored again each generation, the best novelty falls as the run's
    counts grow."""
    import pandas as pd

    from evo.run.kinds.evolve import Evolve

    tiny_config["objectives"] = [{"name": "winning"}, {"name": "novelty"}]
    tiny_config["finetune"] = {"algorithm": "none"}
    tiny_config["budget"] = {"generations": 4}
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    best = pd.read_csv(tmp_path / "run" / "generations.csv")["novelty_max"].tolist()
    assert best[-1] < best[0], best
