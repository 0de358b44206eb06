"""What a game's scene and a component's report hooks give a user, on a game that is not the
park (:mod:`tests.games.scene_envs`): the objects oracle scores the garden's statues from its
scene alone, and ``evo report`` shows the oracle's section, its counts and the scene map; a
park run directory written before scenes (``tests/data/park_run_before_scene``, its objects of
interest at the top of ``game.json``) reports the same way once ``evo migrate`` moved them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from evo.cli.main import main
from evo.report.tables import load_run, run_metrics, summarize
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve
from games import registry
from oracles.objects_tested import OBJECT_COLUMNS, ObjectsTested

pytest.importorskip("jinja2", reason="the report extra (Jinja2) is not installed")

OLD_PARK_RUN = Path(__file__).resolve().parents[2] / "data" / "park_run_before_scene"
GARDEN = {
    "name": "garden_objects",
    "seed": 0,
    "game": {"name": "garden"},
    "network": {"hidden": [8]},
    "search": {"population": 4, "offspring": 4, "episodes": 1},
    "budget": {"generations": 2},
    "objectives": [{"name": "winning"}, {"name": "coverage"}],
    "oracles": [{"name": "crash"}, {"name": "objects", "kwargs": {"radius": 3.0, "traces": 2}}],
    "finetune": {"algorithm": "none"},
    "parallel": {"backend": "serial"},
}


@pytest.fixture
def garden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.GAMES, "garden", registry.GameEntry(
        "garden", "tests.games.scene_envs:Garden", "tests.games.scene_envs:GardenVector"))


def _page(run_dir: Path) -> str:
    assert main(["report", str(run_dir), "--html"]) == 0
    return (run_dir / "report.html").read_text()


def test_a_game_with_a_scene_gets_its_objects_scored_and_reported(garden, tmp_path: Path) -> None:
    run_dir = tmp_path / "garden"
    Evolve(parse_experiment(GARDEN), run_dir).run()
    facts = json.loads((run_dir / "game.json").read_text())
    assert facts["scene"]["camera"]["hfov_degrees"] == 60.0 and len(facts["scene"]["objects"]) == 3
    objects = pd.read_csv(run_dir / "objects.csv", keep_default_na=False)
    assert list(objects.columns) == OBJECT_COLUMNS and objects["type"].tolist() == ["statue", "statue", "bench"]
    # Ground truth from the injected bug located at statue 1, never from the scene.
    assert objects["bugged"].tolist() == [False, True, False]
    assert objects["bug"].tolist() == ["", "statue 1 with a smudged face", ""]
    assert objects["seen"].any()  # walkers from the corner pass statue 0
    gens = pd.read_csv(run_dir / "generations.csv")
    assert gens["objects_seen"].iloc[-1] == objects["seen"].sum() and "preferred_coverage_total" in gens

    page = _page(run_dir)
    assert '<h2 id="park">Objects of interest and the preferred area</h2>' in page
    assert "within 3 map units" in page and "generation_tested" in page
    assert "<h2>objects</h2>" not in page  # shown in its section, not again among the tables
    assert (run_dir / "plots" / "park_map.png").stat().st_size > 10_000
    assert page.count('alt="park map"') == 1  # the scene map is in the section, not again in Figures

    row = run_metrics(load_run(run_dir))
    assert [c for c in row if c in ObjectsTested.report_columns] == list(ObjectsTested.report_columns)
    assert row["objects_seen"] == objects["seen"].sum()
    assert list(summarize(pd.DataFrame([row])).columns[-4:]) == list(ObjectsTested.report_columns)


def test_a_game_without_a_scene_gets_no_scene_map_and_no_section(tmp_path: Path) -> None:
    from tests.conftest import TINY

    config = {**TINY, "budget": {"generations": 1}, "finetune": {"algorithm": "none"}}
    run_dir = tmp_path / "maze"
    Evolve(parse_experiment(config), run_dir).run()
    page = _page(run_dir)
    assert not (run_dir / "plots" / "park_map.png").exists() and 'id="park"' not in page


def test_a_park_run_written_before_scenes_reports_once_migrated(tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "old"
    shutil.copytree(OLD_PARK_RUN, run_dir)
    assert main(["report", str(run_dir)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"evo: error: {run_dir}/game.json: written before 0.2 (the scene at the top of the file); "
        f"run evo migrate {run_dir} to move it")
    assert main(["migrate", str(run_dir)]) == 0
    assert f"{run_dir}/game.json: its scene moved under scene:" in capsys.readouterr().out
    run = load_run(run_dir)
    assert len(run.game.scene.objects) == 16 and run.game.scene.preferred.shape == (32, 32)
    assert run.game.scene.camera is None  # the first shape kept no camera
    assert "bugged" not in (run_dir / "game.json").read_text()  # ground truth stays in injected_bugs
    page = _page(run_dir)
    assert '<h2 id="park">' in page and "bugged objects reported 4 of 8" in page
    assert (run_dir / "plots" / "park_map.png").stat().st_size > 10_000
    row = run_metrics(run)
    assert (row["objects_tested"], row["objects_reported"], row["bugs"]) == (5, 4, 4)
