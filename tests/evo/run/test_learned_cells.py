"""Cells that follow the run: a game that declares no bounds for its state features gets the
size of its cells from a probe of seeded random play, and its cells go on past whatever the
probe reached; every component cuts states with that one map, which the run directory keeps,
so a resumed run and a replay cut them alike (issue 26, item 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evo.run.built import Built
from evo.run.config import parse_experiment
from evo.run.game_facts import read_game_facts
from evo.search.probe import PROBE_POLICY
from evo.run.counters import GenerationReport
from evo.run.kinds.evolve import Evolve
from tests.evo.run.test_loop import Kill, comparable_bugs, comparable_generations, run
from tests.games.two_room_envs import WALL


@pytest.fixture
def two_rooms(tiny_config: dict[str, Any]) -> dict[str, Any]:
    """The tiny experiment on the two-room game, its copies in-process (quick to start)."""
    tiny_config["game"] = {"entry_point": "tests.games.two_room_envs:TwoRooms", "isolated": False}
    tiny_config["budget"] = {"generations": 3}
    return tiny_config


def test_a_room_the_first_episodes_never_entered_is_cells_of_its_own(two_rooms: dict[str, Any]) -> None:
    built = Built.from_experiment(parse_experiment(two_rooms))
    probe = built.first_episodes()
    assert probe is not None and set(probe.policy.tolist()) == {PROBE_POLICY}
    assert probe.features[..., 0].max() < WALL  # the probe never got through the door
    spec = built.spec
    beyond = np.array([(x, 3.0) for x in range(WALL + 1, 40)])
    # Before, the probe's range (+ as much again) ended the map at column 16: every column
    # beyond was one edge bucket.
    assert len(set(spec.bucket_keys(beyond).tolist())) == len(beyond)
    for component in built.components:  # one cell map for all
        if hasattr(component, "spec"):
            assert component.spec == spec


def test_a_game_with_a_spec_keeps_its_buckets_and_plays_no_probe(tiny_config: dict[str, Any]) -> None:
    built = Built.from_experiment(parse_experiment(tiny_config))
    assert built.first_episodes() is None and not built.learns_cells
    assert built.spec.key_space() == 20 * 20 and not any(built.spec.feature_open)


def test_the_learned_cells_are_kept_in_the_run_directory_and_read_back(two_rooms: dict[str, Any],
                                                                        tmp_path: Path) -> None:
    search = run(two_rooms, tmp_path / "run")
    saved = read_game_facts(tmp_path / "run")
    assert saved is not None and saved.spec == search.built.spec and saved.spec.cells_known
    again = Built.from_experiment(parse_experiment(two_rooms), cells_from=tmp_path / "run")
    assert again.spec == search.built.spec and again.probe is None  # read back, not probed


def test_the_probe_counts_as_play_and_its_states_as_coverage(two_rooms: dict[str, Any], tmp_path: Path) -> None:
    search = run(two_rooms, tmp_path / "run")
    probe = search.built.probe
    assert probe is not None
    first = pd.read_csv(tmp_path / "run" / "generations.csv").iloc[0]
    assert first["env_steps"] > probe.env_steps  # the probe's steps, then generation 0's


def test_a_run_killed_after_a_checkpoint_resumes_to_the_same_results(two_rooms: dict[str, Any],
                                                                     tmp_path: Path) -> None:
    run(two_rooms, tmp_path / "whole")

    def kill_after_generation_1(report: GenerationReport) -> None:
        if report.generation == 1:
            raise Kill

    killed = tmp_path / "killed"
    with pytest.raises(Kill):
        run(two_rooms, killed, progress=kill_after_generation_1)
    Evolve(parse_experiment(two_rooms), killed).run(resume=True)
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "whole"), comparable_generations(killed))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "whole"), comparable_bugs(killed))


def test_a_run_killed_before_its_first_checkpoint_plays_the_probe_again(two_rooms: dict[str, Any],
                                                                         tmp_path: Path) -> None:
    run(two_rooms, tmp_path / "whole")

    def kill_at_generation_0(report: GenerationReport) -> None:
        raise Kill

    killed = tmp_path / "killed"
    with pytest.raises(Kill):
        run(two_rooms, killed, progress=kill_at_generation_0)
    (killed / "checkpoints" / "gen_00000.pt").unlink()  # as if the kill came just before it
    Evolve(parse_experiment(two_rooms), killed).run(resume=True)
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "whole"), comparable_generations(killed))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "whole"), comparable_bugs(killed))
