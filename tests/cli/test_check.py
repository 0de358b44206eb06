"""``evo check GAME``: what the engine sees of a game, before a run (issue 51)."""

from __future__ import annotations

import pytest

from evo.cli.main import main


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_game_is_checked_features_cells_and_pace(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _check(capsys, "tests.games.plugin_envs:OwnFeatures", "game.isolated=false")
    assert code == 0
    assert "2: feature0, feature1 [open, cells learned]" in out  # the game's own two numbers
    assert "cells reached" in out and "steps of random play" in out
    assert "no: in the engine's process" in out and "a generation" in out
    assert "restore a snapshot of the game taken on the way" in out  # a game in Python pickles
    assert "warning" not in out


def test_a_game_whose_wrapper_tells_the_place_and_the_truth(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _check(capsys, "tests.games.plugin_envs:PixelWalkWithPosition", "game.isolated=false")
    assert code == 0
    assert "2: row, col [bounded]" in out and "1 injected bugs" in out


def test_a_blind_game_is_said_to_be_blind(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _check(capsys, "tests.games.plugin_envs:Blind", "game.isolated=false")
    assert code == 0
    assert "reached 1 cell of its 2 state features" in out + err and "gymnasium.Wrapper" in out + err


def test_no_such_game_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _check(capsys, "NoSuchGame-v9")
    assert code == 2
    assert err.startswith("evo: error: check: 'NoSuchGame-v9' is no registered game") and len(err.splitlines()) == 1


@pytest.mark.parametrize(("kwargs", "returns", "replays"), [
    ("{preset: large}", "replay the way from the reset: the game offers no snapshots",
     "played twice: the same; bugs replay as found"),
    ("{preset: large, sticky: 0.25}", "restore a snapshot of the game taken on the way",
     "played twice: not the same; each bug played again 10 times for its rate (bug_replays auto)"),
])
def test_how_returns_go_back_and_bugs_replay_in_the_maze_and_its_sticky_twin(
    capsys: pytest.CaptureFixture[str], kwargs: str, returns: str, replays: str,
) -> None:
    code, out, _ = _check(capsys, "experiments/block_maze.yaml", f"game.kwargs={kwargs}")
    assert code == 0 and returns in out and replays in " ".join(out.split())
