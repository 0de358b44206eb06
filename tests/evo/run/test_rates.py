"""Each bug a run keeps comes with in how many of its replays it showed again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from evo.bugs.replay import replay
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve

ROOT = Path(__file__).resolve().parents[3]


def _bugs(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "bugs.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(("unseeded_slip", "replays"), [(0.0, 10), (0.5, 40)])
def test_a_run_keeps_each_bugs_reproduction_rate(
    tiny_config: dict[str, Any], tmp_path: Path, unseeded_slip: float, replays: int,
) -> None:
    """A game that replays shows its crash in every replay; one whose moves slip by a
    generator no seed reaches shows it in some (24 to 29 of 40 measured by evo replay)."""
    tiny_config.update(
        game={"entry_point": "tests.games.faulty_envs:LineWalk", "isolated": False,
              "kwargs": {"fault": "raise", "at_position": 3, "unseeded_slip": unseeded_slip}},
        oracles=[{"name": "crash"}], budget={"generations": 1}, finetune={"algorithm": "none"},
        bug_replays=replays,
    )
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    (bug,) = _bugs(tmp_path / "run")
    showed, played = bug["reproduced"]
    assert played == replays
    assert (showed == replays) if not unseeded_slip else (0 < showed < replays)


@pytest.mark.parametrize(("unseeded_slip", "decided"), [(0.0, 0), (0.5, 10)])
def test_by_default_only_a_game_that_does_not_replay_gets_rates(
    tiny_config: dict[str, Any], tmp_path: Path, unseeded_slip: float, decided: int,
) -> None:
    """bug_replays: auto. Replays are episodes played in the run's own process (a park episode:
    2 s): a game that replays shows its bug in every one, so it gets none; one that does not gets
    10, and config.yaml records the number."""
    tiny_config.update(
        game={"entry_point": "tests.games.faulty_envs:LineWalk", "isolated": False,
              "kwargs": {"fault": "raise", "at_position": 3, "unseeded_slip": unseeded_slip}},
        oracles=[{"name": "crash"}], budget={"generations": 1}, finetune={"algorithm": "none"},
    )
    tiny_config.pop("bug_replays", None)
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    assert yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())["bug_replays"] == decided
    (bug,) = _bugs(tmp_path / "run")
    assert bug["reproduced"] is None if not decided else bug["reproduced"][1] == 10


def test_a_sticky_mazes_bugs_come_with_the_closest_snapshot_that_replays_them(tmp_path: Path) -> None:
    """The sticky maze's deep bugs rarely replay from the reset; the run plays each again from
    the snapshots its episode took before it, keeps the closest that shows it, and evo replay
    plays it from there."""
    config = yaml.safe_load((ROOT / "experiments" / "block_maze.yaml").read_text())
    config["game"]["kwargs"]["sticky"] = 0.25
    config["budget"] = {"generations": 8}  # bug_replays auto: 10, the game does not replay
    Evolve(parse_experiment(config), tmp_path / "run").run()
    bugs = _bugs(tmp_path / "run")
    assert bugs and all(b["reproduced"] is not None and b["reproduced"][1] in (5, 10) for b in bugs)
    there = [b for b in bugs if b["from_snapshot"] is not None]
    assert there, "no bug of 8 generations was played from a snapshot"
    shown = [b for b in there if b["from_snapshot"]["reproduced"][0] > 0]
    assert shown and all((tmp_path / "run" / "snapshots" / f"bug-{b['id']}.bin").is_file() for b in there)
    result = replay(tmp_path / "run", shown[0]["id"], repeats=10)
    assert f"from its snapshot at step {shown[0]['from_snapshot']['step']}" in result.message, result.message
