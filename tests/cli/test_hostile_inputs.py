"""Inputs a new user tries that the game or the machine cannot take: one line naming the key
and what was expected, exit code 2, no traceback and no run directory left behind."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("game.kwargs.preset=huge", "game.kwargs: block_maze cannot be made with"),
        ("game.kwargs.maze_seed=-1", "maze_seed must be a non-negative integer"),
        ("search.population=100000000", "search.population: 100000000 policies"),
        ("search.offspring=100000000", "search.offspring: 6 policies and 100000000 offspring"),
        ("policy.hidden=[0]", "policy.hidden.0: Input should be greater than or equal to 1"),
        ("policy.hidden=[16, -3]", "policy.hidden.1: Input should be greater than or equal to 1"),
    ],
)
def test_a_game_or_budget_that_cannot_be_is_one_line(bad_input, tmp_path: Path, override: str, expected: str) -> None:
    line = bad_input(["run", "exp.yaml", override, "--out", "run", "--quiet"])
    assert expected in line
    assert not (tmp_path / "run").exists()


def test_a_budget_too_big_says_what_it_would_need(bad_input) -> None:
    line = bad_input(["run", "exp.yaml", "search.population=100000000", "--out", "run"])
    need, have = (float(part.split(" GiB")[0].split()[-1].replace(",", "")) for part in line.split(";"))
    assert need > have > 0


OUT_FOLDER_COMMANDS = {
    "run": ["run", "exp.yaml", "--quiet"],
    "compare": ["compare", "exp.yaml", "--seeds", "1"],
}


@pytest.mark.parametrize("command", OUT_FOLDER_COMMANDS.values(), ids=OUT_FOLDER_COMMANDS.keys())
def test_out_naming_an_existing_file_is_one_line_and_leaves_the_file(
    bad_input, tmp_path: Path, command: list[str]
) -> None:
    kept = tmp_path / "notes.txt"
    kept.write_bytes(b"a week of notes\n")
    line = bad_input([*command, "--out", "notes.txt"])
    assert line == "evo: error: --out notes.txt: is a file; expected a folder to write into"
    assert kept.read_bytes() == b"a week of notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml", "notes.txt"]


@pytest.mark.parametrize("command", OUT_FOLDER_COMMANDS.values(), ids=OUT_FOLDER_COMMANDS.keys())
def test_out_below_a_file_is_one_line(bad_input, tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "notes.txt").write_bytes(b"a week of notes\n")
    line = bad_input([*command, "--out", "notes.txt/run"])
    assert line == "evo: error: --out notes.txt/run: notes.txt is a file; expected a folder"
    assert (tmp_path / "notes.txt").read_bytes() == b"a week of notes\n"


def test_a_runs_dir_that_is_a_file_is_one_line(bad_input, tmp_path: Path) -> None:
    (tmp_path / "runs").write_bytes(b"not a folder\n")
    line = bad_input(["run", "exp.yaml", "runs_dir=runs", "--quiet"])
    assert line.startswith("evo: error: runs_dir runs/tiny_maze/") and line.endswith(": runs is a file; expected a folder")
    assert (tmp_path / "runs").read_bytes() == b"not a folder\n"


@pytest.mark.parametrize(
    "command",
    [["plan", "suite", "suite", "--out", "taken"],
     ["plan", "from-text", "steps.txt", "--game", "block_maze", "--out", "taken"],
     ["plan", "record", "--actions", "steps.txt", "--game", "block_maze", "--out", "taken"]],
    ids=["suite", "from-text", "record"],
)
def test_out_naming_a_folder_where_a_file_goes_is_one_line(bad_input, tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "steps.txt").write_text("E\n")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "kept.yaml").write_text("kept\n")
    assert bad_input(command) == "evo: error: --out taken: is a folder; expected a file name"
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["kept.yaml"]
