"""An exploring agent that stops to test the objects it comes near: PPGTA's (and Inspector's) tester.

PPGTA evaluates its agent as Inspector built it (Section II; ``../shared/papers/``): an
exploration policy walks the level, the object detector watches its frames, and when an object
of interest is close the agent executes the demonstrated test behaviour, the object-test
imitation policy, which circles the object looking at it; then it walks on. This agent is that
composition for any exploring agent (the preference-trained actor, a member of an evolved
population, the imitation policy itself):

- the exploring agent acts on every step, so its memory of the trajectory never has a gap;
- a copy starts a test when the last step's detections (``info.detections``, the ``detect``
  wrapper's) hold a box at least :attr:`TesterSpec.near` pixels tall (the object is close)
  and the copy is not in its cool-down; where the explorer tilted the view (the camera's
  :attr:`TesterSpec.tilt`), the copy first looks back level, as the tests were demonstrated;
  for :attr:`TesterSpec.test_steps` steps its actions are then the test policy's, whose
  memory starts fresh at the test's first frame (:meth:`games.perception.imitation.Playing.step_some`);
- a test ends when the test policy's own state says its circle has closed (the end head
  shipped with the policy, :mod:`games.perception.object_test_end`), or after :attr:`TesterSpec.test_steps`
  steps at most;
- after a test the copy explores for :attr:`TesterSpec.cooldown` steps before it may test
  again, to walk away from the object it just tested.

The defaults, a 100-step test and a 50-step cool-down, were chosen on park levels 101 and 102
(never the evaluation level 100): with 150 and 100, a copy was testing or cooling down for
nearly all of a 2000-step episode (7.7 tests started an episode), so the objects it walked past
meanwhile, often within a cell, went untested; a clean test circle takes about 40 steps.

The test policy reads the 64x64 OD-masked frames: the ``frame64`` info of the ``encode``
wrapper when the game has one (a feature-observing policy's game), else the observation
itself shrunk. Both choices sample from the worker's pre-drawn Gumbel noise, so a copy plays
the same in any batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from evo.search.agents.base import Agent, AgentSpec, check_copies
from games.perception.encoder import downscale
from games.perception.imitation import OBJECT_TEST_WEIGHTS, Playing, load_policy
from games.perception.object_test_end import END_MIN, END_P, END_RUN, load_end

DETECTIONS = "detections"
"""The info key of the ``detect`` wrapper's per-copy detections."""
FRAME64 = "frame64"
"""The info key of the ``encode`` wrapper's 64x64 frames."""


def close_objects(detections: object, min_height: float) -> np.ndarray:
    """``[N]`` bool: which copies' last detections hold a box at least ``min_height`` pixels tall."""
    out = np.zeros(len(detections), dtype=bool)  # type: ignore[arg-type]
    for i, d in enumerate(detections):  # type: ignore[arg-type]
        if d is not None and len(d) and bool((d.boxes[:, 3] >= min_height).any()):
            out[i] = True
    return out


class TesterAgent:
    """Explores with one agent and tests close objects with the object-test imitation policy.

    Args:
        explore: The exploring agent (built for the same copies).
        spec: The tester's settings and the test policy's weights.
        gumbel: ``[N, T, A]`` pre-drawn Gumbel noise of the copies.
    """

    def __init__(self, explore: Agent, spec: "TesterSpec", gumbel: np.ndarray) -> None:
        weights = spec.weights or OBJECT_TEST_WEIGHTS
        model, _ = load_policy(weights)
        if gumbel.shape[2] != model.n_actions:
            raise ValueError(f"the object-test policy has {model.n_actions} actions, the game {gumbel.shape[2]}")
        self.end = load_end(weights) if spec.learned_end else None
        if spec.learned_end and self.end is None:
            raise ValueError(f"the object-test policy {weights} has no test end (add one: evo vision train test-end "
                             f"--weights {weights} --demos DIR; or end tests after test_steps: learned_end false)")
        self.explore, self.spec, self.gumbel = explore, spec, gumbel
        self.test = Playing(model, gumbel.shape[0])
        self.min_height = spec.near
        n = gumbel.shape[0]
        self.left = np.zeros(n, dtype=np.int64)
        self.cool = np.zeros(n, dtype=np.int64)
        self.tests = np.zeros(n, dtype=np.int64)
        """Tests started per copy in the current episodes (what a test of the agent reads)."""
        self.starts: list[list[int]] = [[] for _ in range(n)]
        """Per copy, the steps at which its tests started (their first action is that step's)."""
        self.ends: list[list[int]] = [[] for _ in range(n)]
        """Per copy, the steps after the last action of each test that ended (a test cut by the
        episode's end has none)."""
        self.age = np.zeros(n, dtype=np.int64)
        self.done_run = np.zeros(n, dtype=np.int64)
        if len(spec.tilt) > gumbel.shape[2]:
            raise ValueError(f"the camera's tilt names {len(spec.tilt)} actions, the game has {gumbel.shape[2]}")
        self.deltas = np.zeros(gumbel.shape[2], dtype=np.float64)
        self.deltas[: len(spec.tilt)] = spec.tilt
        moves = np.abs(self.deltas[self.deltas != 0])
        self.level_within = float(moves.min() / 2) if moves.size else np.inf
        self.tilt = np.zeros(n, dtype=np.float64)
        """Per copy, the view's tilt as its own actions made it (level at a reset)."""
        self.leveling = np.zeros(n, dtype=bool)

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, self.gumbel.shape[0], "tester agent")
        self.explore.reset(seeds)
        self.test.reset()
        self.left[:] = 0
        self.cool[:] = 0
        self.tests[:] = 0
        self.starts = [[] for _ in range(len(self.left))]
        self.ends = [[] for _ in range(len(self.left))]
        self.age[:] = 0
        self.done_run[:] = 0
        self.tilt[:] = 0.0
        self.leveling[:] = False

    def _frames(self, obs: np.ndarray, infos: Mapping[str, np.ndarray], copies: np.ndarray) -> np.ndarray:
        if FRAME64 in infos:
            return np.stack([infos[FRAME64][i] for i in copies]).astype(np.uint8)
        if self.spec.frame_shape is None:
            raise ValueError("the tester reads frames: observations that are frames (give frame_shape) or the "
                             f"encode wrapper's {FRAME64} info")
        frames = np.asarray(obs[copies]).reshape(-1, *self.spec.frame_shape).astype(np.uint8)
        return downscale(frames)

    def _level(self) -> np.ndarray:
        """``[N]`` which copies look level: within half a tilt step, or as level as any action can make them."""
        level = np.abs(self.tilt) <= self.level_within
        if not level.all():
            after = np.clip(self.tilt[:, None] + self.deltas[None], *self.spec.tilt_range)
            level |= np.abs(after).min(axis=1) >= np.abs(self.tilt)
        return level

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        actions, acting = self.explore.act(obs, features, infos, t)
        actions, acting = np.array(actions, dtype=np.int64), np.array(acting, dtype=np.float32)
        if DETECTIONS in infos:
            trigger = (self.left == 0) & ~self.leveling & (self.cool == 0) & close_objects(infos[DETECTIONS],
                                                                                             self.min_height)
        else:
            trigger = np.zeros_like(self.left, dtype=bool)
        level = self._level()
        self.leveling |= trigger & ~level
        start = (trigger | self.leveling) & level
        self.leveling &= ~start
        self.left[start] = self.spec.test_steps
        self.age[start] = 0
        self.done_run[start] = 0
        self.tests[start] += 1
        for i in np.flatnonzero(start):
            self.starts[i].append(t)
        self.cool[(self.left == 0) & (self.cool > 0)] -= 1
        looking = np.flatnonzero(self.leveling)
        if looking.size:  # towards level: the action that leaves the least tilt
            after = np.clip(self.tilt[looking, None] + self.deltas[None], *self.spec.tilt_range)
            actions[looking] = np.abs(after).argmin(axis=1)
            acting[looking] = 0.0
            acting[looking, actions[looking]] = 1.0
        copies = np.flatnonzero(self.left > 0)
        if copies.size:
            probs = self.test.step_some(self._frames(obs, infos, copies), copies, start[copies])
            logits = np.log(np.maximum(probs, 1e-30)) / max(self.spec.temperature, 1e-8)
            if self.spec.temperature == 0:
                actions[copies] = probs.argmax(1)
            else:
                actions[copies] = np.argmax(logits + self.gumbel[copies, t], axis=1)
            acting[copies] = probs.astype(np.float32)
            self.left[copies] -= 1
            self.age[copies] += 1
            if self.end is not None:
                assert self.test.states is not None
                done = self.end.probability(self.test.states) > END_P
                self.done_run[copies] = np.where(done, self.done_run[copies] + 1, 0)
                finished = (self.done_run[copies] >= END_RUN) & (self.age[copies] >= END_MIN)
                self.left[copies[finished]] = 0
            ended = copies[self.left[copies] == 0]
            self.cool[ended] = self.spec.cooldown
            for i in ended:
                self.ends[i].append(t + 1)
        if self.deltas.any():
            self.tilt = np.clip(self.tilt + self.deltas[actions], *self.spec.tilt_range)
        return actions, acting


@dataclass(frozen=True)
class TesterSpec:
    """What a worker needs to build a :class:`TesterAgent`.

    Attributes:
        explore: The exploring agent's spec.
        frame_shape: ``(3, H, W)`` of the observations when they are frames; None when the
            game has the ``encode`` wrapper, whose ``frame64`` info the test policy reads.
        weights: The object-test imitation policy (``evo vision train imitation --set object``;
            None: the shipped one, :data:`games.perception.imitation.OBJECT_TEST_WEIGHTS`).
        near: Box height in pixels of the detector's frames from which an object is close
            enough to test: on the park's 160x120 frames, 12 is a barrel 4 cells away, a
            pillar 7, a lamp 10 (the objects oracle's radius is 6 cells).
        test_steps: Steps a test lasts at most (the object-test demonstrations are 200 long;
            their circle closes in about 40).
        cooldown: Steps of exploring after a test before the next may start.
        temperature: Sampling temperature of the test policy (0: greedy).
        tilt: Per action, degrees it tilts the view, positive down, and ``tilt_range`` where the
            tilt stops (the scene camera's :attr:`games.core.scene.Camera.tilt`; empty: no
            action tilts it). The object tests were demonstrated with a level view, and a test
            started under a view the explorer tilted fails (on the park, 92% of the novelty
            agent's did), so a tilted copy first looks back level, by the tilt its own actions
            made, and then starts its test.
        learned_end: End a test when the end head saved with the test policy says done
            (:mod:`games.perception.object_test_end`); False: every test plays ``test_steps``.
    """

    explore: AgentSpec
    frame_shape: tuple[int, int, int] | None
    weights: str | None = None
    near: int = 12
    test_steps: int = 100
    cooldown: int = 50
    temperature: float = 1.0
    tilt: tuple[float, ...] = ()
    tilt_range: tuple[float, float] = (0.0, 0.0)
    learned_end: bool = True

    def __post_init__(self) -> None:
        if self.near < 1 or self.test_steps < 1 or self.cooldown < 0 or self.temperature < 0:
            raise ValueError(f"tester: near must be at least 1 pixel, test_steps at least 1, cooldown and temperature "
                             f"at least 0, got {self.near}, {self.test_steps}, {self.cooldown}, {self.temperature}")
        if any(self.tilt) and not self.tilt_range[0] <= 0.0 <= self.tilt_range[1]:
            raise ValueError(f"tester: the tilt range must hold the level view (up <= 0 <= down), "
                             f"got {self.tilt_range}")

    def build(self, episodes: int, gumbel: np.ndarray) -> TesterAgent:
        return TesterAgent(self.explore.build(episodes, gumbel), self, gumbel)
