"""A vector game whose copies render in several processes at once, and whose observations come
back through shared memory: what lets one process run the observation wrappers and the agents'
forward pass over every copy in one batch (Sample Factory's shape: rendering workers, one
batched inference), on a GPU where the experiment has one.

:class:`RenderProcesses` is a :class:`games.core.base.VectorGame` of ``num_envs`` copies: it
starts ``processes`` processes (``spawn``), each holding a contiguous share of the copies as a
vector game of its own (the game's own form, without wrappers). A step sends each process its
copies' actions, all of them step at once, and each writes its observations into one shared
array (``multiprocessing.RawArray``); the rest of a step (rewards, flags, features, errors, info)
is small and comes back through the process's pipe. Copies, seeds and actions are the same as
in one process, so the same episodes are played: only where they are computed differs.

Each process dies with the one that started it (:func:`games.common.lifetime.die_with_parent`),
and a game's engines with it. A process that dies or a vector game that raises as a whole
makes the step raise, as a game in one process would: the engine then replaces the game.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
from multiprocessing.connection import Connection
from typing import Any, Callable, Sequence

import numpy as np

from games.core.base import GameSpec, GameSpecError, VecStep, VectorGame
from games.common.lifetime import die_with_parent, startable
from games.core.start_error import GameStartError

CLOSE_WAIT_S = 10.0
"""Seconds a process gets to close its game before it is killed."""


def _serve(make: Callable[[int], VectorGame], lo: int, hi: int, conn: Connection, shared: Any,
           total: int) -> None:
    """A rendering process: copies ``lo:hi`` of the game, stepped on command."""
    die_with_parent()
    try:
        game = make(hi - lo)
    except BaseException as exc:  # noqa: BLE001 - said to the parent, which raises it
        conn.send(("error", exc))
        return
    spec = game.game_spec
    obs = np.frombuffer(shared, dtype=spec.obs_dtype).reshape(total, *spec.obs_shape)[lo:hi]
    conn.send(("ready", spec))
    try:
        while True:
            command, arg = conn.recv()
            if command == "close":
                break
            try:
                if command == "reset":
                    observed, features = game.reset(arg)
                    obs[:] = observed
                    conn.send(("ok", features))
                else:
                    out = game.step(arg)
                    obs[:] = out.obs
                    conn.send(("ok", dataclasses.replace(out, obs=np.empty(0))))
            except Exception as exc:  # noqa: BLE001 - the game's fault as a whole: the parent raises it
                conn.send(("error", exc))
    except (EOFError, OSError):  # the parent is gone: end with it
        pass
    finally:
        game.close()


class RenderProcesses:
    """``num_envs`` copies of a game, their rendering shared by ``processes`` processes.

    Args:
        make: ``make(n)`` returns a vector game of ``n`` copies (picklable: a
            :class:`games.GameFactory`'s ``make_vector``, without wrappers).
        num_envs: Copies in all.
        processes: Processes to share them (at most one per copy).

    Raises:
        RuntimeError: a process could not make its share of the game (the others are closed).
        GameStartError: an isolated copy of its share did not start (raised as it is: one line).
    """

    def __init__(self, make: Callable[[int], VectorGame], num_envs: int, processes: int) -> None:
        processes = max(1, min(int(processes), int(num_envs)))
        bounds = np.linspace(0, num_envs, processes + 1).round().astype(int)
        self.num_envs = int(num_envs)
        self.slices = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        self._conns: list[Connection] = []
        self._procs: list[Any] = []
        context = mp.get_context("spawn")  # no copy of this process's threads, torch or engines
        probe = make(1)  # the spec, which sizes the shared observations
        try:
            spec: GameSpec = probe.game_spec
        finally:
            probe.close()
        size = int(np.prod((num_envs, *spec.obs_shape))) * np.dtype(spec.obs_dtype).itemsize
        self._shared = context.RawArray("B", max(size, 1))
        self._obs = np.frombuffer(self._shared, dtype=spec.obs_dtype).reshape(num_envs, *spec.obs_shape)
        try:
            with startable(make):
                for lo, hi in self.slices:
                    mine, theirs = context.Pipe()
                    proc = context.Process(target=_serve, args=(make, lo, hi, theirs, self._shared, num_envs),
                                           daemon=True)
                    proc.start()
                    theirs.close()
                    self._conns.append(mine)
                    self._procs.append(proc)
            replies = self._gather(starting=True)
        except BaseException:
            self.close()
            raise
        self.game_spec: GameSpec = replies[0]

    def _gather(self, starting: bool = False) -> list[Any]:
        """Every process's answer, in copy order; RuntimeError where one failed or died. At the
        start, a copy that could not start (an isolated one's :class:`GameStartError`) or a game
        that contradicts itself is raised as itself: one line, as without these processes."""
        replies = []
        for (lo, hi), conn in zip(self.slices, self._conns):
            try:
                status, value = conn.recv()
            except (EOFError, OSError) as exc:
                raise RuntimeError(f"the process rendering copies {lo}-{hi - 1} died") from exc
            if status == "error":
                if starting and isinstance(value, (GameStartError, GameSpecError)):
                    raise value
                raise RuntimeError(f"copies {lo}-{hi - 1}: {type(value).__name__}: {value}") from value
            replies.append(value)
        return replies

    def _send(self, command: str, values: np.ndarray) -> None:
        for (lo, hi), conn in zip(self.slices, self._conns):
            try:
                conn.send((command, values[lo:hi]))
            except OSError as exc:  # a dead process's pipe: as when its answer never comes
                raise RuntimeError(f"the process rendering copies {lo}-{hi - 1} died") from exc

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} copies")
        self._send("reset", np.asarray(seeds, dtype=np.int64))
        features = np.concatenate(self._gather())
        return self._obs.copy(), features

    def step(self, actions: np.ndarray) -> VecStep:
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {actions.shape}")
        self._send("step", actions)
        parts: list[VecStep] = self._gather()
        return _joined(parts, self.slices, self._obs.copy())

    def close(self) -> None:
        """End every process, its game's engines with it (safe to call twice)."""
        conns, procs, self._conns, self._procs = self._conns, self._procs, [], []
        for conn in conns:
            try:
                conn.send(("close", None))
            except (OSError, ValueError):
                pass
        for proc in procs:
            proc.join(CLOSE_WAIT_S)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in conns:
            conn.close()


def _joined(parts: list[VecStep], slices: list[tuple[int, int]], obs: np.ndarray) -> VecStep:
    """The processes' steps as one, copies in order."""
    n = obs.shape[0]
    info: dict[str, np.ndarray] = {}
    for key in {k for part in parts for k in part.info}:
        columns = []
        for part, (lo, hi) in zip(parts, slices):
            value = part.info.get(key)
            columns.append(np.full(hi - lo, None, dtype=object) if value is None else np.asarray(value))
        info[key] = np.concatenate(columns) if len({c.dtype for c in columns}) == 1 else \
            np.concatenate([c.astype(object) for c in columns])
    frame_ms = None if any(p.frame_ms is None for p in parts) else np.concatenate([p.frame_ms for p in parts])
    out = VecStep(
        obs=obs, reward=np.concatenate([p.reward for p in parts]),
        terminated=np.concatenate([p.terminated for p in parts]), truncated=np.concatenate([p.truncated for p in parts]),
        features=np.concatenate([p.features for p in parts]), frame_ms=frame_ms,
        errors={lo + i: e for p, (lo, _) in zip(parts, slices) for i, e in p.errors.items()},
        violations={lo + i: v for p, (lo, _) in zip(parts, slices) for i, v in p.violations.items()},
        info=info,
    )
    assert out.reward.shape == (n,)
    return out
