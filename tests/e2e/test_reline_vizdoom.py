"""End to end: RELINE's ViZDoom experiment, as shipped, on a tiny budget (short episodes, a few
policies): it runs through the CLI and writes its tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.report.tables import load_run
from tests.cli.test_cli import ROOT, evo

pytest.importorskip("vizdoom")

TINY = ("budget.generations=2", "game.kwargs.max_steps=60", "parallel.backend=serial")


# RELINE's agent; its RL and random baselines differ from it in their search and objectives
# alone, which the CartPole and MsPacman tests run end to end (tests/cli/test_reline_*.py), and
# every shipped experiment parses (tests/evo/run/test_config.py).
@pytest.mark.parametrize(
    ("experiment", "overrides", "objectives"),
    [
        ("reline_vizdoom", ("search.population=4", "search.offspring=4",
                            "finetune.a2c.episodes=2"), {"winning", "fps_drop"}),
    ],
)
def test_reline_vizdoom_experiment_runs(
    tmp_path: Path, experiment: str, overrides: tuple[str, ...], objectives: set[str]
) -> None:
    result = evo(
        "run", str(ROOT / "experiments" / f"{experiment}.yaml"), *TINY, *overrides,
        "--out", "run", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    run = load_run(tmp_path / "run")
    assert len(run.generations) == 2
    assert {f"{o}_max" for o in objectives} <= set(run.generations.columns)
    assert (run.generations["env_steps"] > 0).all()
    assert (tmp_path / "run" / "bugs.jsonl").exists()
