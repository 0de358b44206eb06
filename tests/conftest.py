"""Shared fixtures: a tiny Wuji experiment that runs in seconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

TINY: dict[str, Any] = {
    "name": "tiny_maze",
    "seed": 3,
    "game": {"name": "block_maze", "kwargs": {"preset": "small", "maze_seed": 0, "heavy_ms": 3.0}},
    "network": {"hidden": [16]},
    "search": {"population": 6, "offspring": 6, "episodes": 2, "mutation_sigma": 0.3, "mutation_rate": 0.2},
    "budget": {"generations": 4},
    "objectives": [{"name": "winning"}, {"name": "coverage"}],
    "oracles": [
        {"name": "crash"},
        {"name": "stuck"},
        {"name": "logic"},
        {"name": "performance", "kwargs": {"floor_ms": 1.0}},
    ],
    "finetune": {"algorithm": "a2c", "a2c": {"updates": 1, "episodes": 2}},
    # In-process: tiny runs would spend more time starting worker processes than playing.
    "parallel": {"backend": "serial"},
}


@pytest.fixture
def tiny_config() -> dict[str, Any]:
    """A fresh copy of the tiny experiment as a dict (edit freely)."""
    return yaml.safe_load(yaml.safe_dump(TINY))


@pytest.fixture
def write_yaml(tmp_path: Path):
    """Write a config dict to a YAML file in the test's folder; returns its path."""

    def write(config: dict[str, Any], name: str = "exp.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        return path

    return write


@pytest.fixture
def bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run ``evo ARGS`` in-process in a folder holding ``exp.yaml`` (the tiny experiment);
    assert it failed as bad input must (exit 2, one line, no traceback) and return the line.

    In-process ``main(argv)`` is the console script's code path without an interpreter
    start-up per case; tests/cli also runs one case through a real process.
    """
    from evo.cli.main import main

    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(TINY))
    monkeypatch.chdir(tmp_path)

    def run(args: list[str]) -> str:
        code = main(args)
        err = capsys.readouterr().err
        assert code == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        return err.strip()

    return run
