"""Any ``gymnasium.Env`` with a ``Discrete`` action space as a :class:`games.core.base.VectorGame`.

:class:`GymVectorGame` steps N copies of a game made by ``make_env`` and turns everything a
game can do wrong into data: an exception in ``step`` becomes ``VecStep.errors[i]`` for that
copy alone, ``info["violations"]`` becomes ``VecStep.violations[i]``, and with
``step_timeout_s`` set each copy runs in its own process, so that a copy that hangs, dies or
holds more memory than ``max_rss_mb`` is reported as ``GameHang``, ``GameProcessDied`` or
``GameOutOfMemory`` while the other copies go on. The broken
copy gets a fresh game on the next ``reset``. A game that misbehaves is a finding, never an
engine crash.

Two modes:

- In-process (``step_timeout_s=None``): a plain loop over the envs, no IPC. Exceptions are
  isolated per copy, but a game that hangs hangs the engine and a game that kills its process
  kills the engine. Use it for games that are trusted not to.
- Isolated (``step_timeout_s`` a number): one ``spawn`` worker process per copy, talking over
  a ``Pipe``. A step is sent to every worker before any reply is read, so the copies run in
  parallel, and every reply is awaited until ``step_timeout_s`` after the send. ``make_env``
  must be picklable (a module-level function or class, a ``functools.partial`` of one, or a
  ``GameFactory.make_env``), and scripts that use this mode need the usual
  ``if __name__ == "__main__":`` guard of ``spawn``.

Why not ``gymnasium.vector.SyncVectorEnv`` / ``AsyncVectorEnv`` (checked against gymnasium
1.4's source): they are built for RL training, where one episode more or less does not matter
and any error should stop the program. Here every episode is a test case.

- Both auto-reset a finished sub-env by default (``AutoresetMode.NEXT_STEP``: the next
  ``step`` call resets it instead of stepping it). ``AutoresetMode.DISABLED`` turns that off,
  but then stepping a finished sub-env fails an ``assert`` and the caller must reset it
  through ``reset(options={"reset_mask": ...})`` before the next batch step, so a copy can
  never simply stay done while the others play on: it would have to start (and play) an
  episode nobody records.
- ``SyncVectorEnv.step`` lets the first sub-env exception propagate out of the whole call:
  the copies before it have stepped, the ones after it have not, and the batch's results are
  lost.
- ``AsyncVectorEnv`` catches a worker's exception, ends that worker, and ``step_wait``
  re-raises it for the whole batch as ``exctype(value)`` (the traceback and the other copies'
  results are lost); the failed sub-env's pipe is set to ``None`` and cannot be restarted
  short of rebuilding the vector env. ``step_wait(timeout=...)`` raises one
  ``multiprocessing.TimeoutError`` for the whole batch without saying which copy hung and
  leaves the hung worker running; a worker that dies surfaces as an ``EOFError`` from
  ``pipe.recv()`` for the whole batch.

What the engine needs instead, per copy: no auto-reset, done copies left unchanged, the fault
recorded on that copy only, and a restart of that copy only. What gymnasium does fit is used:
``spaces.flatten``/``flatdim``/``flatten_space`` for observations and their bounds, and
``env.spec.max_episode_steps`` for the horizon.

What the engine reads about the game (its spec, and state features for games that give
none, or give no bounds for theirs) is derived in :mod:`games.adapter.spec`; one copy and its
conversions live in :mod:`games.adapter.game_copy`; the worker processes of the isolated mode in
:mod:`games.adapter.process_runner`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np

from games.core.base import GameError, GameSpec, GameSpecError, VecStep
from games.adapter.game_copy import game_error
from games.adapter.in_process import InProcessRunner, info_column
from games.adapter.process_runner import ProcessRunner
from games.adapter.spec import DEFAULT_BINS, DEFAULT_MAX_STEPS, HUGE_BOUND

__all__ = ["DEFAULT_BINS", "DEFAULT_MAX_STEPS", "HUGE_BOUND", "GymVectorGame", "game_error"]


class GymVectorGame:
    """N copies of a gymnasium game as a :class:`games.core.base.VectorGame`, faults isolated.

    Args:
        make_env: Makes one fresh copy of the game. Called again for a copy whose game broke.
            Must be picklable when ``step_timeout_s`` is set.
        num_envs: Number of copies.
        step_timeout_s: ``None`` runs the copies in this process (fast, but a hang or a
            dying process takes the engine with it). A number runs each copy in its own
            process and reports a step that takes longer as ``GameHang``; set it well above
            the slowest normal frame, with the machine's load in mind.
        max_rss_mb: Isolated mode only: a copy whose process, with any process it started,
            holds more resident memory than this (MiB) is killed and reported as
            ``GameOutOfMemory``, a leak bounded instead of the machine's memory exhausted.
            None: no bound.
        spec: The spec the engine already holds for this game (its learned cells): every
            copy takes it instead of deriving one. None: derived from the first copy.
        start_timeout_s: Isolated mode only: the seconds each copy has from its process's
            start to make its game (and, without ``spec``, reset it once); a copy slower than
            that is a :class:`games.adapter.process_runner.GameStartError`. None:
            :data:`games.adapter.process_runner.START_TIMEOUT_S`.
        learn_timeout: Isolated mode only: ``step_timeout_s`` is the wait until the game's
            own steps have been timed; then the wait is learned from them
            (:mod:`games.adapter.step_waits`). Either way a step from a place where a copy
            hung before is awaited a short time only.

    Raises:
        GameSpecError: The game's action space is not ``Discrete``, or its spec contradicts
            its spaces (here) or its ``state_features`` (at the first ``reset``).
        ValueError: ``make_env`` cannot be sent to a worker process.
        GameStartError: Isolated mode: a copy's game raised as it was made, its process died,
            or it missed ``start_timeout_s`` (one line naming the game and the copy).

    Beyond the gymnasium API it adds: observations as ``[N, *game_spec.obs_shape]``, flattened
    but for frames (``(channels, height, width)``, uint8), any other dtype as float32;
    the episode truncated at ``game_spec.max_steps`` when the game has not ended it by
    then, so the spec's horizon holds for every game; a reset that fails (raises, hangs,
    dies, or the game cannot be re-created) returns zeros for that copy and its first
    ``step`` reports the error, since ``reset`` has no place for it.
    """

    def __init__(
        self,
        make_env: Callable[[], gym.Env],
        num_envs: int,
        step_timeout_s: float | None = None,
        info_keys: Sequence[str] = (),
        max_rss_mb: float | None = None,
        spec: GameSpec | None = None,
        start_timeout_s: float | None = None,
        learn_timeout: bool = False,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if step_timeout_s is not None and not step_timeout_s > 0:
            raise ValueError(f"step_timeout_s must be positive or None, got {step_timeout_s}")
        if max_rss_mb is not None and not max_rss_mb > 0:
            raise ValueError(f"max_rss_mb must be positive or None, got {max_rss_mb}")
        if start_timeout_s is not None and not start_timeout_s > 0:
            raise ValueError(f"start_timeout_s must be positive or None, got {start_timeout_s}")
        self.num_envs = int(num_envs)
        self.step_timeout_s = step_timeout_s
        self._runner: InProcessRunner | ProcessRunner = (
            InProcessRunner(make_env, self.num_envs, info_keys, spec)
            if step_timeout_s is None
            else ProcessRunner(make_env, self.num_envs, step_timeout_s, info_keys, max_rss_mb, spec,
                               start_timeout_s, learn_timeout)
        )
        self.info_keys = tuple(info_keys)
        self.game_spec: GameSpec = self._runner.spec
        n, f = self.num_envs, self.game_spec.n_features
        self._obs = np.zeros((n, int(np.prod(self.game_spec.obs_shape))), dtype=self.game_spec.obs_dtype)
        self._features = np.zeros((n, f), dtype=np.float64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._steps = np.zeros(n, dtype=np.int64)
        self._reset_errors: dict[int, GameError] = {}
        self._started = False
        self._closed = False

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start a new episode in every copy (``env.reset(seed=seeds[i])``): :meth:`reset_from`
        without snapshots."""
        return self.reset_from(seeds)

    def reset_from(self, seeds: Sequence[int], starts: Sequence[bytes | None] | None = None,
                   offsets: Sequence[int] | None = None, every: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Start a new episode in every copy (``env.reset(seed=seeds[i])``), or go on from a
        snapshot of a game of this kind where ``starts[i]`` is one (``offsets[i]`` steps after
        its reset: the horizon still counts from there). With ``every``, each copy sends a
        snapshot after every ``every`` steps (:attr:`VecStep.snapshots`, :mod:`games.core.snapshots`).

        Copies whose game broke get a fresh game first (a new worker process in isolated
        mode). A game whose own ``game_spec`` contradicts its ``state_features`` raises
        :class:`games.core.base.GameSpecError` here, at its first reset: a mistake in its
        declaration is one line for the user, not a crash report per episode.

        Returns:
            ``(obs [N, obs_dim] float32, features [N, F] float64)``.
        """
        self._check_open()
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset needs {self.num_envs} seeds, got {len(seeds)}")
        self._reset_errors.clear()
        for i, reply in enumerate(self._runner.reset(list(seeds), starts, every)):
            if isinstance(reply, GameError) and reply.type == "GameSpecError":
                raise GameSpecError(reply.message)  # the game's declaration, not a bug it shows
            if isinstance(reply, GameError):
                self._reset_errors[i] = reply
                self._obs[i], self._features[i] = 0.0, 0.0
            else:
                self._obs[i], self._features[i] = reply
        self._terminated[:] = False
        self._truncated[:] = False
        self._steps[:] = 0 if offsets is None else np.asarray(offsets, dtype=np.int64)
        self._started = True
        return self._shaped(), self._features.copy()

    def _shaped(self) -> np.ndarray:
        """A copy of the observations as ``[N, *obs_shape]``: frames as frames, for the
        wrappers that read them; flat where the spec is."""
        return self._obs.reshape(self.num_envs, *self.game_spec.obs_shape).copy()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy that is still playing; done copies stay as they are.

        ``frame_ms[i]`` is the game's ``info["frame_ms"]`` when it gives one, else the time
        of ``env.step`` alone (measured where the game runs, IPC excluded; a step the
        scheduler preempted is timed by its CPU time, :class:`games.core.frame_cost.StepTimer`),
        and 0 for copies that did not step.

        Raises:
            ValueError: ``actions`` has the wrong length or an action out of range (an
                engine bug, not a game's).
            RuntimeError: ``step`` before ``reset``, or after ``close``.
        """
        self._check_open()
        if not self._started:
            raise RuntimeError("GymVectorGame.step called before reset")
        acts = np.asarray(actions).reshape(-1)
        if acts.shape[0] != self.num_envs:
            raise ValueError(f"step needs {self.num_envs} actions, got {acts.shape[0]}")
        n = self.num_envs
        reward = np.zeros(n, dtype=np.float64)
        frame_ms = np.zeros(n, dtype=np.float64)
        errors: dict[int, GameError] = {}
        violations: dict[int, list[str]] = {}
        info: dict[str, list[Any]] = {key: [None] * n for key in self.info_keys}
        snapshots: dict[int, bytes] = {}

        for i, error in self._reset_errors.items():
            errors[i] = error
            self._terminated[i] = True
        self._reset_errors.clear()
        live = np.flatnonzero(~(self._terminated | self._truncated))
        live_actions = [int(a) for a in acts[live]]
        bad = [a for a in live_actions if not 0 <= a < self.game_spec.n_actions]
        if bad:
            raise ValueError(f"actions must be in [0, {self.game_spec.n_actions}), got {bad[0]}")

        for i, reply in zip(live.tolist(), self._runner.step(live.tolist(), live_actions)):
            if isinstance(reply, GameError):
                errors[i] = reply
                self._terminated[i] = True
                continue
            self._obs[i] = reply.obs
            self._features[i] = reply.features
            reward[i] = reply.reward
            frame_ms[i] = reply.frame_ms
            self._terminated[i] = reply.terminated
            self._steps[i] += 1
            self._truncated[i] = reply.truncated or (
                not reply.terminated and self._steps[i] >= self.game_spec.max_steps
            )
            if reply.violations:
                violations[i] = reply.violations
            if reply.snapshot is not None:
                snapshots[i] = reply.snapshot
            for key, value in reply.info.items():
                info[key][i] = value
        return VecStep(
            obs=self._shaped(),
            reward=reward,
            terminated=self._terminated.copy(),
            truncated=self._truncated.copy(),
            features=self._features.copy(),
            frame_ms=frame_ms,
            errors=errors,
            violations=violations,
            info={key: info_column(values) for key, values in info.items()},
            snapshots=snapshots,
        )

    def plan(self, actions: np.ndarray, counts: np.ndarray) -> None:
        """The next ``counts[i]`` actions of copy i, ``actions[:counts[i], i]`` of ``[K, N]``,
        known before they are played (an agent that does not look at what it sees): an
        isolated copy is sent them in one message and plays them without waiting for the
        engine between steps (:meth:`games.adapter.process_runner.ProcessRunner.plan`); the
        following :meth:`step` calls must ask for exactly them. Copies that are done, or whose
        reset failed, are not sent any; in-process copies need none."""
        self._check_open()
        if not isinstance(self._runner, ProcessRunner):
            return
        live = ~(self._terminated | self._truncated)
        copies = [i for i in range(self.num_envs) if live[i] and counts[i] > 0 and i not in self._reset_errors]
        self._runner.plan(copies, [actions[: int(counts[i]), i] for i in copies])

    def render_frames(self) -> np.ndarray | None:
        """Every copy's ``env.render()``, ``[N, H, W, 3]`` uint8 (:class:`games.core.base.ShowsFrames`);
        where the envs were not made with ``render_mode="rgb_array"`` (or one failed to draw),
        the frames they observe, for a game that observes frames; else None."""
        self._check_open()
        frames = self._runner.render()
        if any(f is None or isinstance(f, GameError) for f in frames):
            return self._observed_frames()
        return np.stack(frames)

    def _observed_frames(self) -> np.ndarray | None:
        """The copies' last observations as ``[N, H, W, 3]`` uint8 where they are frames
        (``(3, H, W)`` or grey ``(1, H, W)`` uint8); None for any other observation."""
        shape = tuple(self.game_spec.obs_shape)
        if self.game_spec.obs_dtype != "uint8" or len(shape) != 3 or shape[0] not in (1, 3):
            return None
        frames = self._obs.reshape(self.num_envs, *shape).transpose(0, 2, 3, 1)
        return np.ascontiguousarray(np.repeat(frames, 3, axis=3) if shape[0] == 1 else frames)

    def close(self) -> None:
        """Close every env and end every worker process (reaped: no zombies). Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._runner.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("GymVectorGame is closed")

    def __enter__(self) -> "GymVectorGame":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
