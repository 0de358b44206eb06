"""The wall budget holds during play, and a bug is dated by the step that showed it (issue 51).

A game of long, slow episodes, as many a game someone else wrote is: one generation of the
default experiment's 120 episodes of 1000 steps takes minutes. The budget used to be checked
between generations only (240 s ran 298 s), and a bug carried the time of its generation's end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import yaml

from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve
from tests.cli.test_cli import ROOT

BUDGET_S = 6.0
STEP_DELAY_S = 0.0005
"""Each copy's step: 120 copies in one process step in 0.06 s, a generation in 60 s."""


def _slow_walk() -> dict:
    exp = yaml.safe_load((ROOT / "experiments" / "block_maze.yaml").read_text())
    exp["game"] = {"entry_point": "tests.games.faulty_envs:LineWalk", "isolated": False,
                   "kwargs": {"fault": "violation", "at_position": 4, "length": 2000, "max_steps": 1000,
                              "n_actions": 3, "step_delay_s": STEP_DELAY_S}}
    exp["budget"] = {"wall_seconds": BUDGET_S}
    exp["parallel"] = {"n_jobs": 1}
    return exp


def test_the_wall_budget_cuts_a_generation_short_and_bugs_carry_their_own_time(tmp_path: Path) -> None:
    search = Evolve(parse_experiment(_slow_walk()), tmp_path / "run")
    search.run()
    rows = pd.read_csv(tmp_path / "run" / "generations.csv")
    assert len(rows) == 1  # generation 0, cut: it would have played 120,000 steps
    full = 120 * 1000
    assert rows["env_steps"].iloc[-1] < full / 4
    # Within the budget plus what one step of all copies and the generation's end take: a
    # generation that ran whole took ten times the budget.
    assert rows["wall_s"].iloc[-1] < BUDGET_S * 2
    bugs = [json.loads(line) for line in (tmp_path / "run" / "bugs.jsonl").read_text().splitlines()]
    crash = next(b for b in bugs if b["kind"] == "logic")  # a violation: the episode goes on
    # Four steps right with 3 actions: seconds before the generation ended, not at its end.
    assert crash["wall_s"] < rows["wall_s"].iloc[-1] - 1.0
    assert crash["env_steps"] < rows["env_steps"].iloc[-1] * 0.8
