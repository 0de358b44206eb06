"""A tiny game that is not the park but says what its frames would show: a scene.

:class:`GardenVector` is a walk on a 12 x 12 garden (4 moves, 40 steps, a move lost with
probability 0.2, seeded) with three statues and a bench as objects of interest, a gravel path
along ``y = 5`` as the preferred area, and a camera. Each step names the objects within 2
cells in ``info["visible"]``, as the park's labels buffer does; statue 1 carries an injected
bug, located at it. Nothing here comes from the park: what the oracles and reports do with it
comes from the game contract's scene alone (:mod:`games.core.scene`).

Register it for a test as ``register("garden", "tests.games.scene_envs:Garden",
"tests.games.scene_envs:GardenVector")``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from games.core.base import GameSpec, InjectedBug, VecStep
from games.core.scalar_env import VectorEnv
from games.core.scene import Camera, ObjectType, Scene, SceneObject

SIZE = 12
MOVES = np.array([[0.0, 1.0], [0.0, -1.0], [1.0, 0.0], [-1.0, 0.0]])
STEPS = 40
TYPES = (ObjectType("statue", height=2.0, width=0.5), ObjectType("bench", height=0.5, width=1.0))
OBJECTS = (SceneObject(0, "statue", 3.5, 3.5), SceneObject(1, "statue", 8.5, 5.5),
           SceneObject(2, "bench", 5.5, 8.5))
PATH = np.zeros((SIZE, SIZE), dtype=bool)
PATH[:, 5] = True
SCENE = Scene(TYPES, OBJECTS, Camera(hfov_degrees=60.0, frame_size=(64, 48)), PATH, match_radius=1.5)
SPEC = GameSpec(obs_shape=(2,), n_actions=4, feature_names=("x", "y"), feature_low=(0.0, 0.0),
                feature_high=(float(SIZE), float(SIZE)), feature_bins=(SIZE, SIZE), max_steps=STEPS)


class GardenVector:
    """``num_envs`` walkers in the garden (see the module)."""

    game_spec = SPEC
    scene = SCENE
    injected_bugs = [InjectedBug(7, "visual", (8.5, 5.5), "statue 1 with a smudged face")]

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs
        self.pos = np.full((num_envs, 2), 0.5)
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.rng = [np.random.default_rng(0)] * num_envs

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        self.pos[:] = 0.5
        self.t[:] = 0
        self.rng = [np.random.default_rng(int(s)) for s in seeds]
        return (self.pos / SIZE).astype(np.float32), self.pos.copy()

    def step(self, actions: np.ndarray) -> VecStep:
        done = self.t >= STEPS
        visible = np.full(self.num_envs, None, dtype=object)
        for i, action in enumerate(np.asarray(actions, dtype=np.int64)):
            if done[i]:
                continue
            if self.rng[i].random() >= 0.2:
                self.pos[i] = np.clip(self.pos[i] + MOVES[action], 0.5, SIZE - 0.5)
            self.t[i] += 1
            visible[i] = tuple(o.id for o in OBJECTS if np.abs(self.pos[i] - (o.x, o.y)).max() <= 2.0)
        return VecStep(obs=(self.pos / SIZE).astype(np.float32), reward=np.where(done, 0.0, -0.01),
                       terminated=np.zeros(self.num_envs, dtype=bool), truncated=self.t >= STEPS,
                       features=self.pos.copy(), info={"visible": visible})

    def match(self, bug: Any) -> int | None:
        """No oracle of these tests reports the smudge: nothing matches."""
        return None

    def close(self) -> None:
        """Nothing to release."""


class Garden(VectorEnv):
    """The garden as a Gymnasium env (one walker)."""

    def __init__(self) -> None:
        super().__init__(GardenVector(1))
