"""Game copies in worker processes: a hang or a dying process is a finding on one copy.

With ``step_timeout_s`` set, :class:`games.gym_adapter.GymVectorGame` runs each copy in its
own ``spawn`` process, talking over a ``Pipe``. A step is sent to every worker before any
reply is read, so the copies run in parallel, and every reply is awaited until
``step_timeout_s`` after the send: a copy that does not answer is killed and reported as
``GameHang``, one whose pipe reads EOF as ``GameProcessDied``, and one whose process (with
any it started, a game engine say) holds more than ``max_rss_mb`` of resident memory is
killed as ``GameOutOfMemory``; all restart on the next reset. ``make_env`` must be picklable (a module-level function or class, a
``functools.partial`` of one, or a ``GameFactory.make_env``), and scripts that use this mode
need the usual ``if __name__ == "__main__":`` guard of ``spawn``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection as mp_connection
from multiprocessing import resource_tracker
import pickle
import signal
import time
import weakref
from typing import Any, Callable, Iterator, Sequence

import gymnasium as gym

from games.base import GameError, GameSpec, GameSpecError
from games.gym_copy import GAME_FAULTS, GameCopy, Reply, game_error
from games.lifetime import die_with_parent
from games.process_tree import CopyProcesses, become_subreaper
from games.process_memory import children_by_parent, descendants, rss_mb

START_TIMEOUT_S = 60.0
"""How long a worker may take to start: spawn a Python, import the game, run ``make_env``.
Generous because imports are slow on a loaded machine and a false alarm here costs an
episode."""
RESET_TIMEOUT_FLOOR_S = 30.0
"""A reset is awaited ``max(step_timeout_s, this)``: resets load levels and may legitimately
take far longer than a frame."""
CLOSE_GRACE_S = 1.0
"""How long ``close`` waits for a worker to exit on its own before killing it."""
MEMORY_POLL_S = 0.1
"""How often the workers' resident memory is read against ``max_rss_mb``, also while a step
runs: a copy can go over by what it allocates in this time. Reading every step would cost
more than a step of a small game (a ``/proc`` read is tens of microseconds on a loaded
machine)."""
TREE_REFRESH_S = 2.0
"""How often the processes a game started (an engine) are looked up again; a full pass over
``/proc`` costs milliseconds."""



def _worker_main(conn: mp_connection.Connection, make_env: Callable[[], gym.Env],
                 info_keys: Sequence[str] = ()) -> None:
    """Body of a worker process: one game copy driven by ``(command, argument)`` messages.

    Replies are ``("ok", result)`` or ``("error", GameError)``; the GameError is computed
    here, where the traceback is. The first reply answers the start: ``("ok", GameSpec)``.
    """
    # Ctrl-C reaches the whole process group; the parent decides when workers stop. A
    # parent SIGKILLed decides nothing: the kernel ends the worker then.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    # What the game leaves running stays below this process, so that it is counted against
    # max_rss_mb and ended with the copy even without the marker it was started with.
    become_subreaper()
    copy: GameCopy | None = None
    try:
        try:
            copy = GameCopy.tracked(make_env, info_keys, CopyProcesses.inherited())
            conn.send(("ok", copy.spec))
        except GAME_FAULTS as exc:
            conn.send(("error", game_error(exc)))
            return
        while True:
            command, arg = conn.recv()
            if command == "close":
                return
            try:
                if command == "render":
                    result = copy.render()
                else:
                    result = copy.step(arg) if command == "step" else copy.reset(arg)
                reply: tuple[str, Any] = ("ok", result)
            except GAME_FAULTS as exc:
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

    def __init__(self, ctx: Any, make_env: Callable[[], gym.Env], index: int,
                 info_keys: Sequence[str] = ()) -> None:
        self._ctx = ctx
        self._make_env = make_env
        self._info_keys = tuple(info_keys)
        self._index = index
        self.process: Any = None
        self.conn: mp_connection.Connection | None = None
        self.processes: CopyProcesses | None = None
        """The copy's processes, this worker process first: they all start with its marker."""

    @property
    def running(self) -> bool:
        return self.process is not None

    def rss_mb(self, tree: dict[int, list[int]]) -> float:
        """Resident memory of the worker and of every process below it in ``tree``, MiB."""
        pid = self.process.pid if self.process is not None else None
        if pid is None:
            return 0.0
        return sum(r or 0.0 for r in map(rss_mb, [pid, *descendants(pid, tree)]))

    def start(self) -> None:
        parent, child = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=_worker_main,
            args=(child, self._make_env, self._info_keys),
            name=f"game-copy-{self._index}",
            # Daemonic so that multiprocessing's own exit handler terminates it if
            # everything else failed; a game may still start subprocesses, just not
            # multiprocessing children.
            daemon=True,
        )
        # The worker starts with the copy's marker in its environment, and so does every
        # process its game starts (spawn execs a fresh Python with os.environ as it is now).
        # Not multiprocessing's resource tracker, which the first spawn starts: it serves
        # every copy, and would end with this one.
        resource_tracker.ensure_running()
        self.processes = CopyProcesses()
        try:
            with _standard_start_method(), self.processes.marked():
                process.start()
        except BaseException:
            parent.close()
            child.close()
            self.processes.end()
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
        if code is not None and code < 0:  # a signal: -11 is a segfault in the game's C code
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return GameError(type="GameProcessDied", message=f"game process was killed by {name}")
        return GameError(type="GameProcessDied", message=f"game process exited with code {code}")

    def kill(self) -> None:
        """SIGKILL and reap, so no zombie remains, with every process the copy started (a
        worker killed mid-step leaves its game's processes to init); the worker restarts on
        the next reset."""
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join()
            self.process.close()
        if self.conn is not None:
            self.conn.close()
        if self.processes is not None:
            self.processes.end()
        self.process, self.conn, self.processes = None, None, None

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


class ProcessRunner:
    """The isolated path: one spawn worker per copy, every reply awaited with a timeout."""

    def __init__(
        self, make_env: Callable[[], gym.Env], num_envs: int, step_timeout_s: float,
        info_keys: Sequence[str] = (), max_rss_mb: float | None = None,
    ) -> None:
        self.timeout_s = float(step_timeout_s)
        self.max_rss_mb = max_rss_mb
        self._polled = 0.0
        self._tree: dict[int, list[int]] = {}
        self._tree_at = float("-inf")
        ctx = mp.get_context("spawn")
        self.workers = [_Worker(ctx, make_env, i, info_keys) for i in range(num_envs)]
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

    def _collect(self, indices: Sequence[int], timeout_s: float, what: str) -> dict[int, Reply]:
        """Read one reply from each of ``indices``, all within ``timeout_s`` from now.

        A worker that does not answer in time is killed (``GameHang``); one whose pipe
        reads EOF has died (``GameProcessDied``). Both are restarted on the next reset.
        """
        waiting = {self.workers[i].conn: i for i in indices}
        replies: dict[int, Reply] = {}
        deadline = time.monotonic() + timeout_s
        poll = MEMORY_POLL_S if self.max_rss_mb is not None else float("inf")
        while waiting:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for i, error in self._over_memory(list(waiting.values())).items():
                waiting = {c: j for c, j in waiting.items() if j != i}
                replies[i] = error
            for conn in mp_connection.wait(list(waiting), timeout=min(remaining, poll)):
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
        # A copy that answered may have gone over in the step it answered: that step is its bug.
        replies.update(self._over_memory([i for i, r in replies.items() if not isinstance(r, GameError)]))
        return replies

    def _over_memory(self, indices: Sequence[int]) -> dict[int, GameError]:
        """Kill the copies among ``indices`` whose process holds more than ``max_rss_mb``
        (read at most every :data:`MEMORY_POLL_S`), and say so for each."""
        now = time.monotonic()
        if self.max_rss_mb is None or not indices or now - self._polled < MEMORY_POLL_S:
            return {}
        self._polled = now
        if now - self._tree_at >= TREE_REFRESH_S:
            self._tree, self._tree_at = children_by_parent(), now
        over: dict[int, GameError] = {}
        for i in indices:
            if self.workers[i].running and self.workers[i].rss_mb(self._tree) > self.max_rss_mb:
                self.workers[i].kill()
                over[i] = GameError(
                    type="GameOutOfMemory", where="",
                    message=f"game process held more than game.max_rss_mb = {self.max_rss_mb:g} MiB",
                )
        return over

    def _send_all(
        self, indices: Sequence[int], command: str, args: Sequence[Any]
    ) -> tuple[list[int], dict[int, Reply]]:
        """Send to every worker first (so they run in parallel); split sent from dead."""
        sent: list[int] = []
        dead: dict[int, Reply] = {}
        for i, arg in zip(indices, args):
            if self.workers[i].send((command, arg)):
                sent.append(i)
            else:
                dead[i] = self.workers[i].died()
        return sent, dead

    def reset(self, seeds: Sequence[int]) -> list[Reply]:
        replies: dict[int, Reply] = {}
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

    def step(self, indices: Sequence[int], actions: Sequence[int]) -> list[Reply]:
        sent, dead = self._send_all(indices, "step", actions)
        replies = self._collect(sent, self.timeout_s, "step")
        replies.update(dead)
        return [replies[i] for i in indices]

    def render(self) -> list[Reply]:
        """Every copy's frame (:meth:`games.gym_copy.GameCopy.render`), awaited as a step is."""
        indices = range(len(self.workers))
        sent, dead = self._send_all(indices, "render", [None] * len(self.workers))
        replies = self._collect(sent, self.timeout_s, "render")
        replies.update(dead)
        return [replies[i] for i in indices]

    def close(self) -> None:
        self._finalizer()


def _startup_error(error: GameError, index: int = 0) -> Exception:
    """The exception a failed start raises in the parent: a ValueError stays one (it is how
    an unsuitable game is reported), anything else becomes a one-line RuntimeError."""
    if error.type == "GameSpecError":
        return GameSpecError(error.message)
    if error.type == "ValueError":
        return ValueError(error.message)
    if error.type == "GameOutOfMemory":  # the bound is below what the game needs at all
        return GameSpecError(f"game.max_rss_mb: {error.message} as soon as it started; raise the bound")
    return RuntimeError(
        f"game copy {index} could not be created in its worker process: "
        f"{error.type}: {error.message}"
    )
