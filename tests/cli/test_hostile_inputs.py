"""Inputs a new user tries that the game or the machine cannot take, and files that are not
what they should be (an experiment that is not UTF-8 text, an ``--out`` that is a file): one
line naming the key or file and what was expected, exit code 2, no traceback, no run
directory left behind and nothing already there changed."""

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
        ("network.hidden=[0]", "network.hidden.0: Input should be greater than or equal to 1"),
        ("network.hidden=[16, -3]", "network.hidden.1: Input should be greater than or equal to 1"),
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


NOT_UTF8 = {
    "latin-1": "# café\n".encode("latin-1"),  # a comment saved by an editor in Latin-1
    "binary": bytes(range(256)) * 4,  # an image or archive given by mistake
}


@pytest.mark.parametrize("content", NOT_UTF8.values(), ids=NOT_UTF8.keys())
@pytest.mark.parametrize("command", [["run", "exp.yaml", "--quiet"], ["compare", "exp.yaml", "--seeds", "1"]],
                         ids=["run", "compare"])
def test_an_experiment_file_that_is_not_utf8_text_is_one_line(
    bad_input, tmp_path: Path, command: list[str], content: bytes
) -> None:
    (tmp_path / "exp.yaml").write_bytes(content + (tmp_path / "exp.yaml").read_bytes())
    line = bad_input([*command, "--out", "out"])
    assert line.startswith("evo: error: exp.yaml: not UTF-8 text (byte 0x")
    assert line.endswith("expected an experiment file in UTF-8")
    assert not (tmp_path / "out").exists()


def test_a_non_utf8_experiment_through_the_console_script(tmp_path: Path) -> None:
    from tests.cli.test_cli import _error, evo

    (tmp_path / "exp.yaml").write_bytes(NOT_UTF8["latin-1"])
    assert _error(evo("run", "exp.yaml", cwd=tmp_path)) == (
        "evo: error: exp.yaml: not UTF-8 text (byte 0xe9 at offset 5); expected an experiment file in UTF-8")


def test_an_experiment_file_that_is_a_folder_is_one_line(bad_input, tmp_path: Path) -> None:
    (tmp_path / "folder.yaml").mkdir()
    assert bad_input(["run", "folder.yaml", "--out", "out"]) == (
        "evo: error: folder.yaml: is a folder; expected an experiment file")


def test_a_utf8_experiment_with_a_byte_order_mark_runs_whatever_the_locale(tmp_path: Path) -> None:
    """Windows editors start UTF-8 files with a byte-order mark; an ASCII locale (a bare
    container's ``LC_ALL=C``) must not change how an experiment file is read."""
    import os
    import subprocess
    import sys

    import yaml

    from tests.cli.test_cli import ROOT
    from tests.conftest import TINY

    text = "# café\n" + yaml.safe_dump({**TINY, "budget": {"generations": 1}})
    (tmp_path / "exp.yaml").write_bytes(b"\xef\xbb\xbf" + text.encode())
    ascii_locale = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "evo.cli", "run", "exp.yaml", "--out", "out", "--quiet"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env={**os.environ, **ascii_locale})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "config.yaml").is_file()


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


def test_a_plan_file_that_is_not_utf8_text_is_one_line(bad_input, tmp_path: Path) -> None:
    (tmp_path / "plan.yaml").write_bytes(NOT_UTF8["latin-1"] + b"nodes: []\n")
    assert bad_input(["plan", "run", "plan.yaml"]) == (
        "evo: error: plan.yaml: not UTF-8 text (byte 0xe9 at offset 5); expected a plan file in UTF-8")


@pytest.mark.parametrize(
    ("command", "what"),
    [(["plan", "from-text", "steps.txt", "--game", "block_maze"], "a text file"),
     (["plan", "record", "--actions", "steps.txt", "--game", "block_maze"], "a file of actions")],
    ids=["from-text", "record"],
)
def test_a_text_file_that_is_not_utf8_is_one_line(bad_input, tmp_path: Path, command: list[str], what: str) -> None:
    (tmp_path / "steps.txt").write_bytes("go east to the café\n".encode("latin-1"))
    assert bad_input(command) == (
        f"evo: error: steps.txt: not UTF-8 text (byte 0xe9 at offset 18); expected {what} in UTF-8")


def test_a_file_of_actions_with_a_byte_order_mark_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from evo.cli.main import main

    (tmp_path / "play.txt").write_bytes(b"\xef\xbb\xbfE E S\n")  # Notepad's UTF-8
    monkeypatch.chdir(tmp_path)
    code = main(["plan", "record", "--actions", "play.txt", "--game", "block_maze", "--kwarg", "preset=small",
                 "--out", "plans/play.yaml"])
    assert code == 0, capsys.readouterr().err
    assert "3 actions" in capsys.readouterr().out
    assert (tmp_path / "plans" / "play.yaml").is_file()  # its folder made


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
