"""Each bug a run keeps comes with in how many of its replays it showed again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve


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


def test_no_replays_asked_keeps_no_rate(tiny_config: dict[str, Any], tmp_path: Path) -> None:
    tiny_config.update(
        game={"entry_point": "tests.games.faulty_envs:LineWalk", "isolated": False,
              "kwargs": {"fault": "raise", "at_position": 3}},
        oracles=[{"name": "crash"}], budget={"generations": 1}, finetune={"algorithm": "none"}, bug_replays=0,
    )
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    assert [b["reproduced"] for b in _bugs(tmp_path / "run")] == [None]
