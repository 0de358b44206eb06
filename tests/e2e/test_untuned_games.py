"""Games nobody tuned for, through ``entry_point`` alone, with the default experiment's settings
(issue 26): every seeded bug found, nothing else reported, the run never the game's victim.

- :class:`tests.games.two_room_envs.TwoRooms`: the first episodes never leave the first room.
  Before the cells followed the run, the map ended where the probe's range did: room B's
  far columns were one edge bucket, and its bugs' reports named one place.
- :class:`tests.games.glide_envs.Glide`: frames whose dot moves a pixel a step, less than
  one of the cells the engine cuts a frame into. Before the stuck oracle compared the frames'
  digests, a run reported dozens of stuck bugs in open ground.
- Gymnasium's ``FrozenLake-v1``, by its id: slippery ice, where a move slips into a wall one
  time in three. The ice held a copy at the start for a whole window once in a few hundred
  episodes, and the stuck oracle reported that luck as a stuck place.
- :class:`tests.games.first_faults_envs.FaultyYard`: a segfault, a hang and a leak in the
  first episodes of a game without a spec. Before, by default, the segfault ended ``evo run``
  with exit 139 and the hang hung it; isolated by hand, the probe's faults ended the run at
  start with a traceback.
- :class:`tests.games.joystick_envs.Rover`: actions that are a ``Box`` of two velocities, and
  a bug only full throttle reaches. Before, the engine refused any action space but
  ``Discrete``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from evo.report.tables import game_facts, load_run
from tests.games.glide_envs import Glide, in_puddle
from tests.cli.test_cli import ROOT, evo


def _run_default_on(game: str | dict[str, Any], tmp_path: Path,
                    budget: dict[str, Any] | None = None) -> subprocess.CompletedProcess[str]:
    """``evo run`` of experiments/block_maze.yaml, the default experiment, with only its game
    replaced (an entry point, or a game section) and its budget, for a game that declares no
    injected bugs to find them all."""
    exp: dict[str, Any] = yaml.safe_load((ROOT / "experiments" / "block_maze.yaml").read_text())
    exp["game"] = {"entry_point": game} if isinstance(game, str) else game
    exp["budget"] = budget or exp["budget"]
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(exp))
    return evo("run", "exp.yaml", "--out", "run", "--quiet", cwd=tmp_path)


def _default_on(game: str | dict[str, Any], tmp_path: Path, budget: dict[str, Any] | None = None) -> Path:
    """The run directory of :func:`_run_default_on`, which must have succeeded."""
    result = _run_default_on(game, tmp_path, budget)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    return tmp_path / "run"


@pytest.mark.slow
def test_a_room_the_first_episodes_never_entered_has_all_its_bugs_found_each_in_its_own_cell(
    tmp_path: Path,
) -> None:
    run = load_run(_default_on("tests.games.two_room_envs:TwoRooms", tmp_path))
    assert run.generations["injected_found"].iloc[-1] == 6
    assert run.bugs["injected_id"].notna().all(), run.bugs[["kind", "message"]].to_string()
    facts = game_facts(run)
    columns = {int(facts.map_cells(state)[0]) for state in run.bugs["next_state"]}
    assert len(columns) == 6  # six bugs in six columns, six places on the map


@pytest.mark.slow
def test_faults_in_the_first_episodes_of_a_game_without_a_spec_are_crash_bugs_that_replay(
    tmp_path: Path,
) -> None:
    run = load_run(_default_on("tests.games.first_faults_envs:FaultyYard", tmp_path))
    assert run.generations["injected_found"].iloc[-1] == 3
    assert run.bugs["injected_id"].notna().all(), run.bugs[["kind", "message"]].to_string()
    segfault = run.bugs[run.bugs["message"].str.contains("SIGSEGV")].iloc[0]
    assert len(segfault["actions"]) == segfault["step"] + 1 and np.isfinite(segfault["seed"])
    replayed = evo("replay", "run", str(int(segfault["id"])), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert f"bug {int(segfault['id'])} reproduced" in replayed.stdout


@pytest.mark.slow
def test_a_dot_moving_less_than_a_cell_is_not_stuck_and_the_puddle_that_holds_it_is(tmp_path: Path) -> None:
    run = load_run(_default_on("tests.games.glide_envs:Glide", tmp_path, budget={"generations": 2}))
    assert set(run.bugs["kind"]) == {"stuck"}, run.bugs[["kind", "message"]].to_string()
    for _, bug in run.bugs.iterrows():  # each report, played again in the game itself
        game = Glide()
        game.reset(seed=int(bug["seed"]))
        for action in bug["actions"]:
            game.step(int(action))
        assert in_puddle(*game.pos), f"{bug['message']}: the dot is at {game.pos}, in open ground"
        # Its state is 88 cells of the frame: the message names the few that are not empty.
        assert bug["message"].endswith("others 0))") and len(bug["message"]) < 160, bug["message"]
    report = evo("report", "run", "--html", cwd=tmp_path)
    assert report.returncode == 0, report.stdout + report.stderr
    assert not (tmp_path / "run" / "plots" / "coverage_map.png").exists()  # no map from above
    page = (tmp_path / "run" / "report.html").read_text()
    # Each bug's message (its bucket's levels) and place (its cells' mean values) in short form.
    assert "cell0_0 0" not in page and page.count("others 0)") >= len(run.bugs)
    assert page.count(" others ") >= 2 * len(run.bugs)


@pytest.mark.slow
def test_ice_that_holds_a_copy_by_luck_is_not_a_stuck_place(tmp_path: Path) -> None:
    run = load_run(_default_on({"gym_id": "FrozenLake-v1"}, tmp_path, budget={"generations": 2}))
    assert len(run.bugs) == 0, run.bugs[["kind", "message"]].to_string()
    assert run.generations["coverage"].iloc[-1] > 5  # it played: the ice is crossed, holes found


@pytest.mark.slow
def test_a_game_driven_by_a_box_of_velocities_has_its_full_throttle_bug_found_and_replayed(
    tmp_path: Path,
) -> None:
    run = load_run(_default_on("tests.games.joystick_envs:Rover", tmp_path))
    assert run.generations["injected_found"].iloc[-1] == 1
    (bug,) = run.bugs.itertuples()
    assert bug.kind == "logic" and "outside the yard" in bug.message
    replayed = evo("replay", "run", str(bug.id), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert f"bug {bug.id} reproduced" in replayed.stdout


def test_actions_the_engine_cannot_grid_stop_the_run_in_one_line(tmp_path: Path) -> None:
    result = _run_default_on("tests.games.joystick_envs:Thrusters", tmp_path)
    assert result.returncode == 2, result.stderr[-3000:]
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        "evo: error: game tests.games.joystick_envs:Thrusters has action space Box(-1.0, 1.0, (8,), float32); "
        "its grid of actions would hold 6,561 (8 dimensions), more than 256; fewer game.action_levels, "
        "or a Discrete action space of its own"
    )
