"""Any ``gymnasium.Env`` with a ``Discrete`` action space as a :class:`games.base.VectorGame`.

:class:`GymVectorGame` steps N copies of a game made by ``make_env`` and turns everything a
game can do wrong into data: an exception in ``step`` becomes ``VecStep.errors[i]`` for that
copy alone, ``info["violations"]`` becomes ``VecStep.violations[i]``, and with
``step_timeout_s`` set each copy runs in its own process, so that a copy that hangs or dies
is reported as ``GameHang`` or ``GameProcessDied`` while the other copies go on. The broken
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

A game should declare its own ``game_spec`` (see :class:`games.base.GameSpec`). Without one
the spec is derived from the spaces: the features are the flattened observation (``obs0`` ..
``obsK``), bounded by the observation space where that bound is finite and below
:data:`HUGE_BOUND` in size, and by :data:`DEFAULT_BOUND` otherwise (CartPole's velocities
are bounded only by float32's max); 10 bins per feature; the horizon from
``env.spec.max_episode_steps``, else :data:`DEFAULT_MAX_STEPS`.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import pickle
import signal
import time
import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, NamedTuple, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.base import GameError, GameSpec, VecStep

DEFAULT_BOUND = 10.0
"""Feature bound used where the observation space gives none (infinite or huge)."""
HUGE_BOUND = 1e6
"""Observation-space bounds larger than this in size are treated as no bound."""
DEFAULT_BINS = 10
"""Buckets per derived feature."""
DEFAULT_MAX_STEPS = 1000
"""Horizon of a game that declares none (no ``game_spec``, no ``max_episode_steps``)."""

START_TIMEOUT_S = 60.0
"""How long a worker may take to start: spawn a Python, import the game, run ``make_env``.
Generous because imports are slow on a loaded machine and a false alarm here costs an
episode."""
RESET_TIMEOUT_FLOOR_S = 30.0
"""A reset is awaited ``max(step_timeout_s, this)``: resets load levels and may legitimately
take far longer than a frame."""
CLOSE_GRACE_S = 1.0
"""How long ``close`` waits for a worker to exit on its own before killing it."""


# --------------------------------------------------------------------------- one copy


@dataclass(frozen=True)
class _EnvFacts:
    """What a spec is derived from, as plain data, so that derivation is a pure function."""

    label: str
    game_spec: Any
    observation_space: spaces.Space
    action_space: spaces.Space
    max_episode_steps: int | None

    @classmethod
    def of(cls, env: gym.Env) -> "_EnvFacts":
        spec = getattr(env, "spec", None)
        label = spec.id if spec is not None else type(env.unwrapped).__name__
        return cls(
            label=label,
            game_spec=getattr(env.unwrapped, "game_spec", None),
            observation_space=env.observation_space,
            action_space=env.action_space,
            max_episode_steps=getattr(spec, "max_episode_steps", None),
        )


def _bounds(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finite feature bounds: unbounded or huge sides become ``-+DEFAULT_BOUND``."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    bad_low = ~np.isfinite(low) | (np.abs(low) > HUGE_BOUND)
    bad_high = ~np.isfinite(high) | (np.abs(high) > HUGE_BOUND)
    low = np.where(bad_low, -DEFAULT_BOUND, low)
    high = np.where(bad_high, DEFAULT_BOUND, high)
    # A one-sided bound can land on the wrong side of the default (Box(-inf, -50)).
    flipped = high <= low
    low = np.where(flipped & bad_low, high - 2 * DEFAULT_BOUND, low)
    high = np.where(flipped & bad_high, low + 2 * DEFAULT_BOUND, high)
    return low, high


def derive_spec(facts: _EnvFacts) -> GameSpec:
    """The game's :class:`GameSpec`: its own when it declares one, else one from its spaces.

    Observations are always handed out flattened. ``obs_shape`` is the game's own when it
    declares one of ``flatdim`` values (an image ``(channels, height, width)`` stays one, for
    a policy with conv layers), else ``(flatdim,)``.

    Raises:
        ValueError: The action space is not ``Discrete``, the observation space cannot be
            flattened, or the game's own spec disagrees with its action space.
    """
    if not isinstance(facts.action_space, spaces.Discrete):
        raise ValueError(
            f"game {facts.label} has action space {facts.action_space}; "
            "the engine plays only Discrete action spaces"
        )
    try:
        obs_dim = int(spaces.flatdim(facts.observation_space))
        flat_space = spaces.flatten_space(facts.observation_space)
    except (NotImplementedError, ValueError, TypeError) as exc:
        raise ValueError(
            f"game {facts.label} has observation space {facts.observation_space}, "
            f"which cannot be flattened ({exc})"
        ) from exc
    n_actions = int(facts.action_space.n)
    own = facts.game_spec
    if isinstance(own, GameSpec):
        if own.n_actions != n_actions:
            raise ValueError(
                f"game {facts.label}: game_spec.n_actions={own.n_actions} but the action "
                f"space is {facts.action_space}"
            )
        return own if int(np.prod(own.obs_shape)) == obs_dim else replace(own, obs_shape=(obs_dim,))
    if not isinstance(flat_space, spaces.Box):
        raise ValueError(f"game {facts.label}: flattened observation space is not a Box")
    low, high = _bounds(flat_space.low.reshape(-1), flat_space.high.reshape(-1))
    return GameSpec(
        obs_shape=(obs_dim,),
        n_actions=n_actions,
        feature_names=tuple(f"obs{j}" for j in range(obs_dim)),
        feature_low=tuple(float(x) for x in low),
        feature_high=tuple(float(x) for x in high),
        feature_bins=(DEFAULT_BINS,) * obs_dim,
        max_steps=int(facts.max_episode_steps or DEFAULT_MAX_STEPS),
    )


def game_error(exc: BaseException) -> GameError:
    """:meth:`GameError.from_exception`, safe against exceptions whose ``str`` fails."""
    try:
        return GameError.from_exception(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not become an engine crash
        return GameError(type=type(exc).__name__, message="<unprintable exception>")


class _StepResult(NamedTuple):
    """One copy's step, as a worker sends it back."""

    obs: np.ndarray
    reward: float
    terminated: bool
    truncated: bool
    features: np.ndarray
    frame_ms: float
    violations: list[str]


_GAME_FAULTS = (Exception, SystemExit)
"""What a game's code may raise that is the game's fault. ``KeyboardInterrupt`` is not: the
user pressed Ctrl-C and the engine must stop."""


class _GameCopy:
    """One env and the conversions the engine needs; used in-process and inside a worker.

    Any exception from the game (including from its ``state_features`` or a malformed
    observation) propagates to the caller and marks the copy broken: the next ``reset``
    makes a fresh env first, since the old one may be in any state.
    """

    def __init__(self, make_env: Callable[[], gym.Env]) -> None:
        self._make_env = make_env
        self.env = make_env()
        try:
            self.spec = derive_spec(_EnvFacts.of(self.env))
        except BaseException:
            self.close()
            raise
        self._obs_dim = int(np.prod(self.spec.obs_shape))
        self.broken = False
        self._bind()

    def _bind(self) -> None:
        self._obs_space = self.env.observation_space
        self._action_start = int(getattr(self.env.action_space, "start", 0))
        self._state_features = getattr(self.env.unwrapped, "state_features", None)

    def _convert(self, obs: Any, info: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        flat = np.asarray(spaces.flatten(self._obs_space, obs), dtype=np.float32).reshape(-1)
        if self._state_features is None:
            feats = flat.astype(np.float64)
        else:
            feats = np.asarray(self._state_features(obs, info), dtype=np.float64).reshape(-1)
        # Checked here so that a malformed observation is the game's error, on its copy.
        if flat.shape[0] != self._obs_dim:
            raise ValueError(
                f"observation flattens to {flat.shape[0]} values, the game's spec says "
                f"{self._obs_dim}"
            )
        if feats.shape[0] != self.spec.n_features:
            raise ValueError(
                f"state_features returned {feats.shape[0]} values, the game's spec names "
                f"{self.spec.n_features}"
            )
        return flat, feats

    def reset(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        try:
            if self.broken:
                self.close()
                self.env = self._make_env()
                self._bind()
                self.broken = False
            obs, info = self.env.reset(seed=int(seed))
            return self._convert(obs, info)
        except BaseException:
            self.broken = True
            raise

    def step(self, action: int) -> _StepResult:
        try:
            start = time.perf_counter()
            obs, reward, terminated, truncated, info = self.env.step(self._action_start + action)
            elapsed_ms = (time.perf_counter() - start) * 1e3
            flat, feats = self._convert(obs, info)
            frame_ms = float(info["frame_ms"]) if "frame_ms" in info else elapsed_ms
            violations = info.get("violations") or []
            if isinstance(violations, str):
                violations = [violations]
            return _StepResult(
                flat, float(reward), bool(terminated), bool(truncated), feats, frame_ms,
                [str(v) for v in violations],
            )
        except BaseException:
            self.broken = True
            raise

    def close(self) -> None:
        """Close the env; a game that fails to close is not worth a finding here."""
        try:
            self.env.close()
        except _GAME_FAULTS:
            pass


# --------------------------------------------------------------------------- runners
# A runner executes resets and steps on a subset of copies and returns, per copy, either
# the result or the GameError that replaced it. GymVectorGame keeps the episode bookkeeping.

_Reply = Any  # tuple[np.ndarray, np.ndarray] | _StepResult | GameError


class _InProcessRunner:
    """The fast path: the envs live in this process and are stepped in a plain loop."""

    def __init__(self, make_env: Callable[[], gym.Env], num_envs: int) -> None:
        self.copies: list[_GameCopy] = []
        try:
            for _ in range(num_envs):
                self.copies.append(_GameCopy(make_env))
        except BaseException:
            self.close()
            raise
        self.spec = self.copies[0].spec

    def reset(self, seeds: Sequence[int]) -> list[_Reply]:
        out: list[_Reply] = []
        for copy, seed in zip(self.copies, seeds):
            try:
                out.append(copy.reset(seed))
            except _GAME_FAULTS as exc:
                out.append(game_error(exc))
        return out

    def step(self, indices: Sequence[int], actions: Sequence[int]) -> list[_Reply]:
        out: list[_Reply] = []
        for i, action in zip(indices, actions):
            try:
                out.append(self.copies[i].step(action))
            except _GAME_FAULTS as exc:
                out.append(game_error(exc))
        return out

    def close(self) -> None:
        for copy in self.copies:
            copy.close()


def _worker_main(conn: mp_connection.Connection, make_env: Callable[[], gym.Env]) -> None:
    """Body of a worker process: one game copy driven by ``(command, argument)`` messages.

    Replies are ``("ok", result)`` or ``("error", GameError)``; the GameError is computed
    here, where the traceback is. The first reply answers the start: ``("ok", GameSpec)``.
    """
    # Ctrl-C reaches the whole process group; the parent decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    copy: _GameCopy | None = None
    try:
        try:
            copy = _GameCopy(make_env)
            conn.send(("ok", copy.spec))
        except _GAME_FAULTS as exc:
            conn.send(("error", game_error(exc)))
            return
        while True:
            command, arg = conn.recv()
            if command == "close":
                return
            try:
                result = copy.step(arg) if command == "step" else copy.reset(arg)
                reply: tuple[str, Any] = ("ok", result)
            except _GAME_FAULTS as exc:
                reply = ("error", game_error(exc))
            conn.send(reply)
    except (EOFError, OSError):
        pass  # the parent closed the pipe or died: nothing left to serve
    finally:
        if copy is not None:
            copy.close()
        conn.close()


@contextlib.contextmanager
def _standard_start_method() -> Iterator[None]:
    """Let a spawned game process start from inside a joblib/loky worker.

    A spawned child sets the parent's *default* start method when it boots. Inside a loky
    worker that default is ``"loky"``, which a plain child cannot set ("cannot find context
    for 'loky'"), so the default is switched to ``"spawn"`` while the child starts.
    """
    current = mp.get_start_method(allow_none=True)
    if current in (None, "spawn", "fork", "forkserver"):
        yield
        return
    mp.set_start_method("spawn", force=True)
    try:
        yield
    finally:
        mp.set_start_method(current, force=True)


class _Worker:
    """One worker process and the parent's end of its pipe; restarted in place."""

    def __init__(self, ctx: Any, make_env: Callable[[], gym.Env], index: int) -> None:
        self._ctx = ctx
        self._make_env = make_env
        self._index = index
        self.process: Any = None
        self.conn: mp_connection.Connection | None = None

    @property
    def running(self) -> bool:
        return self.process is not None

    def start(self) -> None:
        parent, child = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=_worker_main,
            args=(child, self._make_env),
            name=f"game-copy-{self._index}",
            # Daemonic so that multiprocessing's own exit handler terminates it if
            # everything else failed; a game may still start subprocesses, just not
            # multiprocessing children.
            daemon=True,
        )
        try:
            with _standard_start_method():
                process.start()
        except BaseException:
            parent.close()
            child.close()
            raise
        child.close()  # only the worker holds it now, so its death reads as EOF here
        self.process, self.conn = process, parent

    def send(self, message: tuple[str, Any]) -> bool:
        """Send, or return False if the worker is gone."""
        if self.conn is None:
            return False
        try:
            self.conn.send(message)
            return True
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            return False

    def died(self) -> GameError:
        """Reap a worker whose pipe reads EOF and say how it ended."""
        code = None
        if self.process is not None:
            self.process.join(CLOSE_GRACE_S)
            if self.process.is_alive():  # closed its pipe but lingers: finish it
                self.process.kill()
                self.process.join()
            code = self.process.exitcode
        self.kill()
        return GameError(type="GameProcessDied", message=f"game process exited with code {code}")

    def kill(self) -> None:
        """SIGKILL and reap, so no zombie remains; the worker restarts on the next reset."""
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join()
            self.process.close()
        if self.conn is not None:
            self.conn.close()
        self.process, self.conn = None, None

    def stop(self) -> None:
        """Ask the worker to exit; :meth:`kill` it if it has not within the grace time."""
        if self.process is None:
            return
        self.send(("close", None))
        self.process.join(CLOSE_GRACE_S)
        self.kill()


def _stop_workers(workers: list[_Worker]) -> None:
    """Stop every worker: close first (they exit in parallel), then reap or kill each."""
    for w in workers:
        if w.running:
            w.send(("close", None))
    deadline = time.monotonic() + CLOSE_GRACE_S
    for w in workers:
        if w.process is not None:
            w.process.join(max(deadline - time.monotonic(), 0.0))
        w.kill()


class _ProcessRunner:
    """The isolated path: one spawn worker per copy, every reply awaited with a timeout."""

    def __init__(
        self, make_env: Callable[[], gym.Env], num_envs: int, step_timeout_s: float
    ) -> None:
        self.timeout_s = float(step_timeout_s)
        ctx = mp.get_context("spawn")
        self.workers = [_Worker(ctx, make_env, i) for i in range(num_envs)]
        # Stops the workers when the game is garbage-collected or the interpreter exits
        # without close(); close() calls it too (it runs once).
        self._finalizer = weakref.finalize(self, _stop_workers, self.workers)
        try:
            try:
                self.workers[0].start()
            except (pickle.PicklingError, AttributeError, TypeError) as exc:
                raise ValueError(
                    "step_timeout_s runs each game copy in its own process, so make_env must "
                    "be picklable (a module-level function or class, or a functools.partial "
                    f"of one); got {make_env!r} ({exc})"
                ) from exc
            for w in self.workers[1:]:
                w.start()
            replies = self._collect(range(num_envs), START_TIMEOUT_S, "start")
            first = replies[0]
            if isinstance(first, GameError):
                raise _startup_error(first)
            self.spec: GameSpec = first
            for i, reply in replies.items():
                if isinstance(reply, GameError):
                    raise _startup_error(reply, i)
        except BaseException:
            self.close()
            raise

    def _collect(self, indices: Sequence[int], timeout_s: float, what: str) -> dict[int, _Reply]:
        """Read one reply from each of ``indices``, all within ``timeout_s`` from now.

        A worker that does not answer in time is killed (``GameHang``); one whose pipe
        reads EOF has died (``GameProcessDied``). Both are restarted on the next reset.
        """
        waiting = {self.workers[i].conn: i for i in indices}
        replies: dict[int, _Reply] = {}
        deadline = time.monotonic() + timeout_s
        while waiting:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for conn in mp_connection.wait(list(waiting), timeout=remaining):
                i = waiting.pop(conn)  # type: ignore[call-overload]
                try:
                    status, payload = conn.recv()  # type: ignore[union-attr]
                except (EOFError, OSError):
                    replies[i] = self.workers[i].died()
                    continue
                replies[i] = payload
                if status == "error" and what == "start":
                    self.workers[i].stop()  # make_env failed: the worker is exiting
        for i in waiting.values():
            self.workers[i].kill()
            replies[i] = GameError(
                type="GameHang", message=f"{what} did not return within {timeout_s} s", where=""
            )
        return replies

    def _send_all(
        self, indices: Sequence[int], command: str, args: Sequence[Any]
    ) -> tuple[list[int], dict[int, _Reply]]:
        """Send to every worker first (so they run in parallel); split sent from dead."""
        sent: list[int] = []
        dead: dict[int, _Reply] = {}
        for i, arg in zip(indices, args):
            if self.workers[i].send((command, arg)):
                sent.append(i)
            else:
                dead[i] = self.workers[i].died()
        return sent, dead

    def reset(self, seeds: Sequence[int]) -> list[_Reply]:
        replies: dict[int, _Reply] = {}
        restart = [i for i, w in enumerate(self.workers) if not w.running]
        for i in restart:
            self.workers[i].start()
        if restart:
            for i, reply in self._collect(restart, START_TIMEOUT_S, "start").items():
                if isinstance(reply, GameError):
                    replies[i] = reply
        todo = [i for i in range(len(self.workers)) if i not in replies]
        sent, dead = self._send_all(todo, "reset", [int(seeds[i]) for i in todo])
        replies.update(dead)
        replies.update(self._collect(sent, max(self.timeout_s, RESET_TIMEOUT_FLOOR_S), "reset"))
        return [replies[i] for i in range(len(self.workers))]

    def step(self, indices: Sequence[int], actions: Sequence[int]) -> list[_Reply]:
        sent, dead = self._send_all(indices, "step", actions)
        replies = self._collect(sent, self.timeout_s, "step")
        replies.update(dead)
        return [replies[i] for i in indices]

    def close(self) -> None:
        self._finalizer()


def _startup_error(error: GameError, index: int = 0) -> Exception:
    """The exception a failed start raises in the parent: a ValueError stays one (it is how
    an unsuitable game is reported), anything else becomes a one-line RuntimeError."""
    if error.type == "ValueError":
        return ValueError(error.message)
    return RuntimeError(
        f"game copy {index} could not be created in its worker process: "
        f"{error.type}: {error.message}"
    )


# --------------------------------------------------------------------------- the game


class GymVectorGame:
    """N copies of a gymnasium game as a :class:`games.base.VectorGame`, faults isolated.

    Args:
        make_env: Makes one fresh copy of the game. Called again for a copy whose game broke.
            Must be picklable when ``step_timeout_s`` is set.
        num_envs: Number of copies.
        step_timeout_s: ``None`` runs the copies in this process (fast, but a hang or a
            dying process takes the engine with it). A number runs each copy in its own
            process and reports a step that takes longer as ``GameHang``; set it well above
            the slowest normal frame, with the machine's load in mind.

    Raises:
        ValueError: The game's action space is not ``Discrete``, its spec is inconsistent,
            or ``make_env`` cannot be sent to a worker process.

    Beyond the gymnasium API it adds: observations flattened to float32 ``[N, obs_dim]``;
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
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if step_timeout_s is not None and not step_timeout_s > 0:
            raise ValueError(f"step_timeout_s must be positive or None, got {step_timeout_s}")
        self.num_envs = int(num_envs)
        self.step_timeout_s = step_timeout_s
        self._runner: _InProcessRunner | _ProcessRunner = (
            _InProcessRunner(make_env, self.num_envs)
            if step_timeout_s is None
            else _ProcessRunner(make_env, self.num_envs, step_timeout_s)
        )
        self.game_spec: GameSpec = self._runner.spec
        n, f = self.num_envs, self.game_spec.n_features
        self._obs = np.zeros((n, int(np.prod(self.game_spec.obs_shape))), dtype=np.float32)
        self._features = np.zeros((n, f), dtype=np.float64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._steps = np.zeros(n, dtype=np.int64)
        self._reset_errors: dict[int, GameError] = {}
        self._started = False
        self._closed = False

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Start a new episode in every copy (``env.reset(seed=seeds[i])``).

        Copies whose game broke get a fresh game first (a new worker process in isolated
        mode).

        Returns:
            ``(obs [N, obs_dim] float32, features [N, F] float64)``.
        """
        self._check_open()
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset needs {self.num_envs} seeds, got {len(seeds)}")
        self._reset_errors.clear()
        for i, reply in enumerate(self._runner.reset(list(seeds))):
            if isinstance(reply, GameError):
                self._reset_errors[i] = reply
                self._obs[i], self._features[i] = 0.0, 0.0
            else:
                self._obs[i], self._features[i] = reply
        self._terminated[:] = False
        self._truncated[:] = False
        self._steps[:] = 0
        self._started = True
        return self._obs.copy(), self._features.copy()

    def step(self, actions: np.ndarray) -> VecStep:
        """Step every copy that is still playing; done copies stay as they are.

        ``frame_ms[i]`` is the game's ``info["frame_ms"]`` when it gives one, else the wall
        time of ``env.step`` alone (measured where the game runs, IPC excluded), and 0 for
        copies that did not step.

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
        return VecStep(
            obs=self._obs.copy(),
            reward=reward,
            terminated=self._terminated.copy(),
            truncated=self._truncated.copy(),
            features=self._features.copy(),
            frame_ms=frame_ms,
            errors=errors,
            violations=violations,
        )

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
