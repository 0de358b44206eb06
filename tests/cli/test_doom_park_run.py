"""End to end: a tiny search on the generated park through the CLI, and a kwarg it refuses
reported as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evo.built import Built
from evo.config import ConfigError, load_experiment
from evo.report import load_run
from tests.cli.test_cli import evo

pytest.importorskip("vizdoom")

EXPERIMENT = {
    "name": "park_tiny",
    "seed": 0,
    "game": {"name": "doom_park", "kwargs": {"preset": "small", "max_steps": 25}},
    "policy": {"hidden": [8]},
    "search": {"population": 4, "offspring": 4, "episodes": 1},
    "budget": {"generations": 2},
    "objectives": [{"name": "winning"}, {"name": "coverage"}],
    "oracles": [{"name": "crash"}, {"name": "stuck"}],
    "finetune": {"algorithm": "none"},
    "parallel": {"backend": "serial"},
}


@pytest.mark.slow
def test_a_tiny_search_on_the_park_runs_end_to_end(tmp_path: Path) -> None:
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(EXPERIMENT))
    result = evo("run", "exp.yaml", "--out", "run", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    run = load_run(tmp_path / "run")
    assert len(run.generations) == 2 and (run.generations["env_steps"] > 0).all()
    assert (run.generations["coverage_max"] > 1).all()  # the policies walked
    facts = json.loads((tmp_path / "run" / "game.json").read_text())
    assert facts["spec"]["obs_shape"] == [3, 120, 160]
    assert len(facts["map"]) == 32 and facts["injected_bugs"] is None


def test_a_bad_park_kwarg_is_one_config_error_line(tmp_path: Path) -> None:
    """What ``evo run`` prints as ``evo: error: ...`` with exit code 2."""
    bad = {**EXPERIMENT, "game": {"name": "doom_park", "kwargs": {"preset": "medium"}}}
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(bad))
    with pytest.raises(ConfigError) as caught:
        Built.from_experiment(load_experiment(tmp_path / "exp.yaml"))
    line = str(caught.value)
    assert line.startswith("game.kwargs: doom_park cannot be made with {'preset': 'medium'}")
    assert line.endswith("preset must be one of small, large, got 'medium'") and "\n" not in line
