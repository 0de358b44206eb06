"""The default experiment fitted to the game it plays (issue 51): Go-Explore's exploration
segments, and a generation sized from the pace of the game's first episodes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from evo.run.config import parse_experiment
from evo.run.fit import GO_EXPLORE_STEPS, fitted
from evo.run.kinds.evolve import Evolve
from games.core.base import GameSpec
from tests.cli.test_cli import ROOT


def _default(game: dict, **search: object) -> dict:
    exp = yaml.safe_load((ROOT / "experiments" / "block_maze.yaml").read_text())
    exp["game"] = game
    exp["search"].update(search)
    return exp


def _spec(horizon: int) -> GameSpec:
    return GameSpec(obs_shape=(2,), n_actions=3, feature_names=("x", "y"), feature_low=(0.0, 0.0),
                    feature_high=(1.0, 1.0), feature_bins=(10, 10), max_steps=horizon)


def test_auto_explores_go_explore_steps_or_the_horizon() -> None:
    exp = parse_experiment(_default({"name": "block_maze"}))
    assert fitted(exp, _spec(2560), None).search.explore_steps == GO_EXPLORE_STEPS
    assert fitted(exp, _spec(40), None).search.explore_steps == 40  # the Block Maze: its whole horizon


def test_a_slow_game_gets_a_generation_of_about_the_seconds_asked() -> None:
    exp = parse_experiment(_default({"name": "block_maze"}))
    slow = fitted(exp, _spec(30), steps_per_s=22.0).search  # highway-env's pace, 30-step episodes
    assert (slow.episodes, slow.population) == (1, 11)  # 22 steps/s x 15 s / 30-step episodes
    assert slow.offspring == 11 and slow.generation_seconds is None
    fast = fitted(exp, _spec(30), steps_per_s=20_000.0).search
    assert (fast.episodes, fast.population, fast.offspring) == (4, 30, 30)  # never more than configured


def _steps_per_generation(tmp_path: Path, explore_steps: object) -> tuple[float, dict]:
    game = {"entry_point": "tests.games.plugin_envs:OwnFeatures", "isolated": False}
    raw = _default(game, explore_steps=explore_steps, generation_seconds=None)  # sizes not by the pace
    raw["budget"] = {"generations": 3}
    raw["parallel"] = {"n_jobs": 1}
    Evolve(parse_experiment(raw), tmp_path / "run").run()
    steps = pd.read_csv(tmp_path / "run" / "generations.csv")["env_steps"].to_numpy()
    return float(np.diff(steps).mean()), yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())


def test_episodes_end_their_segment_and_config_yaml_records_the_numbers(tmp_path: Path) -> None:
    """A 60-step walk: each episode returns to its cell (a prefix of up to 60 steps), then
    explores 7 steps and ends, where it went on to the horizon."""
    segment, config = _steps_per_generation(tmp_path / "segment", 7)
    whole, _ = _steps_per_generation(tmp_path / "whole", None)
    assert config["search"]["explore_steps"] == 7
    assert segment < whole - 120 * 3  # at least 3 steps fewer an episode on average
