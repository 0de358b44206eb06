"""Crash vs logic: any exception but an assertion is a crash; assertions and violations are
logic bugs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from games.core.component import Context
from games.core.base import GameError, GameSpec
from oracles.crash import CrashConfig, CrashOracle
from oracles.logic import LogicConfig, LogicOracle
from games.core.record import RolloutBatch

PATH = [(0.5, 0.5), (1.5, 0.5), (2.5, 0.5), (3.5, 0.5)]


def _assertion(spec_error: str = "hp < 0") -> GameError:
    return GameError(type="AssertionError", message=spec_error, where="maze.py:step:40")


@pytest.mark.parametrize("etype", ["RuntimeError", "IndexError", "GameHang", "GameProcessDied"])
def test_crash_reports_non_assertion_errors_at_last_step(spec: GameSpec, make_rollout, etype):
    err = GameError(type=etype, message="boom", where="maze.py:step:12")
    r = make_rollout(PATH, error=err, policy=7, seed=3)
    bugs = CrashOracle(spec, CrashConfig(), Context()).check(RolloutBatch.from_rollouts([r]))
    assert len(bugs) == 1
    bug = bugs[0]
    assert bug.kind == "crash" and bug.oracle == "crash"
    assert bug.step == 2
    assert bug.signature == f"crash:{etype}:maze.py:step:12:boom"
    assert bug.message == f"{etype} at step 2: boom"
    assert bug.actions == (0, 1, 2) and bug.policy == 7 and bug.episode_seed == 3
    assert bug.state == (2.5, 0.5) and bug.next_state == (3.5, 0.5)


def test_crash_ignores_assertions_violations_and_clean_rollouts(spec, make_rollout):
    rollouts = [
        make_rollout(PATH),
        make_rollout(PATH, error=_assertion()),
        make_rollout(PATH, violations=[(1, "gold < 0")]),
    ]
    assert CrashOracle(spec, CrashConfig(), Context()).check(RolloutBatch.from_rollouts(rollouts)) == []


def test_crash_before_any_step_points_at_reset(spec, make_rollout):
    r = make_rollout([(0.5, 0.5)], error=GameError("GameProcessDied", "exit 139"))
    (bug,) = CrashOracle(spec, CrashConfig(), Context()).check(RolloutBatch.from_rollouts([r]))
    assert bug.step == 0 and bug.actions == () and bug.state == bug.next_state == (0.5, 0.5)


def test_logic_reports_assertion_at_last_step(spec, make_rollout):
    r = make_rollout(PATH, error=_assertion())
    bugs = LogicOracle(spec, LogicConfig(), Context()).check(RolloutBatch.from_rollouts([r]))
    assert len(bugs) == 1
    assert bugs[0].kind == "logic" and bugs[0].step == 2
    assert bugs[0].signature == "logic:assert:maze.py:step:40:hp < 0"
    assert bugs[0].message == "AssertionError at step 2: hp < 0"


def test_logic_reports_each_violation_at_its_step(spec, make_rollout):
    r = make_rollout(PATH, violations=[(0, "gold < 0"), (2, "door open and closed")])
    bugs = LogicOracle(spec, LogicConfig(), Context()).check(RolloutBatch.from_rollouts([r]))
    assert [(b.step, b.signature) for b in bugs] == [
        (0, "logic:violation:gold < 0"), (2, "logic:violation:door open and closed"),
    ]
    assert all(b.kind == "logic" for b in bugs)
    assert bugs[1].actions == (0, 1, 2)


def test_logic_ignores_crashes_and_clean_rollouts(spec, make_rollout):
    rollouts = [make_rollout(PATH), make_rollout(PATH, error=GameError("RuntimeError", "x"))]
    assert LogicOracle(spec, LogicConfig(), Context()).check(RolloutBatch.from_rollouts(rollouts)) == []


def test_a_record_that_began_at_a_snapshot_says_its_steps_from_the_reset(spec: GameSpec, make_rollout) -> None:
    """A return by snapshot records its episode from the snapshot on (30 steps after the
    reset here): the message's step is the bug's step, counted from the reset."""
    head = np.zeros(30, dtype=np.int64)
    crashed = replace(make_rollout(PATH, error=GameError(type="RuntimeError", message="boom", where="m.py:f:1")), head=head)
    violated = replace(make_rollout(PATH, violations=[(1, "gold < 0")]), head=head)
    (crash,) = CrashOracle(spec, CrashConfig(), Context()).check(RolloutBatch.from_rollouts([crashed]))
    (logic,) = LogicOracle(spec, LogicConfig(), Context()).check(RolloutBatch.from_rollouts([violated]))
    assert (crash.step, crash.message) == (32, "RuntimeError at step 32: boom")
    assert (logic.step, logic.message) == (31, "violation at step 31: gold < 0")
