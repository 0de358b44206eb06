"""Run directories and experiments written before 0.2 (modules moved into packages, ``policy:``
renamed ``network:``, the park's scene moved in ``game.json``): the engine names ``evo migrate``
in one line where it meets one, and after the migration the run reports, replays and resumes.

``tests/data/run_before_move`` is a Block Maze run of that time (its game the old entry point
``games.block_maze:BlockMaze``, its network under ``policy:``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from evo.report import load_run
from tests.cli.test_cli import evo

OLD_RUN = Path(__file__).resolve().parents[1] / "data" / "run_before_move"


def test_an_old_run_directory_is_one_line_naming_evo_migrate(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(OLD_RUN, run_dir)
    replay = evo("replay", str(run_dir), "0", cwd=tmp_path)
    assert replay.returncode == 2 and "Traceback" not in replay.stderr
    assert replay.stderr.strip() == (
        f"evo: error: {run_dir}/config.yaml: written before 0.2 (key policy: is network:; game.entry_point "
        f"games.block_maze:BlockMaze is games.maze.block_maze:BlockMaze); run evo migrate {run_dir}/config.yaml "
        f"to rename")


def test_a_migrated_run_directory_reports_replays_and_resumes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(OLD_RUN, run_dir)
    before = (run_dir / "config.yaml").read_text()
    migrated = evo("migrate", str(run_dir), cwd=tmp_path)
    assert migrated.returncode == 0, migrated.stderr
    assert f"{run_dir}/config.yaml: key policy: is network:" in migrated.stdout
    assert f"{run_dir}/game.json: label games.block_maze:BlockMaze is games.maze.block_maze:BlockMaze" in migrated.stdout
    assert (run_dir / "config.yaml.before-migrate").read_text() == before
    assert "\nnetwork:\n" in (run_dir / "config.yaml").read_text()
    again = evo("migrate", str(run_dir), cwd=tmp_path)
    assert f"{run_dir}: nothing to migrate" in again.stdout

    run = load_run(run_dir)
    assert len(run.bugs) == 5 and run.config["game"]["entry_point"] == "games.maze.block_maze:BlockMaze"
    report = evo("report", str(run_dir), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "injected found" in report.stdout
    for bug_id in ("0", "2"):
        replay = evo("replay", str(run_dir), bug_id, cwd=tmp_path)
        assert replay.returncode == 0, replay.stdout + replay.stderr
        assert f"bug {bug_id} reproduced" in replay.stdout

    config = (run_dir / "config.yaml").read_text()
    (run_dir / "config.yaml").write_text(config.replace("  generations: 1\n", "  generations: 3\n"))
    resumed = evo("run", "--resume", str(run_dir), "--quiet", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert list(load_run(run_dir).generations["generation"]) == [0, 1, 2]
