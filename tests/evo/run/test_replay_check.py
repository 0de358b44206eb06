"""bug_replays: auto: a run checks as it starts whether its game replays, and asks for rates only where it does not."""

from __future__ import annotations

from games.registry import GameFactory

from evo.run.replay_check import replays

LINE_WALK = "tests.games.faulty_envs:LineWalk"


def test_a_game_that_replays_is_told_from_one_that_does_not() -> None:
    assert replays(GameFactory(name="block_maze"), 0) is True
    assert replays(GameFactory(name="block_maze", kwargs=(("sticky", 0.25),)), 0) is False
    seeded = GameFactory(entry_point=LINE_WALK, kwargs=(("slip", 0.5), ("n_actions", 3)))
    assert replays(seeded, 0) is True  # chance drawn from the seed replays
    unseeded = GameFactory(entry_point=LINE_WALK, kwargs=(("unseeded_slip", 0.5), ("n_actions", 3)))
    assert replays(unseeded, 0) is False


def test_a_crash_at_a_common_place_is_the_same_end_both_times() -> None:
    crashing = GameFactory(entry_point=LINE_WALK, kwargs=(("fault", "raise"), ("at_position", 2)))
    assert replays(crashing, 0) is True


def test_a_game_that_cannot_be_made_cannot_tell() -> None:
    assert replays(GameFactory(entry_point="tests.games.faulty_envs:NoSuchGame"), 0) is None


def test_a_game_that_hangs_is_not_waited_for_twice() -> None:
    hanging = GameFactory(entry_point=LINE_WALK, kwargs=(("fault", "hang"), ("at_position", 1)), step_timeout_s=1.0)
    assert replays(hanging, 0) is None
