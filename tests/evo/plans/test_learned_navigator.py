"""Plans as RL tasks: a reach policy trained by the engine's fine-tuning navigates plans."""

from __future__ import annotations

import numpy as np

from evo.plans import run_plan
from evo.plans.learned_navigator import ReachTask, done_at, reach_plans, train_navigator, visited_places
from games import GameFactory

SMALL = GameFactory(name="block_maze", kwargs=(("block_density", 0.2), ("inject_bugs", False), ("max_steps", 60),
                                                ("maze_seed", 1), ("n_bugs", 0), ("size", 10)))


def test_the_reach_task_rewards_arriving_and_draws_the_next_target_nearby() -> None:
    places = visited_places(SMALL, 8, seed=0)
    task = ReachTask(SMALL.make_vector(4), places, radius=3, seed=0)
    obs, features = task.reset([0, 1, 2, 3])
    assert obs.shape == (4, 6) and np.abs(obs).max() <= 3
    here = np.rint(features[:, :2])
    assert (np.abs(task.targets - here).sum(axis=1) <= 3).all()
    # walk copy 0 to its target with the maze's own BFS: the last step earns the arrival
    route = task.game.route(features[0], tuple(task.targets[0]))
    for a in route.actions:
        step = task.step(np.array([a, 0, 0, 0]))
    assert step.reward[0] > 0.9 and task.reached[0] == 1
    assert not np.array_equal(task.targets[0], np.rint(step.features[0, :2]))  # a new target


def test_a_trained_policy_completes_plans_the_untrained_one_does_not() -> None:
    plans = reach_plans(SMALL, 20, radius=5, seed=1, max_steps=60)
    scripted = [run_plan(p, SMALL) for p in plans]
    untrained, _ = train_navigator(SMALL, updates=0, episodes=16, radius=5, hidden=(32, 32))
    trained, curve = train_navigator(SMALL, updates=40, episodes=16, radius=5, hidden=(32, 32))
    assert np.mean(curve[-5:]) > 2 * curve[0]  # it learned to reach more targets per episode
    before = sum(run_plan(p, SMALL, navigator=untrained).passed for p in plans)
    after = [run_plan(p, SMALL, navigator=trained) for p in plans]
    assert sum(r.passed for r in after) >= max(before + 5, sum(r.passed for r in scripted) // 3)
    assert all(done_at(r.lines) is not None for r in after if r.passed)


def test_two_trainings_with_one_seed_are_equal() -> None:
    a, _ = train_navigator(SMALL, updates=2, episodes=4, radius=5, hidden=(8,), seed=3)
    b, _ = train_navigator(SMALL, updates=2, episodes=4, radius=5, hidden=(8,), seed=3)
    assert np.array_equal(a.genome, b.genome)
