"""Stuck: the state stops changing while the policy tries different actions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from pydantic import ValidationError

from games.core.component import Context
from games.core.base import GameSpec
from oracles.stuck import StuckConfig, StuckOracle
from games.core.record import RolloutBatch


def _walk_then_freeze(walk: int, freeze: int) -> list[tuple[float, float]]:
    """Move east ``walk`` steps from (0.5, 5.5), then stay put for ``freeze`` steps."""
    moving = [(0.5 + i, 5.5) for i in range(walk + 1)]
    return moving + [moving[-1]] * freeze


def test_ignored_actions_are_stuck_at_first_full_window(spec: GameSpec, make_rollout):
    # States 0..5 differ; from state 5 on nothing moves while actions cycle 0..3.
    r = make_rollout(_walk_then_freeze(5, 20))
    bugs = StuckOracle(spec, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([r]))
    assert len(bugs) == 1  # one report per rollout, not one per frozen step
    bug = bugs[0]
    # features[t+1-8 : t+2] all equal state 5 first at t = 12.
    assert bug.kind == "stuck" and bug.step == 12
    assert bug.signature == "stuck:(5, 5)"
    assert bug.next_state == (5.5, 5.5)
    assert bug.data["distinct_actions"] == 4


def test_pushing_into_a_wall_is_not_stuck(spec, make_rollout):
    path = _walk_then_freeze(5, 20)
    actions = [0] * 25  # same action over and over: the wall works
    assert StuckOracle(spec, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([make_rollout(path, actions=actions)])) == []


def test_wall_counts_when_action_check_is_off(spec, make_rollout):
    r = make_rollout(_walk_then_freeze(5, 20), actions=[0] * 25)
    bugs = StuckOracle(spec, StuckConfig(min_distinct_actions=1), Context()).check(RolloutBatch.from_rollouts([r]))
    assert [b.step for b in bugs] == [12]


def test_moving_normally_is_not_stuck(spec, make_rollout):
    path = [(0.5 + 0.3 * i, 5.5 + 0.1 * np.sin(i)) for i in range(30)]
    assert StuckOracle(spec, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([make_rollout(path)])) == []


def test_back_and_forth_is_not_stuck(spec, make_rollout):
    path = [(0.5 + (i % 2), 5.5) for i in range(30)]
    assert StuckOracle(spec, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([make_rollout(path)])) == []


def test_frozen_from_reset_reports_after_window_ignored_steps(spec, make_rollout):
    r = make_rollout([(3.5, 3.5)] * 20)
    (bug,) = StuckOracle(spec, StuckConfig(window=4), Context()).check(RolloutBatch.from_rollouts([r]))
    # Steps 0..3 were all ignored: the fourth ignored step is where it shows.
    assert bug.step == 3 and bug.signature == "stuck:(3, 3)"


def test_actions_tried_over_a_long_freeze_count(spec, make_rollout):
    """A policy that favours one action still shows the freeze once it has tried them all."""
    actions = [0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0]
    r = make_rollout([(3.5, 3.5)] * (len(actions) + 1), actions=actions)
    (bug,) = StuckOracle(spec, StuckConfig(window=8), Context()).check(RolloutBatch.from_rollouts([r]))
    assert bug.step == 12 and bug.data["distinct_actions"] == 4


def test_too_short_to_fill_a_window_is_not_stuck(spec, make_rollout):
    r = make_rollout([(3.5, 3.5)] * 8)  # 7 steps < window 8
    assert StuckOracle(spec, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([r])) == []


@pytest.mark.parametrize("noise, found", [(1e-9, True), (1e-3, False)])
def test_tolerance(spec, make_rollout, noise, found):
    rng = np.random.default_rng(0)
    path = np.array(_walk_then_freeze(5, 20)) + rng.uniform(-noise, noise, (26, 2))
    bugs = StuckOracle(spec, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([make_rollout(path)]))
    assert bool(bugs) is found


def test_each_rollout_checked_on_its_own(spec, make_rollout):
    stuck = make_rollout(_walk_then_freeze(5, 20), policy=1)
    moving = make_rollout([(0.5 + 0.3 * i, 5.5) for i in range(30)], policy=2)
    bugs = StuckOracle(spec, StuckConfig(), Context()).check(RolloutBatch.from_rollouts([moving, stuck, moving]))
    assert [b.policy for b in bugs] == [1]


def test_config_rejects_bad_values():
    with pytest.raises(ValidationError):
        StuckConfig(window=0)
    with pytest.raises(ValidationError):
        StuckConfig(windows=3)


def test_walking_a_loop_is_not_stuck(spec: GameSpec, make_rollout) -> None:
    """A loop whose states average to where the agent stands is movement, not a freeze
    (Wuji's moving-average test alone would call it stuck)."""
    path = [(4, 7), (3, 7), (3, 8), (2, 8), (1, 8), (1, 9), (1, 8), (2, 8), (3, 8), (2, 8)]
    rollout = make_rollout(path, actions=[0, 2, 0, 0, 2, 3, 1, 1, 0])
    assert StuckOracle(spec, StuckConfig(window=8), Context()).check(RolloutBatch.from_rollouts([rollout])) == []


def test_a_frame_that_changes_inside_one_cell_is_not_stuck(spec: GameSpec, make_rollout) -> None:
    """Coarse features (a frame's cells) stay put while a sprite moves a pixel a step: the
    observation's digest tells the oracle that the game did not ignore those steps, and a
    freeze shows again once the digest stops changing too."""
    coarse = replace(spec, coarse_features=True)
    oracle = StuckOracle(coarse, StuckConfig(), Context())
    assert oracle.requires == {"info.obs_digest"}
    assert StuckOracle(spec, StuckConfig(), Context()).requires == frozenset()
    moving = make_rollout([(3.5, 3.5)] * 21)  # 20 steps in one cell, all actions tried
    digests = np.concatenate([np.arange(1.0, 11.0), np.full(10, 10.0)])  # 10 moves, then frozen
    batch = RolloutBatch.from_rollouts([replace(moving, info={"obs_digest": digests})])
    (bug,) = oracle.check(batch)
    # Steps 10..17 left the frame as step 9 did: the eighth is the first stuck step.
    assert bug.step == 17 and "unchanged for 8 steps" in bug.message
    assert oracle.first_stuck_steps(batch.features, batch.actions, batch.lengths).tolist() == [7]


def test_without_a_digest_before_it_the_first_step_is_not_called_unchanged(spec, make_rollout) -> None:
    frozen = make_rollout([(3.5, 3.5)] * 9)  # 8 steps: a full window from the reset on
    oracle = StuckOracle(replace(spec, coarse_features=True), StuckConfig(), Context())
    with_digest = RolloutBatch.from_rollouts([replace(frozen, info={"obs_digest": np.full(8, 5.0)})])
    assert oracle.check(with_digest) == []  # steps 1..7: 7 unchanged, one short of the window
    assert [b.step for b in oracle.check(RolloutBatch.from_rollouts([frozen]))] == [7]


def test_a_state_held_by_luck_is_not_stuck_where_the_same_move_left_it_elsewhere(spec, make_rollout) -> None:
    """Slippery ice (FrozenLake) holds a copy in place for a window now and then; another
    episode that left the same state with one of the actions tried shows it was luck. A trap
    that holds every episode is still reported."""
    held = make_rollout([(3.5, 3.5)] * 21, policy=1)  # 20 steps, actions 0..3 cycled
    left = make_rollout([(3.5, 3.5), (4.5, 3.5), (5.5, 3.5)], actions=[2, 2], policy=2)
    oracle = StuckOracle(spec, StuckConfig(), Context())
    assert oracle.check(RolloutBatch.from_rollouts([held, left])) == []
    also_held = make_rollout([(3.5, 3.5)] * 12, policy=3)
    bugs = oracle.check(RolloutBatch.from_rollouts([held, also_held]))
    # one trap, one report: after the luck of the first batch, from the second hold of the place
    assert [b.policy for b in bugs] == [3]
    elsewhere = make_rollout([(6.5, 3.5), (7.5, 3.5), (8.5, 3.5)], actions=[2, 2], policy=4)
    assert [b.policy for b in oracle.check(RolloutBatch.from_rollouts([held, elsewhere]))] == [1]


def _turning_in_place(walk: int, freeze: int) -> list[tuple[float, float, float]]:
    """East ``walk`` steps, then walled in: the position holds while the camera turns 10
    degrees a step (an Unreal camera, a ViZDoom player)."""
    moving = [(0.5 + i, 5.5, 0.0) for i in range(walk + 1)]
    x, y, _ = moving[-1]
    return moving + [(x, y, 10.0 * (k + 1)) for k in range(freeze)]


def test_turning_in_place_is_stuck_where_the_game_says_which_features_are_its_position(
    spec: GameSpec, make_rollout,
) -> None:
    turning = replace(spec, feature_names=("x", "y", "yaw"), feature_low=(0.0, 0.0, 0.0),
                      feature_high=(10.0, 10.0, 360.0), feature_bins=(10, 10, 8))
    batch = RolloutBatch.from_rollouts([make_rollout(_turning_in_place(5, 20))])
    assert StuckOracle(turning, StuckConfig(), Context()).check(batch) == []  # the state changes
    bugs = StuckOracle(replace(turning, position=("x", "y")), StuckConfig(), Context()).check(batch)
    assert len(bugs) == 1 and bugs[0].step == 12
    assert bugs[0].signature == "stuck:(5, 5)"  # the place: one bug whichever way the camera looks
    assert bugs[0].message.startswith("position unchanged for 8 steps")


def test_a_position_that_names_no_feature_is_one_line(spec: GameSpec) -> None:
    from games.core.base import GameSpecError

    with pytest.raises(GameSpecError, match=r"^game_spec.position names 'z', not state features; the features are x, y$"):
        replace(spec, position=("x", "z"))


def _dead_end_left_by(make_rollout, action: int, policy: int = 5) -> object:
    """Held three steps in (3.5, 3.5), ``action`` among them (sticky inputs played the last move
    again), then moved on by ``action``: chance, one state and action that held and moved."""
    return make_rollout([(3.5, 3.5)] * 4 + [(4.5, 3.5)], actions=[action, 0, 1, action], policy=policy)


def test_a_hold_the_episode_cuts_short_is_luck_where_an_earlier_episode_left_the_state(spec, make_rollout) -> None:
    """Sticky inputs hold a robot in a dead end until its exit goes through; an episode that
    ends held there is not a trap where an earlier batch moved on from the same state with an
    action the held run tried."""
    held_to_the_end = make_rollout([(3.5, 3.5)] * 11, policy=1)  # 10 steps, actions 0..3 cycled
    fresh = StuckOracle(spec, StuckConfig(), Context())
    assert [b.policy for b in fresh.check(RolloutBatch.from_rollouts([held_to_the_end]))] == [1]
    fresh.check(RolloutBatch.from_rollouts([make_rollout([(3.5, 3.5)] * 4 + [(4.5, 3.5)], actions=[0, 1, 3, 2])]))
    assert fresh.state_dict() == {"let_go": [], "chancy": False, "held_once": []}  # no chance: no memory
    oracle = StuckOracle(spec, StuckConfig(), Context())
    assert oracle.check(RolloutBatch.from_rollouts([_dead_end_left_by(make_rollout, 2)])) == []
    assert oracle.state_dict()["let_go"] == [[3.5, 3.5, 2]]
    assert oracle.check(RolloutBatch.from_rollouts([held_to_the_end])) == []
    resumed = StuckOracle(spec, StuckConfig(), Context())
    resumed.load_state_dict(oracle.state_dict())
    assert resumed.check(RolloutBatch.from_rollouts([held_to_the_end])) == []
    resumed.forget_visits()  # a replay is judged on its own evidence
    assert [b.policy for b in resumed.check(RolloutBatch.from_rollouts([held_to_the_end]))] == [1]


def test_after_chance_a_new_place_is_reported_once_it_holds_again(spec, make_rollout) -> None:
    oracle = StuckOracle(spec, StuckConfig(), Context())
    oracle.check(RolloutBatch.from_rollouts([_dead_end_left_by(make_rollout, 2)]))
    trap = [(7.5, 7.5)] * 11
    assert oracle.check(RolloutBatch.from_rollouts([make_rollout(trap, policy=2)])) == []  # kept back
    resumed = StuckOracle(spec, StuckConfig(), Context())
    resumed.load_state_dict(oracle.state_dict())
    bugs = resumed.check(RolloutBatch.from_rollouts([make_rollout(trap, policy=3)]))
    assert [(b.policy, b.signature) for b in bugs] == [(3, "stuck:(7, 7)")]
