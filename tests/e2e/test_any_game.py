"""Any game plugs in: the default experiment with nothing changed but its game, end to end.

Each game here is one a new user brought (tests/games/plugin_envs.py) or a Gymnasium id of an
installed extra. Before the contracts were reshaped, the first reported every step as a crash
bug, the second and third ended in a traceback, and the ALE id was not found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from evo.report.tables import load_run
from games.registry import GameFactory
from tests.cli.test_cli import ROOT, _error, evo


def _default_with(game: dict[str, Any], tmp_path: Path, **search: Any) -> Path:
    """experiments/wuji_block_maze.yaml with another game and 2 generations, in-process."""
    exp = yaml.safe_load((ROOT / "experiments" / "wuji_block_maze.yaml").read_text())
    exp["game"] = game
    exp["budget"] = {"generations": 2}
    exp["parallel"] = {"backend": "serial"}
    exp["search"].update(search)
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(exp))
    return path


def _run(path: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    result = evo("run", str(path), "--out", str(out), "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    return out


@pytest.mark.slow
# A game whose features are its frame's cells runs the default experiment in
# tests/e2e/test_untuned_games.py (Glide: no map from above, its report) and Wuji's conv policy
# in tests/e2e/test_pixel_games.py.
@pytest.mark.parametrize("game", ["OwnFeatures", "WideObservation"])
def test_a_new_game_runs_the_default_experiment_and_reports_coverage(game: str, tmp_path: Path) -> None:
    # Wuji's settings but a population of 8: what is checked is the game's path through the
    # engine (features, cells, fine-tuning, report), and fine-tuning 30 policies over a
    # 1000-step horizon takes a minute of CPU.
    path = _default_with({"entry_point": f"tests.games.plugin_envs:{game}"}, tmp_path, population=8, offspring=8)
    run_dir = _run(path, tmp_path)
    run = load_run(run_dir)
    coverage = run.generations["coverage"].tolist()
    assert len(coverage) == 2 and coverage[0] > 1 and coverage[1] >= coverage[0]
    kinds = set(run.bugs["kind"]) if len(run.bugs) else set()
    assert not kinds & {"crash", "logic"}, run.bugs[["kind", "message"]].head().to_string()
    # Its report too: a game with no injected bugs once ended evo report in a traceback.
    report = evo("report", str(run_dir), "--html", cwd=tmp_path)
    assert report.returncode == 0 and "Traceback" not in report.stderr, report.stderr[-2000:]
    assert (run_dir / "report.html").is_file()
    # A map from above where the state features say where the agent is.
    assert (run_dir / "plots" / "coverage_map.png").is_file()


@pytest.mark.slow
def test_an_atari_game_by_its_gymnasium_id_runs_and_reports_coverage(tmp_path: Path) -> None:
    """ALE's ids work when ale-py is installed (the atari extra): Pong from its 128 RAM bytes,
    by the ``-ram`` id that older Gymnasium versions had and ale-py 0.12 no longer registers."""
    game = {"gym_id": "ALE/Pong-ram-v5", "kwargs": {"max_num_frames_per_episode": 500}}
    path = _default_with(game, tmp_path, population=4, offspring=4, episodes=1)
    result = evo("run", str(path), "--out", "run", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    # The emulator's banner, two lines for each copy started, is not in the user's terminal.
    assert "Arcade Learning Environment" not in result.stdout + result.stderr
    run = load_run(tmp_path / "run")
    assert run.generations["coverage"].iloc[-1] > 10
    assert run.generations["env_steps"].iloc[-1] > 1000
    assert "crash" not in set(run.bugs.get("kind", pd.Series(dtype=str)))


def test_an_ale_ram_id_is_the_game_observing_its_ram() -> None:
    factory = GameFactory(gym_id="ALE/Pong-ram-v5")
    factory.validate()
    game = factory.make_vector(1)
    try:
        assert game.game_spec.obs_shape == (128,) and game.game_spec.obs_dtype == "uint8"
        assert game.game_spec.n_actions == 6
    finally:
        game.close()


def test_an_ale_id_of_no_game_is_one_line(tmp_path: Path) -> None:
    path = _default_with({"gym_id": "ALE/NoSuchGame-ram-v5"}, tmp_path)
    line = _error(evo("run", str(path), "--out", str(tmp_path / "run"), cwd=tmp_path))
    assert "'ALE/NoSuchGame-ram-v5' is not a Gymnasium id" in line


@pytest.mark.parametrize("isolated", [True, False], ids=["isolated", "in_process"])
def test_a_game_that_cannot_start_is_one_line_naming_it_and_its_error(isolated: bool, tmp_path: Path) -> None:
    """A game whose constructor fails (no engine to launch, a missing dependency such as
    Gymnasium's Box2D games without box2d) ended evo run in a traceback."""
    path = _default_with({"entry_point": "tests.games.plugin_envs:NeedsEngine", "isolated": isolated}, tmp_path)
    line = _error(evo("run", str(path), "--out", str(tmp_path / "run"), cwd=tmp_path))
    assert line.startswith("evo: error: game: tests.games.plugin_envs:NeedsEngine could not be started "
                           "(RuntimeError: engine binary ./build/walk.x86_64 not found")


def test_a_game_whose_spec_contradicts_its_features_is_one_line_at_start(tmp_path: Path) -> None:
    path = _default_with({"entry_point": "tests.games.plugin_envs:ContradictorySpec"}, tmp_path)
    line = _error(evo("run", str(path), "--out", str(tmp_path / "run"), cwd=tmp_path))
    assert "state_features returns 2 values but its game_spec names 5 (x, y, dx, dy, t)" in line
    bugs = tmp_path / "run" / "bugs.jsonl"
    assert not bugs.exists() or not bugs.read_text().strip()  # no crash report per step
