"""End to end: RELINE's MsPacman experiments, as shipped, on tiny budgets, then evaluated;
the pixel variant (stacked frames, a CNN policy) through evolution and A2C."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from evo.run.checkpoint import latest_checkpoint, load_checkpoint
from tests.cli.test_cli import ROOT, evo

SMALL = ["budget.generations=1", "search.population=2", "search.episodes=1", "parallel.backend=serial",
         "game.kwargs.max_steps=120"]


def test_reline_and_random_agents_run_and_the_reline_agent_is_evaluated(tmp_path: Path) -> None:
    # RELINE's agent and random testing, which evaluate compares; the RL baseline runs on
    # CartPole (tests/e2e/test_reline_cartpole.py).
    for name, extra in (("reline_mspacman", []), ("reline_mspacman_random", ["search.offspring=2"])):
        result = evo("run", str(ROOT / "experiments" / f"{name}.yaml"), *SMALL, *extra, "--quiet", "--out", name,
                     cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        bugs = [json.loads(line) for line in (tmp_path / name / "bugs.jsonl").read_text().splitlines()]
        # Every report is a performance report at a tunnel mouth, or a crash/logic finding.
        assert all(b["injected_id"] is not None for b in bugs if b["kind"] == "performance")
    result = evo("evaluate", "reline_mspacman", "reline_mspacman_random", "--episodes", "4", "--warmup", "2",
                 "--temperature", "0.5", "--jobs", "1", "--out", "eval", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "policies sampled at temperature 0.5" in " ".join(result.stdout.split())  # the caption wraps
    table = pd.read_csv(tmp_path / "eval" / "evaluation.csv")
    assert [f"at_least_{n}" for n in range(1, 5)] == [c for c in table.columns if c.startswith("at_least_")]
    assert table["temperature"].tolist()[0] == 0.5  # the random agent's is empty: it plays uniformly


def test_the_frames_agent_evolves_and_fine_tunes_a_cnn(tmp_path: Path) -> None:
    """reline_mspacman_frames.yaml, with NSGA-II offspring: a generation of children, each
    fine-tuned by one PPO batch, all playing from stacked frames; the genomes are the CNN's
    flat weights."""
    result = evo("run", str(ROOT / "experiments" / "reline_mspacman_frames.yaml"), "budget.generations=2",
                 "search.population=2", "search.offspring=2", "search.episodes=1", "parallel.backend=serial",
                 "game.kwargs.max_steps=60", "finetune.ppo.updates=1", "finetune.ppo.episodes=1", "--quiet",
                 "--out", "frames", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    config = yaml.safe_load((tmp_path / "frames" / "config.yaml").read_text())
    assert config["game"]["kwargs"]["obs_type"] == "frames"
    assert config["network"] == {"conv": [[8, 8, 4], [16, 4, 2]], "hidden": [64]}
    generations = pd.read_csv(tmp_path / "frames" / "generations.csv")
    # Generation 1: 2 children fine-tuned (1 episode each) and evaluated (1 episode each).
    assert generations["generation"].tolist() == [0, 1]
    assert generations["env_steps"].tolist() == [120, 360]
    checkpoint = load_checkpoint(latest_checkpoint(tmp_path / "frames"))
    assert checkpoint.genomes.shape == (2, 16862)  # the CNN's weights, as the YAML says


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("network.conv=[[8, 64, 4]]", "network.conv: conv layer 0 has a 64x64 kernel for a 48x40 input"),
        ("game.kwargs.obs_type=ram", "network.conv: conv layers need a game that observes an image "
                                     "(channels, height, width); this game's observation has shape (512,)"),
    ],
)
def test_a_cnn_that_does_not_fit_the_observation_is_bad_input(bad_input, override: str, expected: str) -> None:
    assert expected in bad_input(["run", str(ROOT / "experiments" / "reline_mspacman_frames.yaml"), override])
