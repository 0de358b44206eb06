"""A game nobody tuned the slow-frame line for: RELINE's CartPole experiment, as shipped, with
nothing changed but its game (a driving game a user brought, tests/games/driving_envs.py)
and a budget of two generations.

Its three slow stretches are 18% of every episode's frames, the first generation's included.
Before the line was taken from the frames under it, the warm-up's own slow frames put it
over all of them (13 ms for 6 ms frames) and the run reported nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evo.report.tables import load_run
from tests.cli.test_cli import ROOT, evo
from tests.games.driving_envs import STRETCHES


@pytest.mark.slow
def test_reline_finds_every_slow_stretch_of_a_driving_game_and_nothing_else(tmp_path: Path) -> None:
    exp = yaml.safe_load((ROOT / "experiments" / "reline_cartpole.yaml").read_text())
    exp["game"] = {"entry_point": "tests.games.driving_envs:SlowStretches"}
    exp["budget"] = {"generations": 2}
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(exp))
    result = evo("run", "exp.yaml", "--out", "run", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]

    bugs = [json.loads(line) for line in (tmp_path / "run" / "bugs.jsonl").read_text().splitlines()]
    summary = [(b["kind"], b["injected_id"], b["message"]) for b in bugs]
    assert {b["injected_id"] for b in bugs} == set(range(len(STRETCHES))), summary
    assert all(b["kind"] == "performance" for b in bugs), summary  # and no unmatched report:
    assert all(b["injected_id"] is not None for b in bugs), summary
    assert load_run(tmp_path / "run").generations["injected_found"].iloc[-1] == len(STRETCHES)
