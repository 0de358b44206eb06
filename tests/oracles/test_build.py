"""Building oracles from an experiment's list, and checking a batch with all of them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games.core.base import GameError
from oracles import ORACLES, build_oracles, calibrate_all, check_all
from oracles.performance import PerformanceOracle
from games.core.record import RolloutBatch


def test_builtin_oracles_are_registered():
    assert {"crash", "logic", "stuck", "performance"} <= set(ORACLES)


def test_build_in_order_with_validated_kwargs(spec):
    oracles = build_oracles(
        [("crash", {}), ("stuck", {"window": 4}), ("performance", None)], spec)
    assert [o.name for o in oracles] == ["crash", "stuck", "performance"]
    assert oracles[1].config.window == 4


def test_unknown_oracle_lists_the_known_ones(spec):
    with pytest.raises(KeyError, match="^unknown oracle .segfault.; expected one of balance, crash, logic, objects, performance, stuck, validation, visual"):
        build_oracles([("segfault", {})], spec)


@pytest.mark.parametrize("entry", [("stuck", {"windw": 4}), ("stuck", {"window": "many"}),
                                   ("performance", {"min_visits": 0})])
def test_bad_kwargs_raise_validation_error(spec, entry):
    with pytest.raises(ValidationError):
        build_oracles([entry], spec)


def test_check_all_collects_every_oracle(spec, make_rollout):
    oracles = build_oracles([("crash", {}), ("logic", {}), ("stuck", {}),
                             ("performance", {})], spec)
    path = [(0.5 + i, 0.5) for i in range(5)]
    rollouts = [
        make_rollout(path, error=GameError("RuntimeError", "boom")),
        make_rollout(path, error=GameError("AssertionError", "hp < 0")),
        make_rollout(path, violations=[(1, "gold < 0")]),
        make_rollout([(4.5, 4.5)] * 12),
    ]
    calibrate_all(oracles, RolloutBatch.from_rollouts(rollouts))
    assert isinstance(oracles[3], PerformanceOracle) and oracles[3].threshold_ms is not None
    kinds = [b.kind for b in check_all(oracles, RolloutBatch.from_rollouts(rollouts))]
    assert kinds == ["crash", "logic", "logic", "stuck"]
