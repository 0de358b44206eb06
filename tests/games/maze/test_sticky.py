"""The sticky Block Maze: moves played again by chance, from a generator no seed reaches, so
that its episodes do not replay; its snapshots, which returns restore instead; and its ground
truth, which finds a bug's cell when the move recorded is not the one the game played."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from games.maze.block_maze import CRASH, MOVES, BlockMazeVector


def _walk(game: BlockMazeVector, actions: np.ndarray) -> np.ndarray:
    """The features after each of ``actions`` (one row per step, the same for every copy)."""
    game.reset([0] * game.num_envs)
    return np.stack([game.step(np.full(game.num_envs, a)).features for a in actions])


def test_the_same_moves_go_different_ways_with_sticky_inputs_and_the_same_way_without() -> None:
    moves = np.random.default_rng(0).integers(0, 4, 60)
    sticky = _walk(BlockMazeVector(16, preset="large", sticky=0.25, inject_bugs=False), moves)
    plain = _walk(BlockMazeVector(16, preset="large", inject_bugs=False), moves)
    assert (plain == plain[:, :1]).all()  # every copy the same cell at every step
    ends = {tuple(row) for row in sticky[-1]}
    assert len(ends) > 1, "16 sticky copies given the same 60 moves all ended in one cell"


def test_sticky_episodes_differ_between_two_games_made_alike() -> None:
    """No seed reaches the draws: two games with the same kwargs play the same moves apart."""
    moves = np.random.default_rng(1).integers(0, 4, 80)
    one, two = (_walk(BlockMazeVector(8, preset="large", sticky=0.5, inject_bugs=False), moves) for _ in range(2))
    assert not np.array_equal(one, two)


@pytest.mark.parametrize("sticky", [1.0, -0.1, True, "0.2"])
def test_a_sticky_chance_outside_zero_to_one_is_refused(sticky: object) -> None:
    with pytest.raises(ValueError, match="sticky must be a chance from 0 up to"):
        BlockMazeVector(1, sticky=sticky)  # type: ignore[arg-type]


def test_only_the_sticky_maze_offers_snapshots() -> None:
    assert not hasattr(BlockMazeVector(1), "reset_from")
    assert hasattr(BlockMazeVector(1, sticky=0.25), "reset_from")


def test_a_snapshot_puts_a_copy_back_where_it_was_taken_steps_and_all() -> None:
    game = BlockMazeVector(2, preset="large", sticky=0.25, inject_bugs=False)
    game.reset_from([0, 0], None, None, every=5)
    taken = {}
    for t in range(20):
        out = game.step(np.array([2, 1]))
        taken.update({(i, t + 1): s for i, s in out.snapshots.items()})
    assert sorted({t for _, t in taken}) == [5, 10, 15, 20]
    where = {i: tuple(out.features[i]) for i in range(2)}
    obs, features = game.reset_from([0, 0], [taken[(0, 20)], None], [20, 0])
    assert tuple(features[0]) == where[0]
    assert tuple(features[1]) == tuple(float(v) for v in game.layout.start)  # the other from the start
    horizon = game.game_spec.max_steps
    for _ in range(horizon - 21):
        out = game.step(np.array([0, 0]))
    assert not out.truncated[0]
    out = game.step(np.array([0, 0]))
    assert out.truncated[0] and not out.truncated[1]  # the horizon counts from the reset


def test_the_ground_truth_finds_a_crash_whose_recorded_move_is_not_the_one_played() -> None:
    game = BlockMazeVector(1, sticky=0.25)
    layout = game.layout
    r, c = next(cell for cell, event in zip(layout.bug_cells, layout.bug_events) if event == CRASH)
    came_from = next((r - dr, c - dc) for dr, dc in MOVES if not layout.blocks[r - dr, c - dc])
    played = MOVES.index((r - came_from[0], c - came_from[1]))
    recorded = (played + 1) % 4  # sticky: the game played its last move again
    bug = SimpleNamespace(kind="crash", state=came_from, next_state=came_from, actions=(recorded,))
    truth = game.match(bug)
    assert truth is not None and game.injected_bugs[truth].location == (float(r), float(c))
    assert BlockMazeVector(1).match(bug) is None  # a deterministic maze's moves are the ones recorded
