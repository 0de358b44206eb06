"""The block maze's ground truth: which injected bug a reported bug is (``BlockMaze.match``),
by kind and cell, and a robot trapped by a logic bug counted as that bug."""

from __future__ import annotations

from dataclasses import dataclass

from games.maze.block_maze import LOGIC_IN_BLOCK, BlockMaze
from tests.games.maze.test_block_maze import bug_with_event, path_to_bug, walk


@dataclass(frozen=True)
class Report:
    """A bug as an oracle would report it (duck-typed for ``match``)."""

    kind: str
    state: tuple[float, ...]
    next_state: tuple[float, ...]
    actions: tuple[int, ...]


def test_match_names_each_bug_and_rejects_unrelated_reports() -> None:
    env = BlockMaze()
    for bug in env.injected_bugs:
        actions = tuple(path_to_bug(env, bug.id))
        obs = env.reset(seed=0)[0]
        for a in actions[:-1]:
            obs = env.step(a)[0]
        before = tuple(env.state_features(obs, {}))
        cell = bug.location
        if bug.kind == "stuck":  # reported where the robot froze, after some idle steps
            report = Report("stuck", cell, cell, actions + (0, 1))
        else:
            report = Report(bug.kind, before, before if bug.kind == "crash" else cell, actions)
        assert env.match(report) == bug.id, bug
    start = tuple(float(v) for v in env.layout.start)
    assert env.match(Report("crash", start, start, (0,))) is None
    first = env.injected_bugs[0]
    wrong_kind = "balance" if first.kind != "balance" else "crash"
    assert env.match(Report(wrong_kind, first.location, first.location, (0,))) is None


def test_inside_block_bug_matches_from_where_it_left_the_robot() -> None:
    env = BlockMaze()
    bug = bug_with_event(env, LOGIC_IN_BLOCK)
    actions = path_to_bug(env, bug)
    steps = walk(env, actions)
    before = tuple(env.state_features(steps[-2][0], {})) if len(steps) > 1 else env.layout.start
    after = tuple(env.state_features(steps[-1][0], {}))
    assert env.match(Report("logic", before, after, tuple(actions))) == bug


def test_a_robot_trapped_in_a_block_by_a_logic_bug_is_that_bug() -> None:
    """Every way out of the block re-enters the bug's cell and lands the robot back inside,
    so the stuck oracle reports it: that report is the logic bug seen by another oracle, not
    a bug of its own."""
    env = BlockMaze()
    bug = bug_with_event(env, LOGIC_IN_BLOCK)
    actions = path_to_bug(env, bug)
    steps = walk(env, actions)
    inside = tuple(env.state_features(steps[-1][0], {}))
    later = [tuple(env.state_features(env.step(a)[0], {})) for a in (0, 1, 2, 3) * 2]
    assert set(later) == {inside}  # trapped: no action gets it out
    trapped = Report("stuck", inside, inside, tuple(actions) + (0, 1, 2, 3) * 2)
    assert env.match(trapped) == bug
    elsewhere = tuple(float(v) for v in env.layout.start)
    assert env.match(Report("stuck", elsewhere, elsewhere, (0, 1, 2, 3))) is None
    fixed = BlockMaze(fixed_bugs=(bug,))
    assert fixed.match(trapped) is None  # a fixed bug is matched by nothing
