"""One copy of a Gymnasium game and the conversions the engine needs, in-process or in a
worker process (:mod:`games.adapter.process_runner`); :class:`games.adapter.vector_game.GymVectorGame` steps many.

Everything a game can do wrong while it plays propagates from here as an exception on its
copy, which the caller turns into data (a crash or logic bug of that copy). What a game gets
wrong about itself is found once, when the copy is built, and raised as one
:class:`games.core.base.GameSpecError` line instead of a crash report per step.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import zlib
import time
from typing import Any, Callable, NamedTuple, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from games.core.base import GameError, GameSpec, GameSpecError
from games.core.frame_cost import StepTimer
from games.core.record import OBS_DIGEST_KEY, PEAK_GROWTH_KEY, plain_info
from games.adapter.spec import EnvFacts, derive
from games.adapter.observation_parts import numeric_parts
from games.adapter.wrapper_attrs import game_attr
from games.common.process_memory import peak_mb
from games.common.process_tree import CopyProcesses
from games.core import snapshots


def game_error(exc: BaseException) -> GameError:
    """:meth:`GameError.from_exception`, safe against exceptions whose ``str`` fails."""
    try:
        return GameError.from_exception(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not become an engine crash
        return GameError(type=type(exc).__name__, message="<unprintable exception>")


class StepResult(NamedTuple):
    """One copy's step, as a worker sends it back."""

    obs: np.ndarray
    reward: float
    terminated: bool
    truncated: bool
    features: np.ndarray
    frame_ms: float
    violations: list[str]
    info: dict[str, Any]
    done_at: float = 0.0
    """``time.monotonic()`` when the step was over (one clock for every process)."""
    snapshot: bytes | None = None
    """The game's state after this step (:mod:`games.core.snapshots`), where the copy was asked
    for one here; ``SNAPSHOT_FAILED`` where its game cannot be pickled."""


log = logging.getLogger(__name__)

CLOSE_TIMEOUT_S = 2.0
"""How long closing a game is awaited before it is left behind (:func:`close_env`)."""

MAX_ABS_REWARD = 1e12
"""Largest reward magnitude a step may give. Rewards are summed into returns and squared in
value losses in float32 (largest finite value 3.4e38): 1e12 a step leaves room for episodes
of millions of steps, and no game's score comes near it. A reward of 1e308 would turn the
search's scores into inf and its networks into NaN; here it is the game's bug instead."""

GAME_FAULTS = (Exception, SystemExit)
"""What a game's code may raise that is the game's fault. ``KeyboardInterrupt`` is not: the
user pressed Ctrl-C and the engine must stop."""

FIRST_RESETS = 8
"""Seeds (0, 1, ...) a game without a spec is reset with until one gives the first state
features, whose count its spec needs; a game none of whose first resets works cannot be
played at all, which is one line at start."""


class GameCopy:
    """One env and the conversions the engine needs; used in-process and inside a worker.

    Any exception from the game (including from its ``state_features`` or a malformed
    observation) propagates to the caller and marks the copy broken: the next ``reset``
    makes a fresh env first, since the old one may be in any state.

    Build it with :meth:`tracked` so that the processes the game starts end with the copy
    (:mod:`games.common.process_tree`); one built directly leaves them to the game.

    Args:
        make_env: Makes a fresh env.
        info_keys: Keys of ``info`` to hand on; :data:`games.core.record.OBS_DIGEST_KEY` and
            ``PEAK_GROWTH_KEY`` among them add the engine's own (the observation's CRC-32, the
            step's rise of the process's peak memory).
        spec: The spec every copy of this game shares, when the engine knows it already
            (learned cells included): the copy takes it instead of deriving its own, so a
            game without a spec is not reset to count its features again.
        first_seed: The first seed tried for that first reset (a worker restarted after
            the game died in it tries the next).

    Raises:
        GameSpecError: From the constructor: the spec contradicts the spaces or
            ``state_features``, or a game without a spec could not be reset at all.
    """

    processes: CopyProcesses | None = None
    """The copy's processes, marked during every call into the game and ended on close."""

    @classmethod
    def tracked(cls, make_env: Callable[[], gym.Env], info_keys: Sequence[str] = (),
                processes: CopyProcesses | None = None, spec: GameSpec | None = None,
                first_seed: int = 0) -> "GameCopy":
        """A copy whose game's processes are marked from ``make_env`` on (its first reset
        included) and end with it: on :meth:`close`, and when a broken game is made again.

        Args:
            processes: The copy's marker; None makes a new one.
            spec, first_seed: As the constructor's.
        """
        processes = processes or CopyProcesses()
        try:
            with processes.marked():
                copy = cls(make_env, info_keys, spec, first_seed)
        except BaseException:
            processes.end()  # the constructor closed the env; what it started goes too
            raise
        copy.processes = processes
        return copy

    def _marked(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext() if self.processes is None else self.processes.marked()

    def __init__(self, make_env: Callable[[], gym.Env], info_keys: Sequence[str] = (),
                 spec: GameSpec | None = None, first_seed: int = 0) -> None:
        self._make_env = make_env
        self._digest = OBS_DIGEST_KEY in info_keys
        self._peak = PEAK_GROWTH_KEY in info_keys
        self._info_keys = tuple(k for k in info_keys if k not in (OBS_DIGEST_KEY, PEAK_GROWTH_KEY))
        self._timer = StepTimer()
        self.env = make_env()
        self.broken = False
        self.snapshot_every = 0
        """Snapshot the game after every this many steps of an episode (0: never)."""
        self._since = 0
        self._last: tuple[Any, dict[str, Any]] = (None, {})
        """The game's last observation and info: what a snapshot restores beside the game."""
        try:
            self._bind()
            facts = EnvFacts.of(self.env)
            self._label = facts.label
            self._own_spec = facts.game_spec is not None
            # Only a game without a spec is reset here (its features' count cannot be known
            # otherwise); one with a spec is checked at its first reset in play, so that
            # building a game never resets it in the engine's own process.
            if spec is not None and facts.has_state_features and not self._own_spec:
                count: int | None = spec.n_features
            else:
                first = None if self._own_spec else self._first_features(facts, first_seed)
                count = None if first is None else first.shape[0]
            derived = derive(facts, count)
            self.spec = derived.spec if spec is None else spec
            self._features = derived.features
            self._obs_dim = int(np.prod(self.spec.obs_shape))
            # Frames that come (height, width, channels) are handed on (channels, height, width).
            self._frame = ((*self.spec.obs_shape[1:], self.spec.obs_shape[0])
                           if derived.channels_last and len(self.spec.obs_shape) == 3 else None)
        except BaseException:
            self.close()
            raise

    def _bind(self) -> None:
        self._numeric = numeric_parts(self.env.observation_space, f"game {type(self.env.unwrapped).__name__}")
        self._obs_space = self._numeric.space  # text parts kept out (said once at the run's start)
        self._action_start = int(getattr(self.env.action_space, "start", 0))
        self._state_features = game_attr(self.env, "state_features")

    def _first_features(self, facts: EnvFacts, first_seed: int) -> np.ndarray | None:
        """The game's own ``state_features`` of a first reset (seeds ``first_seed``, then on,
        until one resets), or None when it has none. The copy is left broken, so that play
        starts from a fresh game."""
        if not facts.has_state_features:
            return None
        for seed in range(first_seed, FIRST_RESETS):
            try:
                obs, info = self.env.reset(seed=seed)
                break
            except GAME_FAULTS:
                self.broken = True
        else:
            raise GameSpecError(
                f"game {facts.label}: has state_features but no game_spec, and could not be "
                f"reset to count them (reset failed for seeds 0 to {FIRST_RESETS - 1}); "
                "declare a game_spec"
            )
        self.broken = True
        try:
            return np.asarray(self._state_features(obs, info), dtype=np.float64).reshape(-1)  # type: ignore[misc]
        except GAME_FAULTS as exc:
            raise GameSpecError(
                f"game {facts.label}: state_features failed on the first observation "
                f"({type(exc).__name__}: {exc})"
            ) from None

    def convert(self, obs: Any, info: dict[str, Any], at_reset: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Flat observation (a frame's bytes in ``(channels, height, width)`` order) and float64
        state features of one observation.

        Raises:
            GameSpecError: At a reset, the game's own spec and ``state_features`` disagree
                (a mistake in the game's declaration, not a bug it shows while playing).
            ValueError: Anything malformed later: a bug of this copy.
        """
        flat = np.asarray(spaces.flatten(self._obs_space, self._numeric(obs)), dtype=self.spec.obs_dtype).reshape(-1)
        # Checked here so that a malformed observation is the game's error, on its copy.
        if flat.shape[0] != self._obs_dim:
            raise ValueError(
                f"observation flattens to {flat.shape[0]} values, the game's spec says "
                f"{self._obs_dim}"
            )
        if flat.dtype.kind == "f" and not np.isfinite(flat).all():
            bad = np.flatnonzero(~np.isfinite(flat))
            raise ValueError(
                f"observation holds {flat[bad[0]]} at flat index {bad[0]} ({bad.size} values "
                "not finite); a policy cannot act on it"
            )
        if self._state_features is None:  # the frame's cells, from the frame as the game gave it
            feats = np.asarray(self._features(flat), dtype=np.float64)  # type: ignore[misc]
        else:
            feats = np.asarray(self._state_features(obs, info), dtype=np.float64).reshape(-1)
        if self._frame is not None:
            flat = flat.reshape(self._frame).transpose(2, 0, 1).reshape(-1)
        if feats.shape[0] != self.spec.n_features:
            if self._own_spec and at_reset:
                raise GameSpecError(
                    f"game {self._label}: state_features returns {feats.shape[0]} values but its "
                    f"game_spec names {self.spec.n_features} ({', '.join(self.spec.feature_names)}); "
                    "make them agree, or drop game_spec and the engine learns the bounds"
                )
            raise ValueError(
                f"state_features returned {feats.shape[0]} values, {self.spec.n_features} before"
            )
        return flat, feats

    def reset(self, seed: int, snapshot_every: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """A new episode from ``seed``, snapshotted after every ``snapshot_every`` steps (0: never)."""
        try:
            if self.broken:
                self.close()  # and what the broken game started, before its successor starts
            with self._marked():
                if self.broken:
                    self.env = self._make_env()
                    self._bind()
                    self.broken = False
                obs, info = self.env.reset(seed=int(seed))
                self._started(obs, info, snapshot_every)
                return self.convert(obs, info, at_reset=True)
        except BaseException:
            self.broken = True
            raise

    def restore(self, snapshot: bytes, snapshot_every: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Go on from a snapshot this game's copies took: the game as it was then replaces this
        copy's (which is dropped, not closed: a game that pickles owns no process)."""
        try:
            env, obs, info = snapshots.load(snapshot)
            self.env, self.broken = env, False
            self._bind()
            self._started(obs, info, snapshot_every)
            return self.convert(obs, info)
        except BaseException:
            self.broken = True
            raise

    def _started(self, obs: Any, info: dict[str, Any], snapshot_every: int) -> None:
        self._last, self._since = (obs, info), 0
        if self.snapshot_every >= 0:  # -1: its game could not be pickled; never again
            self.snapshot_every = int(snapshot_every)

    def _snapshot(self) -> bytes | None:
        """The game's state now, where one is due after this step."""
        self._since += 1
        if self.snapshot_every <= 0 or self._since % self.snapshot_every:
            return None
        try:
            return snapshots.take((self.env, *self._last))
        except Exception:  # noqa: BLE001 - a game holding a lock, a socket, a C object
            self.snapshot_every = -1
            return snapshots.SNAPSHOT_FAILED

    def step(self, action: int) -> StepResult:
        try:
            with self._marked():
                peak = peak_mb() if self._peak else 0.0
                self._timer.start()
                obs, reward, terminated, truncated, info = self.env.step(self._action_start + action)
                elapsed_ms = self._timer.stop_ms()
                grew = peak_mb() - peak if self._peak else 0.0
            flat, feats = self.convert(obs, info)
            reward = float(reward)
            if not abs(reward) <= MAX_ABS_REWARD:  # NaN fails this too
                raise ValueError(f"reward {reward!r} is not a finite number within ±{MAX_ABS_REWARD:g}")
            frame_ms = float(info["frame_ms"]) if "frame_ms" in info else elapsed_ms
            violations = info.get("violations") or []
            if isinstance(violations, str):
                violations = [violations]
            kept = plain_info(info, self._info_keys)
            self._last = (obs, info)
            if self._digest:  # the engine's own key, over whatever the game put there
                kept[OBS_DIGEST_KEY] = zlib.crc32(flat)
            if self._peak:
                kept[PEAK_GROWTH_KEY] = grew
            done_at = time.monotonic()
            return StepResult(
                flat, reward, bool(terminated), bool(truncated), feats, frame_ms,
                [str(v) for v in violations], kept, done_at, None if terminated or truncated else self._snapshot(),
            )
        except BaseException:
            self.broken = True
            raise

    def render(self) -> np.ndarray | None:
        """The env's frame now, ``[H, W, 3]`` uint8; None unless it was made with
        ``render_mode="rgb_array"``."""
        if getattr(self.env, "render_mode", None) != "rgb_array":
            return None
        with self._marked():
            frame = self.env.render()
        return np.asarray(frame, dtype=np.uint8)[..., :3]

    def close(self) -> None:
        """Close the env, waiting for it at most :data:`CLOSE_TIMEOUT_S` (:func:`close_env`),
        then end every process it started that is still there (a game's ``close`` often ends
        only the process it started itself, not what that one started)."""
        with self._marked():
            close_env(self.env)
        if self.processes is not None:  # an isolated copy's worker scans for the rest once it exits
            self.processes.end(scan=not self.processes.own_tree)


def close_env(env: Any, timeout_s: float = CLOSE_TIMEOUT_S) -> bool:
    """``env.close()``, awaited at most ``timeout_s``: a game that cannot shut down must not
    stop the engine (or a worker) from going on or exiting. The close runs in a daemon thread,
    which is left behind if it hangs (a thread cannot be killed; the process's exit ends it);
    an exception from it is ignored: a game that fails to close is not worth a finding.

    Returns:
        True when ``close`` returned (or raised) in time.
    """
    done = threading.Event()

    def _close() -> None:
        try:
            env.close()
        except GAME_FAULTS:
            pass
        finally:
            done.set()

    threading.Thread(target=_close, name="game-close", daemon=True).start()
    if done.wait(timeout_s):
        return True
    log.warning("game %s: close did not return within %g s; left behind", type(env).__name__, timeout_s)
    return False


Reply = Any
"""What a runner returns per copy: ``(obs, features)``, a :class:`StepResult`, or the
:class:`GameError` that replaced it."""
