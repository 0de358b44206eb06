"""The block maze: Gymnasium conformance, seeded layouts, reachable bugs that show, and the
numpy batch form agreeing with the scalar game step by step (ground truth:
test_block_maze_truth.py)."""

from __future__ import annotations

import time

from collections import Counter, deque
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from games import GameFactory, VectorGame
from games.core.base import GameError
from games.maze.block_maze import (
    CRASH,
    LOGIC_ASSERT,
    LOGIC_IN_BLOCK,
    LOGIC_SCORE,
    MOVES,
    PERFORMANCE,
    STUCK,
    BlockMaze,
    BlockMazeVector,
)

Cell = tuple[int, int]


def bfs_actions(env: BlockMaze, target: Cell, avoid: set[Cell]) -> list[int] | None:
    """Shortest action sequence from the start into ``target`` that never enters ``avoid``."""
    blocks = env.layout.blocks
    start = env.layout.start
    prev: dict[Cell, tuple[Cell, int]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == target:
            actions: list[int] = []
            while cell != start:
                cell, a = prev[cell]
                actions.append(a)
            return actions[::-1]
        for a, (dr, dc) in enumerate(MOVES):
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt in seen or blocks[nxt] or (nxt in avoid and nxt != target):
                continue
            seen.add(nxt)
            prev[nxt] = (cell, a)
            queue.append(nxt)
    return None


def path_to_bug(env: BlockMaze, bug_id: int) -> list[int]:
    """BFS actions into one bug cell, avoiding the goal and all other bug cells."""
    cells = {tuple(int(v) for v in b.location) for b in env.injected_bugs}
    target = tuple(int(v) for v in env.injected_bugs[bug_id].location)
    actions = bfs_actions(env, target, cells | {env.layout.goal})  # type: ignore[arg-type]
    assert actions is not None
    return actions


def bug_with_event(env: BlockMaze, event: int) -> int:
    return env.layout.bug_events.index(event)


def walk(env: BlockMaze, actions: list[int]) -> list[tuple[Any, ...]]:
    """Reset, then play ``actions``; the results of every step."""
    env.reset(seed=0)
    return [env.step(a) for a in actions]


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped")
@pytest.mark.parametrize(("preset", "maze_seed"), [("small", 0), ("small", 7), ("large", 0)])
def test_check_env_passes(preset: str, maze_seed: int) -> None:
    check_env(BlockMaze(preset, maze_seed=maze_seed), skip_render_check=True)


def test_spec_and_spaces_follow_the_preset() -> None:
    small, large = BlockMaze("small"), BlockMaze("large")
    assert small.game_spec.obs_shape == (29,) and small.game_spec.n_actions == 4
    assert small.game_spec.feature_names == ("row", "col")
    assert small.game_spec.feature_high == (19, 19) and small.game_spec.feature_bins == (20, 20)
    assert (small.game_spec.max_steps, len(small.injected_bugs)) == (40, 25)
    assert large.game_spec.feature_bins == (64, 64)
    assert (large.game_spec.max_steps, len(large.injected_bugs)) == (400, 50)
    assert small.layout.blocks[0].all() and small.layout.blocks[:, -1].all()
    custom = BlockMaze("small", size=12, max_steps=30, n_bugs=8, block_density=0.1)
    assert custom.game_spec.feature_bins == (12, 12) and len(custom.injected_bugs) == 8


def test_unknown_preset_is_rejected_by_name() -> None:
    with pytest.raises(ValueError, match="'huge'"):
        BlockMaze("huge")


def test_observation_shows_positions_and_blocks() -> None:
    env = BlockMaze()
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (29,)
    start, goal = env.layout.start, env.layout.goal
    np.testing.assert_allclose(obs[:4], np.array([*start, *goal]) / 19, rtol=1e-6)
    outside_is_block = np.pad(env.layout.blocks, 2, constant_values=True)
    window = outside_is_block[start[0] : start[0] + 5, start[1] : start[1] + 5]
    np.testing.assert_array_equal(obs[4:].reshape(5, 5), window.astype(np.float32))
    np.testing.assert_array_equal(env.state_features(obs, {}), np.array(start, dtype=np.float64))


def test_same_maze_seed_same_maze_other_seed_other_maze() -> None:
    a, b, c = BlockMaze(maze_seed=3), BlockMaze(maze_seed=3), BlockMaze(maze_seed=4)
    np.testing.assert_array_equal(a.layout.blocks, b.layout.blocks)
    assert (a.layout.start, a.layout.goal) == (b.layout.start, b.layout.goal)
    assert a.injected_bugs == b.injected_bugs
    assert not np.array_equal(a.layout.blocks, c.layout.blocks)
    assert [x.location for x in a.injected_bugs] != [x.location for x in c.injected_bugs]


def test_bug_kinds_split_evenly_on_distinct_free_cells() -> None:
    env = BlockMaze()
    assert Counter(b.kind for b in env.injected_bugs) == {
        "crash": 6, "stuck": 6, "logic": 7, "performance": 6
    }
    cells = [tuple(int(v) for v in b.location) for b in env.injected_bugs]
    assert len(set(cells)) == 25
    assert env.layout.start not in cells and env.layout.goal not in cells
    assert not any(env.layout.blocks[c] for c in cells)
    assert [b.id for b in env.injected_bugs] == list(range(25))
    assert Counter(b.kind for b in BlockMaze("large").injected_bugs) == {
        "crash": 13, "stuck": 12, "logic": 13, "performance": 12
    }


@pytest.mark.parametrize(
    ("preset", "maze_seed"), [("small", 0), ("small", 1), ("small", 2), ("large", 0)]
)
def test_every_bug_and_the_goal_are_reachable_in_time(preset: str, maze_seed: int) -> None:
    env = BlockMaze(preset, maze_seed=maze_seed)
    horizon = env.game_spec.max_steps
    for bug in env.injected_bugs:
        assert len(path_to_bug(env, bug.id)) <= horizon - 10, bug
    bug_cells = {tuple(int(v) for v in b.location) for b in env.injected_bugs}
    to_goal = bfs_actions(env, env.layout.goal, bug_cells)  # type: ignore[arg-type]
    assert to_goal is not None and len(to_goal) <= horizon


def test_goal_gives_ten_and_ends_the_episode() -> None:
    env = BlockMaze()
    bug_cells = {tuple(int(v) for v in b.location) for b in env.injected_bugs}
    actions = bfs_actions(env, env.layout.goal, bug_cells)  # type: ignore[arg-type]
    steps = walk(env, actions)
    obs, reward, terminated, truncated, info = steps[-1]
    assert reward == 10.0 and terminated and not truncated
    assert env.state_features(obs, info).tolist() == list(env.layout.goal)
    assert all(s[1] in (-0.01, -1.0) and not s[2] for s in steps[:-1])


def test_bumping_a_block_costs_one_and_stays() -> None:
    env = BlockMaze()
    obs, _ = env.reset(seed=0)
    r, c = env.layout.start
    walls = [a for a, (dr, dc) in enumerate(MOVES) if env.layout.blocks[r + dr, c + dc]]
    assert walls, "start of maze_seed=0 has a block beside it"
    obs2, reward, _, _, _ = env.step(walls[0])
    assert reward == -1.0
    np.testing.assert_array_equal(obs, obs2)


def test_episode_is_truncated_at_the_horizon() -> None:
    env = BlockMaze(inject_bugs=False)
    env.reset(seed=0)
    results = [env.step(i % 2) for i in range(40)]
    assert [s[3] for s in results] == [False] * 39 + [True]


def test_crash_bug_raises_runtime_error_naming_the_cell() -> None:
    env = BlockMaze()
    bug = bug_with_event(env, CRASH)
    actions = path_to_bug(env, bug)
    r, c = env.layout.bug_cells[bug]
    with pytest.raises(RuntimeError, match=rf"tile handler failed at \({r}, {c}\)"):
        walk(env, actions)


def test_assertion_bug_raises_assertion_error_naming_the_cell() -> None:
    env = BlockMaze()
    bug = bug_with_event(env, LOGIC_ASSERT)
    actions = path_to_bug(env, bug)
    r, c = env.layout.bug_cells[bug]
    with pytest.raises(AssertionError, match=rf"invariant broken: .*\({r}, {c}\)"):
        walk(env, actions)


def test_fatal_bug_messages_tell_bugs_apart() -> None:
    env = BlockMaze()
    messages = []
    for bug, event in enumerate(env.layout.bug_events):
        if event in (CRASH, LOGIC_ASSERT):
            with pytest.raises((RuntimeError, AssertionError)) as exc:
                walk(env, path_to_bug(env, bug))
            messages.append(str(exc.value))
    assert len(messages) == len(set(messages)) == 8


def test_stuck_bug_freezes_the_robot_for_the_rest_of_the_episode() -> None:
    env = BlockMaze()
    bug = bug_with_event(env, STUCK)
    actions = path_to_bug(env, bug)
    steps = walk(env, actions)
    frozen_obs = steps[-1][0]
    assert env.state_features(frozen_obs, {}).tolist() == list(env.layout.bug_cells[bug])
    rest = [env.step(t % 4) for t in range(env.game_spec.max_steps - len(actions))]
    for obs, reward, terminated, _, _ in rest:
        np.testing.assert_array_equal(obs, frozen_obs)
        assert reward == -0.01 and not terminated
    assert [s[3] for s in rest] == [False] * (len(rest) - 1) + [True]


def test_score_jump_bug_reports_a_violation() -> None:
    env = BlockMaze()
    bug = bug_with_event(env, LOGIC_SCORE)
    r, c = env.layout.bug_cells[bug]
    _, reward, _, _, info = walk(env, path_to_bug(env, bug))[-1]
    assert reward == 1000.0
    assert info["violations"] == [f"score jumped by 1000 entering ({r}, {c})"]


def test_inside_block_bug_puts_the_robot_into_a_block() -> None:
    env = BlockMaze()
    bug = bug_with_event(env, LOGIC_IN_BLOCK)
    r, c = env.layout.bug_cells[bug]
    obs, _, _, _, info = walk(env, path_to_bug(env, bug))[-1]
    r2, c2 = (int(v) for v in env.state_features(obs, info))
    assert env.layout.blocks[r2, c2] and abs(r2 - r) + abs(c2 - c) == 1
    assert obs[4 + 12] == 1.0  # the centre of the window: the robot's own cell is a block
    assert info["violations"] == [f"agent inside block at ({r2}, {c2}) after entering ({r}, {c})"]


def test_performance_bug_takes_real_time() -> None:
    env = BlockMaze(heavy_ms=5.0)
    bug = bug_with_event(env, PERFORMANCE)
    env.reset(seed=0)
    times, infos = [], []
    for a in path_to_bug(env, bug):
        start = time.perf_counter()
        infos.append(env.step(a)[4])
        times.append((time.perf_counter() - start) * 1000.0)
    assert times[-1] > 5.0 * 0.8
    assert np.median(times[:-1]) < 5.0 * 0.2
    assert all(info["violations"] == [] for info in infos)


def test_without_bugs_nothing_fires_on_the_same_maze() -> None:
    buggy, clean = BlockMaze(), BlockMaze(inject_bugs=False)
    assert clean.injected_bugs == []
    np.testing.assert_array_equal(buggy.layout.blocks, clean.layout.blocks)
    for bug in buggy.injected_bugs:
        for obs, reward, _, _, info in walk(clean, path_to_bug(buggy, bug.id)):
            assert reward in (-0.01, -1.0) and info["violations"] == []
    rng = np.random.default_rng(0)
    for _ in range(50):
        clean.reset(seed=0)
        for a in rng.integers(0, 4, size=40):
            _, reward, terminated, _, info = clean.step(int(a))
            assert info["violations"] == [] and reward <= 10.0
            if terminated:
                break


def scripted_actions(env: BlockMaze, n_envs: int, rng: np.random.Generator) -> np.ndarray:
    """``[max_steps, n_envs]`` actions: the first copies walk into each bug, then wander."""
    horizon = env.game_spec.max_steps
    plan = rng.integers(0, 4, size=(horizon, n_envs))
    for bug in env.injected_bugs:
        path = path_to_bug(env, bug.id)
        plan[: len(path), bug.id] = path
    return plan


@pytest.mark.parametrize(("preset", "n_envs"), [("small", 64), ("large", 60)])
def test_vector_and_scalar_forms_agree_step_by_step(preset: str, n_envs: int) -> None:
    rng = np.random.default_rng(1)
    kwargs = {"preset": preset, "maze_seed": 5, "heavy_ms": 0.2}
    vec = BlockMazeVector(n_envs, **kwargs)
    envs = [BlockMaze(**kwargs) for _ in range(n_envs)]
    assert vec.game_spec == envs[0].game_spec and vec.injected_bugs == envs[0].injected_bugs
    plan = scripted_actions(envs[0], n_envs, rng)

    obs_v, feat_v = vec.reset(list(range(n_envs)))
    assert obs_v.dtype == np.float32 and obs_v.shape == (n_envs, 29)
    done = np.zeros(n_envs, dtype=bool)
    last_obs = obs_v.copy()
    for i, env in enumerate(envs):
        obs, info = env.reset(seed=i)
        np.testing.assert_array_equal(obs_v[i], obs)
        np.testing.assert_array_equal(feat_v[i], env.state_features(obs, info))

    seen = Counter()
    for t in range(plan.shape[0]):
        out = vec.step(plan[t])
        assert out.frame_ms is not None and out.frame_ms.shape == (n_envs,)
        for i, env in enumerate(envs):
            if done[i]:  # no auto-reset: frozen, reward 0, flags kept
                np.testing.assert_array_equal(out.obs[i], last_obs[i])
                assert out.reward[i] == 0.0 and (out.terminated[i] or out.truncated[i])
                assert i not in out.errors and i not in out.violations
                continue
            try:
                obs, reward, terminated, truncated, info = env.step(int(plan[t, i]))
            except (RuntimeError, AssertionError) as exc:
                assert out.errors[i] == GameError.from_exception(exc)
                assert out.terminated[i] and not out.truncated[i]
                np.testing.assert_array_equal(out.obs[i], last_obs[i])
                seen[out.errors[i].type] += 1
                done[i] = True
                continue
            assert i not in out.errors
            np.testing.assert_array_equal(out.obs[i], obs)
            assert out.reward[i] == reward
            assert (out.terminated[i], out.truncated[i]) == (terminated, truncated)
            np.testing.assert_array_equal(out.features[i], env.state_features(obs, info))
            assert out.violations.get(i, []) == info["violations"]
            seen["violation"] += bool(info["violations"])
            done[i] = terminated or truncated
        last_obs = out.obs.copy()
    assert seen["RuntimeError"] >= 1 and seen["AssertionError"] >= 1 and seen["violation"] >= 1


def test_vector_error_points_at_the_same_frame_as_the_scalar_game() -> None:
    env = BlockMaze()
    bug = bug_with_event(env, CRASH)
    actions = path_to_bug(env, bug)
    with pytest.raises(RuntimeError) as exc:
        walk(env, actions)
    scalar = GameError.from_exception(exc.value)
    vec = BlockMazeVector(2)
    vec.reset([0, 1])
    for a in actions:
        out = vec.step(np.array([a, a]))
    assert out.errors[0] == out.errors[1] == scalar
    assert scalar.where.startswith("block_maze.py:_raise_fatal_bug:")


def test_vector_performance_bug_charges_only_its_copy() -> None:
    env = BlockMaze()
    actions = path_to_bug(env, bug_with_event(env, PERFORMANCE))
    vec = BlockMazeVector(8, heavy_ms=5.0)
    vec.reset(list(range(8)))
    bumps = [a for a, (dr, dc) in enumerate(MOVES)
             if env.layout.blocks[env.layout.start[0] + dr, env.layout.start[1] + dc]]
    for a in actions:
        out = vec.step(np.array([a] + [bumps[0]] * 7))
    assert out.frame_ms[0] > 5.0 * 0.8
    assert out.frame_ms[1:].max() < 5.0 * 0.2


def test_vector_form_is_registered_and_satisfies_the_contract() -> None:
    vec = GameFactory(name="block_maze", kwargs=(("maze_seed", 2),)).make_vector(3)
    assert isinstance(vec, BlockMazeVector) and isinstance(vec, VectorGame)
    assert isinstance(GameFactory(name="block_maze").make_env(), BlockMaze)
    obs, feats = vec.reset([0, 1, 2])
    assert obs.shape == (3, 29) and feats.dtype == np.float64
    with pytest.raises(ValueError, match="3 copies"):
        vec.reset([0])
    vec.close()


def test_a_build_with_fixed_bugs_plays_the_same_maze_without_them() -> None:
    from games.maze.block_maze import BlockMaze

    full = BlockMaze(preset="small", maze_seed=0)
    fixed = BlockMaze(preset="small", maze_seed=0, fixed_bugs=[0, 3])
    assert [b.id for b in fixed.injected_bugs] == [b.id for b in full.injected_bugs if b.id not in (0, 3)]
    assert (fixed.layout.blocks == full.layout.blocks).all()
    with pytest.raises(ValueError, match=r"fixed_bugs names no injected bug: \[99\]"):
        BlockMaze(preset="small", maze_seed=0, fixed_bugs=[99])
