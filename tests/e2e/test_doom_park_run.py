"""End to end: a tiny search on the generated park through the CLI, scored by the objects
oracle (objects.csv, preferred-area coverage per generation, the park map), and a kwarg it
refuses reported as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from evo.run.built import Built
from evo.run.config import ConfigError, load_experiment
from evo.report.tables import load_run
from oracles.objects_tested import OBJECT_COLUMNS
from tests.cli.test_cli import evo, evo_run

pytest.importorskip("vizdoom")

EXPERIMENT = {
    "name": "park_tiny",
    "seed": 0,
    "game": {"name": "doom_park", "kwargs": {"preset": "small", "max_steps": 25}},
    "network": {"hidden": [8]},
    "search": {"population": 4, "offspring": 4, "episodes": 1},
    "budget": {"generations": 2},
    "objectives": [{"name": "winning"}, {"name": "coverage"}],
    "oracles": [{"name": "crash"}, {"name": "stuck"}, {"name": "objects"}],
    "finetune": {"algorithm": "none"},
    "parallel": {"backend": "serial"},
}


@pytest.mark.slow
def test_a_tiny_search_on_the_park_runs_end_to_end(tmp_path: Path) -> None:
    evo_run(EXPERIMENT, tmp_path)
    run = load_run(tmp_path / "run")
    assert len(run.generations) == 2 and (run.generations["env_steps"] > 0).all()
    assert (run.generations["coverage_max"] > 1).all()  # the policies walked
    facts = json.loads((tmp_path / "run" / "game.json").read_text())
    assert facts["spec"]["obs_shape"] == [3, 120, 160]
    scene = facts["scene"]  # what the frames show: no ground truth
    assert len(facts["map"]) == 32 and len(scene["preferred"]) == 32 and len(scene["objects"]) == 16
    assert scene["camera"]["frame_size"] == [160, 120] and [t["name"] for t in scene["types"]] == [
        "barrel", "pillar", "stump", "lamp"]
    bugged = [o["id"] for o in scene["objects"]
              if any(b["location"][:2] == [o["x"], o["y"]] for b in facts["injected_bugs"])]
    assert [b["id"] for b in facts["injected_bugs"]] == bugged and len(bugged) == 8
    assert {b["kind"] for b in facts["injected_bugs"]} == {"visual"}
    # What a tester reads: every object, seen by a walk of 200 steps, none circled yet.
    objects = pd.read_csv(tmp_path / "run" / "objects.csv")
    assert list(objects.columns) == OBJECT_COLUMNS and len(objects) == 16
    assert objects["seen"].sum() > 0 and objects["bugged"].sum() == 8
    assert not objects["reported"].any()  # nobody reports visual bugs in this run
    gens = run.generations
    assert gens["preferred_coverage"].between(0.0, 1.0).all() and (gens["preferred_coverage_total"] > 0).all()
    assert gens["preferred_coverage_total"].is_monotonic_increasing
    assert gens["objects_seen"].iloc[-1] == objects["seen"].sum()
    result = evo("report", "run", "--html", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "run" / "plots" / "park_map.png").stat().st_size > 10_000
    page = (tmp_path / "run" / "report.html").read_text()
    assert 'id="park"' in page and "generation_tested" in page


def test_a_bad_park_kwarg_is_one_config_error_line(tmp_path: Path) -> None:
    """What ``evo run`` prints as ``evo: error: ...`` with exit code 2."""
    bad = {**EXPERIMENT, "game": {"name": "doom_park", "kwargs": {"preset": "medium"}}}
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(bad))
    with pytest.raises(ConfigError) as caught:
        Built.from_experiment(load_experiment(tmp_path / "exp.yaml"))
    line = str(caught.value)
    assert line.startswith("game.kwargs: doom_park cannot be made with {'preset': 'medium'}")
    assert line.endswith("preset must be one of small, large, got 'medium'") and "\n" not in line


def test_a_visual_bug_recorded_as_a_plan_is_judged_in_the_runs_wrappers(tmp_path: Path) -> None:
    """The run saw the park through the detector: the plan of its visual bug plays in the
    same wrappers, so the visual oracle judges the plan's episode (it crashed on a record
    without the detector's crops)."""
    import shutil

    run_dir = tmp_path / "run"
    shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "park_run_before_scene", run_dir)
    assert evo("migrate", str(run_dir), cwd=tmp_path).returncode == 0  # written before 0.2
    recorded = evo("plan", "record", str(run_dir), "0", "--out", "plan.yaml", cwd=tmp_path)
    assert recorded.returncode in (0, 1) and "Traceback" not in recorded.stderr, recorded.stderr
    plan = yaml.safe_load((tmp_path / "plan.yaml").read_text())
    assert [w["name"] for w in plan["game"]["wrappers"]] == ["detect", "encode"]
    result = evo("plan", "run", "plan.yaml", cwd=tmp_path)
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
    assert "(visual oracle)" in result.stdout
