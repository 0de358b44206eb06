"""Replays of statistical oracles' bugs run under the run's load: as many copies as one worker stepped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evo.bugs.replay import replay, run_batch
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve
from games.core.component import ComponentEntry
from games.core.record import RolloutBatch
from oracles.base import ORACLES, Bug, Oracle, OracleConfig


def test_run_batch_is_the_copies_one_worker_stepped(tiny_config: dict[str, Any]) -> None:
    # TINY: population 6, offspring 6, 2 episodes each, serial: one batch of 12.
    assert run_batch(parse_experiment(tiny_config)) == 12
    tiny_config["parallel"] = {"backend": "loky", "n_jobs": 5}
    tiny_config["search"]["offspring"] = 9
    assert run_batch(parse_experiment(tiny_config)) == 4  # 18 episodes in 5 chunks: 4, 4, 4, 3, 3


class Crowd(Oracle):
    """An oracle that sees its bug only in a batch of at least 12 episodes (the tiny run's
    generation: 6 policies, 2 episodes each), whatever the bug's kind."""

    name = "crowd"

    def __init__(self, spec: Any, config: Any, context: Any) -> None:
        pass

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        if len(rollouts) < 12:
            return []
        return [Bug.at_step(rollouts[0], 0, kind="logic", oracle=self.name, signature="crowd", message="crowded")]


class StatisticalCrowd(Crowd):
    statistical = True


@pytest.mark.parametrize(("oracle", "reproduced"), [(StatisticalCrowd, True), (Crowd, False)])
def test_a_custom_oracle_declared_statistical_is_replayed_in_the_runs_copies(
    tiny_config: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, oracle: type, reproduced: bool,
) -> None:
    monkeypatch.setitem(ORACLES, "crowd", ComponentEntry(OracleConfig, oracle))
    tiny_config.update(oracles=[{"name": "crowd"}], budget={"generations": 1}, finetune={"algorithm": "none"})
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    result = replay(tmp_path / "run", 0)  # 3 repeats asked; a statistical oracle's bug gets 12
    assert result.reproduced is reproduced, result.message


@pytest.mark.parametrize(("unseeded_slip", "repeats"), [(0.0, 3), (0.5, 40)])
def test_a_replay_says_in_how_many_copies_the_bug_showed(
    tiny_config: dict[str, Any], tmp_path: Path, unseeded_slip: float, repeats: int,
) -> None:
    """A game that replays shows its crash in every replay; one whose moves slip by a
    generator no seed reaches (physics on threads) shows it in some, and the message says
    in how many, each copy judged alone."""
    tiny_config.update(
        game={"entry_point": "tests.games.faulty_envs:LineWalk", "isolated": False,
              "kwargs": {"fault": "raise", "at_position": 3, "unseeded_slip": unseeded_slip}},
        oracles=[{"name": "crash"}], budget={"generations": 1}, finetune={"algorithm": "none"},
    )
    Evolve(parse_experiment(tiny_config), tmp_path / "run").run()
    result = replay(tmp_path / "run", 0, repeats=repeats)
    assert result.reproduced and result.played == repeats, result.message
    if unseeded_slip:
        assert 0 < result.showed < repeats  # 24 to 29 of 40 measured: all alike about once in 10^7
    else:
        assert result.showed == repeats
    assert result.message.startswith(f"bug 0 reproduced in {result.showed} of {repeats} replays: RuntimeError")
