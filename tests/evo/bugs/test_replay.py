"""Replays of performance bugs run under the run's load: as many copies as one worker stepped."""

from __future__ import annotations

from typing import Any

from evo.run.config import parse_experiment
from evo.bugs.replay import run_batch


def test_run_batch_is_the_copies_one_worker_stepped(tiny_config: dict[str, Any]) -> None:
    # TINY: population 6, offspring 6, 2 episodes each, serial: one batch of 12.
    assert run_batch(parse_experiment(tiny_config)) == 12
    tiny_config["parallel"] = {"backend": "loky", "n_jobs": 5}
    tiny_config["search"]["offspring"] = 9
    assert run_batch(parse_experiment(tiny_config)) == 4  # 18 episodes in 5 chunks: 4, 4, 4, 3, 3
