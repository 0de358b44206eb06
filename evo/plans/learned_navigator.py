"""Plans as RL tasks: a navigation policy trained by the engine's RL, used as a navigator.

The explicit-plan article lets a plan's nodes be reached by a learned policy where no path
finding exists. :class:`ReachTask` turns any vector game whose first two state features are a
place into the task "reach the current target place": a target drawn near the player (from
places random play visited, so no map is needed), +1 on arrival and a new target, a small
reward for getting closer. The engine's own fine-tuning (:func:`evo.search.finetune.loop.finetune`,
A2C or PPO) trains one policy on it, and :class:`LearnedNavigator` answers a plan agent's
``route`` with that policy's greedy move. The policy sees the state features and the target
only, as a navigator is asked (no frame): it learns the level it was trained on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np
import torch

from evo.search.agents.uniform import UniformAgent
from evo.search.finetune.base import ALGORITHMS
from evo.search.finetune.loop import finetune
from evo.plans.base import Node, Plan
from evo.search.policy import PolicySpec, forward
from evo.search.play import play
from games.core.base import GameSpec, VecStep
from games.core.navigation import Route
from games.registry import GameFactory

GOAL_DIM = 6
"""What the policy sees: its place, the target and the difference, each scaled to [-1, 1]."""
ARRIVE_REWARD, STEP_COST, CLOSER = 1.0, 0.01, 0.1


def visited_places(factory: GameFactory, episodes: int, seed: int) -> np.ndarray:
    """``[K, 2]`` distinct places (first two state features) uniform random play reaches."""
    game = factory.make_vector(episodes)
    try:
        spec = game.game_spec
        gumbel = np.random.default_rng(seed).gumbel(size=(episodes, spec.max_steps, spec.n_actions)).astype(np.float32)
        batch = play(game, list(range(episodes)), list(range(episodes)), UniformAgent(gumbel)).rollouts
    finally:
        game.close()
    places = np.rint(batch.features[batch.state_mask()][:, :2]).astype(np.int64)  # padding left out
    return np.unique(places, axis=0)


def goal_observation(features: np.ndarray, targets: np.ndarray, low: np.ndarray, span: np.ndarray) -> np.ndarray:
    """``[N, 6]`` float32: place, target and target - place, scaled by the features' range."""
    here = (np.asarray(features, dtype=np.float64)[:, :2] - low) / span * 2 - 1
    there = (np.asarray(targets, dtype=np.float64) - low) / span * 2 - 1
    return np.concatenate([here, there, there - here], axis=1).astype(np.float32)


class ReachTask:
    """A vector game as the RL task of reaching target places (the plan's nodes).

    Args:
        game: The vector game.
        places: ``[K, 2]`` places targets are drawn from.
        radius: Targets lie at most this far (Manhattan, in the features' units).
        seed: Seed of the target draws.
    """

    def __init__(self, game: Any, places: np.ndarray, radius: int, seed: int) -> None:
        self.game, self.places, self.radius = game, np.asarray(places, dtype=np.int64), int(radius)
        self.num_envs = game.num_envs
        spec: GameSpec = game.game_spec
        self.low = np.array(spec.feature_low[:2], dtype=np.float64)
        self.span = np.maximum(np.array(spec.feature_high[:2], dtype=np.float64) - self.low, 1.0)
        self.game_spec = replace(spec, obs_shape=(GOAL_DIM,), obs_dtype="float32")
        self.rng = np.random.default_rng(seed)
        self.targets = np.zeros((self.num_envs, 2), dtype=np.int64)
        self.reached = np.zeros(self.num_envs, dtype=np.int64)

    def _draw(self, rows: np.ndarray, features: np.ndarray) -> None:
        for i in rows.tolist():
            here = np.rint(features[i, :2]).astype(np.int64)
            dist = np.abs(self.places - here).sum(axis=1)
            near = np.flatnonzero((dist > 0) & (dist <= self.radius))
            pool = near if near.size else np.flatnonzero(dist > 0)
            self.targets[i] = self.places[pool[self.rng.integers(pool.size)]]

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        _, features = self.game.reset(seeds)
        self._draw(np.arange(self.num_envs), features)
        self.reached[:] = 0
        self._features = np.asarray(features, dtype=np.float64)
        return goal_observation(features, self.targets, self.low, self.span), features

    def step(self, actions: np.ndarray) -> VecStep:
        before = np.abs(np.rint(self._features[:, :2]) - self.targets).sum(axis=1)
        out = self.game.step(actions)
        features = np.asarray(out.features, dtype=np.float64)
        after = np.abs(np.rint(features[:, :2]) - self.targets).sum(axis=1)
        arrived = after == 0
        reward = ARRIVE_REWARD * arrived + CLOSER * (before - after) - STEP_COST
        self.reached += arrived
        self._draw(np.flatnonzero(arrived), features)
        self._features = features
        obs = goal_observation(features, self.targets, self.low, self.span)
        return replace(out, obs=obs, reward=reward, frame_ms=None)

    def close(self) -> None:
        self.game.close()


@dataclass
class LearnedNavigator:
    """A trained reach policy as a plan's navigator (places only: the policy knows no actors).

    ``route`` answers with the policy's greedy next move (a one-move route) or ``()`` on
    arrival; ``nearest`` estimates a distance by the Manhattan metric.
    """

    spec: PolicySpec
    genome: np.ndarray
    action_names: tuple[str, ...]
    low: np.ndarray
    span: np.ndarray
    temperature: float = 1.0
    """0: the most likely move; above: moves sampled as trained (a greedy policy can loop
    between two cells where the sampled one gets through)."""
    seed: int = 0
    """Seed of the sampled moves."""
    actor_names: tuple[str, ...] = ()
    actor_types: tuple[str, ...] = ()
    removal_events: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    @property
    def categories(self) -> dict[str, tuple[str, ...]]:
        return {}

    def move(self, features: np.ndarray, target: tuple[int, int]) -> int:
        """The policy's move from ``features`` towards ``target`` (see ``temperature``)."""
        obs = goal_observation(np.asarray(features, dtype=np.float64)[None], np.asarray([target]), self.low, self.span)
        params = self.spec.unflatten(torch.from_numpy(self.genome[None]))
        with torch.no_grad():
            logits, _ = forward(params, torch.from_numpy(obs)[None])
        logits = logits[0, 0].double().numpy()
        if self.temperature <= 0:
            return int(logits.argmax())
        return int((logits / self.temperature + self.rng.gumbel(size=logits.shape)).argmax())

    def route(self, features: np.ndarray, target: Any, *, action: str | None = None,
              tolerance: int | None = None, gone: frozenset[str] = frozenset()) -> Route | None:
        if isinstance(target, str):
            return None
        here = np.rint(np.asarray(features, dtype=np.float64)[:2])
        if np.abs(here - np.asarray(target, dtype=np.float64)).sum() <= (tolerance or 0):
            return Route((), None)
        return Route((self.move(features, (int(target[0]), int(target[1]))),), None)

    def nearest(self, features: np.ndarray, targets: Sequence[Any], within: int,
                gone: frozenset[str] = frozenset()) -> Route | None:
        here = np.rint(np.asarray(features, dtype=np.float64)[:2])
        places = [t for t in targets if not isinstance(t, str) and np.abs(here - np.asarray(t)).sum() <= within]
        return self.route(features, min(places, key=lambda t: np.abs(here - np.asarray(t)).sum())) if places else None

    def straight(self, features: np.ndarray, location: tuple[int, int]) -> int:
        return self.move(features, location)


def train_navigator(factory: GameFactory, *, updates: int = 100, episodes: int = 32, radius: int = 8,
                    hidden: tuple[int, ...] = (64, 64), algorithm: str = "ppo", seed: int = 0,
                    ) -> tuple[LearnedNavigator, list[float]]:
    """Train a reach policy on ``factory``'s game with the engine's fine-tuning.

    Returns:
        The navigator and, per update, the mean number of targets reached per episode.
    """
    places = visited_places(factory, episodes, seed)
    task = ReachTask(factory.make_vector(episodes), places, radius, seed)
    spec = PolicySpec(GOAL_DIM, task.game_spec.n_actions, tuple(hidden))
    genomes = spec.init_genomes(1, np.random.default_rng(seed))
    config = ALGORITHMS[algorithm].config(updates=1, episodes=episodes)
    curve: list[float] = []

    def rewards(batch: Any, horizon: int) -> np.ndarray:
        return np.asarray(batch.rewards, dtype=np.float64)

    try:
        for k in range(updates):
            genomes, _ = finetune(genomes, spec, task, algorithm, config, rewards, [seed * 100_003 + k], [0])
            curve.append(float(task.reached.mean()))
    finally:
        task.close()
    names = tuple(getattr(task.game, "action_names", tuple(str(a) for a in range(spec.n_actions))))
    return LearnedNavigator(spec, genomes[0], names, task.low, task.span), curve


def reach_plans(factory: GameFactory, n: int, *, waypoints: int = 3, radius: int = 8, seed: int = 0,
                max_steps: int | None = None) -> list[Plan]:
    """A suite of ``n`` plans that walk from the start through ``waypoints`` places, each
    within ``radius`` of the last, drawn (seeded) from places random play reaches: what a
    navigator is compared on."""
    places = visited_places(factory, 32, seed)
    game = factory.make_vector(1)
    try:
        _, features = game.reset([0])
    finally:
        game.close()
    start = np.rint(np.asarray(features[0], dtype=np.float64)[:2]).astype(np.int64)
    rng = np.random.default_rng(seed)
    plans = []
    for k in range(n):
        here, nodes = start, []
        for _ in range(waypoints):
            dist = np.abs(places - here).sum(axis=1)
            pool = np.flatnonzero((dist > 0) & (dist <= radius))
            here = places[pool[rng.integers(pool.size)]] if pool.size else here
            nodes.append(Node(location=(int(here[0]), int(here[1]))))
        plans.append(Plan(name=f"reach {k}", nodes=nodes, max_steps=max_steps))
    return plans


def done_at(lines: Sequence[tuple[int, str]]) -> int | None:
    """The step at which a plan's log says all nodes were done, or None."""
    return next((step for step, text in lines if text == "all nodes done"), None)
