"""End to end: policies that observe the encoder's features of park frames, scored by the RND
ensemble's novelty and fine-tuned on its dense reward, through the CLI."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import torch
import yaml

from evo.run.checkpoint import load_checkpoint
from evo.report.tables import load_run
from tests.cli.test_cli import evo_run

pytest.importorskip("vizdoom")

EXPERIMENT = {
    "name": "park_encode_tiny",
    "seed": 0,
    "game": {"name": "doom_park", "kwargs": {"preset": "small", "max_steps": 20},
             "wrappers": [{"name": "encode"}]},
    "network": {"hidden": [8]},
    "search": {"population": 4, "offspring": 4, "episodes": 1},
    "budget": {"generations": 2},
    "objectives": [{"name": "rnd_novelty", "kwargs": {"batch_size": 32}}, {"name": "coverage"}],
    "oracles": [{"name": "crash"}],
    "finetune": {"algorithm": "a2c", "a2c": {"updates": 1, "episodes": 1}},
    "parallel": {"backend": "serial"},
}


@pytest.mark.slow
def test_a_tiny_search_on_encoded_park_frames_with_rnd_novelty_runs(tmp_path: Path) -> None:
    evo_run(EXPERIMENT, tmp_path)
    run = load_run(tmp_path / "run")
    assert len(run.generations) == 2 and (run.generations["env_steps"] > 0).all()
    assert (run.generations["rnd_novelty_max"] > 0).all()
    config = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert config["objectives"][0]["kwargs"]["members"] == 5  # defaults written out
    state = load_checkpoint(sorted((tmp_path / "run" / "checkpoints").glob("*.pt"))[-1]).meta["objectives"][0]
    assert state["updates"] == 2 and isinstance(state["memory"], torch.Tensor) and state["memory"].shape[0] > 0
    table = pd.read_csv(tmp_path / "run" / "rnd_novelty.csv")  # one row per generation's update
    assert list(table["update"]) == [1, 2] and (table["loss_after"] > 0).all() and (table["frames"] > 0).all()
