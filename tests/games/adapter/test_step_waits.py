"""How long an isolated copy's step is awaited (``games.adapter.step_waits``): learned from the
game's own steps, short at a place that hung before, overdue copies waited for together, and
steps sent ahead that nobody wants stopped rather than played into a hang.

Before, every hang was waited out for ``game.step_timeout_s`` (10 s) while the other copies
stood still, and a batch cut by its deadline played what was left of its plans at the next
reset, waiting out each hang in them in turn: the default experiment on a game that hangs three
cells from its start took 302 s of a 60 s budget and wrote its one bug at the end; 66 s now."""

from __future__ import annotations

import functools
import time

import numpy as np

from evo.search.agents.script import ScriptAgent
from evo.search.play import play
from games.adapter.step_waits import FACTOR, FLOOR_S, KNOWN_FLOOR_S, LEARN_AFTER, StepWaits
from games.adapter.vector_game import GymVectorGame
from games.core.base import GameSpec
from tests.games.faulty_envs import LineWalk

LEFT, STAY, RIGHT = 0, 1, 2


def _game(n: int, timeout_s: float, learn: bool = False, **kwargs) -> GymVectorGame:
    make_env = functools.partial(LineWalk, length=12, max_steps=80, slip=0.0, **kwargs)
    return GymVectorGame(make_env, n, step_timeout_s=timeout_s, learn_timeout=learn)


def test_the_wait_is_learned_from_the_slowest_step_once_enough_are_seen() -> None:
    waits = StepWaits(10.0, learn=True)
    for _ in range(LEARN_AFTER - 1):
        waits.took(0.001)
    assert waits.full_s == 10.0  # too few steps seen to say
    waits.took(0.001)
    assert waits.full_s == FLOOR_S  # a fast game: the floor
    waits.took(2.0)
    assert waits.full_s == FACTOR * 2.0  # a slow step seen: a slow game is waited for longer
    fixed = StepWaits(10.0, learn=False)  # game.step_timeout_s set by the user: kept
    for _ in range(2 * LEARN_AFTER):
        fixed.took(0.001)
    assert fixed.full_s == 10.0


def test_a_place_that_hung_is_awaited_briefly_and_only_that_place() -> None:
    spec = GameSpec(obs_shape=(1,), n_actions=3, feature_names=("x",), feature_low=(0.0,),
                    feature_high=(12.0,), feature_bins=(12,), max_steps=80)
    waits = StepWaits(10.0, learn=False, spec=spec)
    waits.moved(0, np.array([2.2]))
    waits.moved(1, np.array([7.0]))
    waits.hung(0)
    waits.moved(0, np.array([2.7]))  # another copy, or a later episode, in the same cell
    assert waits.wait_s(0) == KNOWN_FLOOR_S < waits.full_s
    assert waits.wait_s(1) == 10.0


def test_a_hang_reached_again_is_the_same_bug_and_is_not_waited_out_again() -> None:
    """Copy 1 walks into the hang at cell 3 in each of three episodes: the same error each
    time (one signature), and the wait from cell 2 after the first is the short one."""
    scripts = ScriptAgent([[STAY] * 6, [RIGHT] * 6], 3)
    with _game(2, 5.0, fault="hang", at_position=3) as game:
        errors, took = [], []
        for episode in range(3):
            start = time.monotonic()
            rollouts = play(game, [episode, episode], [0, 0], scripts, max_steps=6).rollouts
            took.append(time.monotonic() - start)
            errors.append(rollouts.errors[1])
    assert errors[0].type == "GameHang" and errors[0] == errors[1] == errors[2]
    assert took[0] >= 5.0  # the first is waited out: nothing said it was a hang yet
    assert took[1] < 5.0 and took[2] < 5.0


def test_copies_overdue_at_once_are_waited_for_together() -> None:
    """Four copies sent their steps ahead hang at four different steps of their plans: their
    waits run from when each copy began its step, not one after another as this process
    reads them. One after another they would take four waits."""
    timeout_s = 3.0
    scripts = ScriptAgent([[STAY] * k + [RIGHT] * 8 for k in range(4)], 3)
    with _game(4, timeout_s, fault="hang", at_position=3, step_delay_s=0.2) as game:
        start = time.monotonic()
        rollouts = play(game, [0, 1, 2, 3], [0] * 4, scripts, max_steps=12).rollouts
        took = time.monotonic() - start
    assert sorted(rollouts.errors) == [0, 1, 2, 3]
    assert {e.type for e in rollouts.errors.values()} == {"GameHang"}
    assert rollouts.lengths.tolist() == [3, 4, 5, 6]
    assert took < 2 * timeout_s


def test_steps_sent_ahead_past_a_deadline_are_stopped_not_played_into_a_hang() -> None:
    """A batch cut by its deadline leaves most of each copy's plan unplayed: the copy is told
    to stop and plays no further, so the hang ten cells on is never reached, and the copy's
    process is still the one it was (nothing was killed)."""
    scripts = ScriptAgent([[RIGHT] * 30], 3)
    with _game(1, 5.0, fault="hang", at_position=10, step_delay_s=0.05) as game:
        pid = game._runner.workers[0].process.pid
        cut = play(game, [0], [0], scripts, max_steps=30, deadline=time.time() + 0.1)
        again = play(game, [1], [0], ScriptAgent([[LEFT] * 3], 3), max_steps=3).rollouts
        assert game._runner.workers[0].process.pid == pid
    assert cut.cut and not cut.rollouts.errors and cut.rollouts.lengths[0] < 10
    assert not again.errors and again.lengths.tolist() == [3]
