"""A replayed bug is the recorded one when their signatures agree, a crash's line number aside:
the game's file may have been edited since (a new build under ``evo regress``, a run directory
from before a change above the raise)."""

from evo.bugs.reproduce import same_fault

AT_78 = "crash:RuntimeError:block_maze.py:_raise_fatal_bug:78:tile handler failed at (2, 2)"


def test_a_crash_moved_to_another_line_of_its_function_is_the_same_fault() -> None:
    assert same_fault(AT_78.replace(":78:", ":79:"), AT_78)


def test_another_function_message_or_kind_is_another_fault() -> None:
    assert not same_fault(AT_78.replace("_raise_fatal_bug", "_step"), AT_78)
    assert not same_fault(AT_78.replace("(2, 2)", "(2, 5)"), AT_78)
    assert not same_fault("stuck:(8, 13)", "stuck:(8, 14)")
