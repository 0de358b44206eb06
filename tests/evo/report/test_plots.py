"""Figures of a tiny run: each function writes a real, non-empty PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from evo.report import plots
from evo.run.config import parse_experiment
from evo.report.tables import RunData, game_facts, load_run
from evo.run.kinds.evolve import Evolve
from games.maze.block_maze import BlockMaze

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[RunData]:
    """Two tiny runs: Wuji (two objectives) and one on winning alone, two generations each."""
    from tests.conftest import TINY

    out = []
    for name, objectives in (("tiny_wuji", ["winning", "coverage"]), ("tiny_single", ["winning"])):
        config: dict[str, Any] = yaml.safe_load(yaml.safe_dump(TINY))
        config.update(name=name, objectives=[{"name": o} for o in objectives])
        config["budget"]["generations"] = 2
        run_dir = tmp_path_factory.mktemp(name) / "run"
        Evolve(parse_experiment(config), run_dir).run()
        out.append(load_run(run_dir))
    return out


def _assert_png(path: Path | None) -> None:
    assert path is not None and path.is_file()
    assert path.read_bytes()[:8] == PNG_MAGIC
    assert path.stat().st_size > 5_000  # axes, lines and labels, not a blank canvas


@pytest.mark.parametrize("x", ["env_steps", "wall_s"])
def test_bugs_over(runs: list[RunData], tmp_path: Path, x: str) -> None:
    _assert_png(plots.bugs_over(runs, x, tmp_path / "bugs.png"))  # type: ignore[arg-type]


def test_pareto_fronts_and_objectives(runs: list[RunData], tmp_path: Path) -> None:
    _assert_png(plots.pareto_fronts(runs, tmp_path / "pareto.png"))
    _assert_png(plots.objectives_per_generation(runs[0], tmp_path / "objectives.png"))


def test_coverage_maps(runs: list[RunData], tmp_path: Path) -> None:
    _assert_png(plots.coverage_maps(runs, tmp_path / "maps.png"))
    _assert_png(plots.coverage_maps(runs[:1], tmp_path / "one.png"))


def test_coverage_map_shows_the_cells_played(runs: list[RunData]) -> None:
    """The tracker keeps the map cells it visited; the map grid marks exactly those."""
    from objectives.coverage import CoverageTracker
    from games.core.record import RolloutBatch

    facts = game_facts(runs[0])
    states = np.array([[[1, 2], [3, 4], [18, 0], [18, 0]]], dtype=np.float64)
    batch = RolloutBatch(
        policy=np.zeros(1, dtype=np.int64), episode_seed=np.zeros(1, dtype=np.int64),
        actions=np.zeros((1, 3), dtype=np.int64), rewards=np.zeros((1, 3)), features=states,
        frame_ms=np.zeros((1, 3)), lengths=np.array([3]), terminated=np.array([True]),
        truncated=np.array([False]),
    )
    tracker = CoverageTracker(facts.spec)
    assert tracker.update(batch) == 3
    cells = plots._visited_cells(tracker.state_dict(), facts)
    assert facts.map_frame(cells) == ((0, 0), tuple(facts.spec.feature_bins))
    assert sorted(map(tuple, cells.tolist())) == [(1, 2), (3, 4), (18, 0)]


def test_coverage_map_of_a_run_from_before_hashed_keys(runs: list[RunData]) -> None:
    """Checkpoints written before keys were hashed hold mixed-radix keys; they still draw."""
    facts = game_facts(runs[0])
    legacy = [1 * 20 + 2, 3 * 20 + 4, 18 * 20 + 0]
    cells = plots._visited_cells({"visited": legacy}, facts)
    assert sorted(map(tuple, cells.tolist())) == [(1, 2), (3, 4), (18, 0)]


def test_block_maze_render_map_is_its_blocks() -> None:
    game = BlockMaze(preset="small", maze_seed=0)
    walls = game.render_map()
    assert walls.shape == (20, 20) and walls.dtype == np.uint8
    np.testing.assert_array_equal(walls, game.layout.blocks)
    assert walls[game.layout.start] == 0 and walls[0].all()  # floor at the start, a border wall
