"""Modules moved into packages (issue 27); what users wrote before the move still works.

An experiment, a plug-in or a run directory names a module by its dotted path. The old paths
still import (the same module object, so one registry and one class) with a deprecation
warning, and ``tests/data/run_before_move`` (a Block Maze run written before the move, its game
named by the old entry point ``games.block_maze:BlockMaze``, its network under the old key
``policy:``) still reports, replays and resumes.
"""

from __future__ import annotations

import importlib
import shutil
import sys
import warnings
from pathlib import Path

import pytest

from evo.report import load_run
from tests.cli.test_cli import evo

OLD_RUN = Path(__file__).resolve().parents[1] / "data" / "run_before_move"


@pytest.mark.parametrize("old, new", [
    ("games.block_maze", "games.maze.block_maze"),
    ("games.rollout", "games.core.record"),
    ("games.park_layout", "games.doom.park.layout"),
    ("evo.config", "evo.run.config"),
    ("evo.operators.survival", "evo.search.operators.survival"),
    ("evo.studies.reline", "evo.report.studies.reline"),
    ("oracles.validator", "oracles.action_checks"),
])
def test_an_old_module_path_imports_the_moved_module_and_warns(old: str, new: str) -> None:
    moved = importlib.import_module(new)
    sys.modules.pop(old, None)  # another test may have imported it already
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is moved
    assert module.__spec__.name == new
    warned = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert f"module {old} moved to {new}; import it from there" in warned


def test_old_entry_points_make_the_same_classes() -> None:
    from games.dungeon import Dungeon
    from games.dungeon.dungeon import Dungeon as Moved
    from games.maze.block_maze import BlockMaze
    from games.registry import load_entry_point

    assert Dungeon is Moved
    assert load_entry_point("games.block_maze:BlockMaze") is BlockMaze
    assert load_entry_point("games.dungeon:Dungeon") is Moved


def test_a_run_directory_written_before_the_move_reports_and_replays(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(OLD_RUN, run_dir)
    run = load_run(run_dir)
    assert len(run.bugs) == 5 and run.config["game"]["entry_point"] == "games.block_maze:BlockMaze"
    report = evo("report", str(run_dir), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "injected found" in report.stdout
    for bug_id in ("0", "2"):
        replay = evo("replay", str(run_dir), bug_id, cwd=tmp_path)
        assert replay.returncode == 0, replay.stdout + replay.stderr
        assert f"bug {bug_id} reproduced" in replay.stdout


def test_a_run_directory_written_before_the_move_resumes(tmp_path: Path) -> None:
    """Its config.yaml says policy: (now network:): resumed for two more generations, with one
    warning line naming the new key; the file itself is left as it was."""
    run_dir = tmp_path / "run"
    shutil.copytree(OLD_RUN, run_dir)
    config = (run_dir / "config.yaml").read_text()
    assert "\npolicy:\n" in config and "\nnetwork:" not in config
    (run_dir / "config.yaml").write_text(config.replace("  generations: 1\n", "  generations: 3\n"))
    resumed = evo("run", "--resume", str(run_dir), "--quiet", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "the key policy: is now network:" in resumed.stderr
    assert list(load_run(run_dir).generations["generation"]) == [0, 1, 2]
    assert "\npolicy:\n" in (run_dir / "config.yaml").read_text()
