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
