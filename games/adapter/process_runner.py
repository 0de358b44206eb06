"""Game copies in worker processes: a hang or a dying process is a finding on one copy.

With ``step_timeout_s`` set, :class:`games.adapter.vector_game.GymVectorGame` runs each copy in
its own process (:mod:`games.adapter.worker`), talking over a ``Pipe``. A step is sent to every
worker before any reply is read, so the copies run in parallel. A copy that does not answer
within its wait (:mod:`games.adapter.step_waits`) is killed and reported as ``GameHang``, one
whose pipe reads EOF as ``GameProcessDied``, and one over its memory bounds
(:mod:`games.adapter.memory_watch`) as ``GameOutOfMemory``; all restart on the next reset.
``make_env`` must be picklable (a module-level function or class, a ``functools.partial`` of
one, or a ``GameFactory.make_env``); scripts that use this mode need the usual
``if __name__ == "__main__":`` guard of ``spawn``.

Steps an agent chose in advance are sent ahead (:meth:`ProcessRunner.plan`): a copy plays them
from one message and replies step by step, each reply awaited as a step's is.

Copies start a few at a time (:func:`games.adapter.worker.start_slots`, one per usable core), the next as soon as
one has answered, and each has ``start_timeout_s`` from its own process's start: 120 copies
started at once on 2 cores shared them 60 ways, and the last ones missed the one deadline they
all had. A copy that cannot start (its game raises, its process dies, or it misses its
deadline) ends the game's making with one :class:`GameStartError`; one restarted at a reset is
a crash bug of that copy instead.
"""

from __future__ import annotations

import math
import multiprocessing.connection as mp_connection
import os
import select
import pickle
import time
import weakref
from collections import deque
from typing import Any, Callable, Sequence

import gymnasium as gym

from games.core.base import GameError, GameSpec, GameSpecError
from games.core.start_error import GameStartError
from games.adapter.game_copy import FIRST_RESETS, Reply
from games.adapter.step_waits import StepWaits, hang_message
from games.adapter.worker import STOPPED, Worker, copy_context, start_slots, stop_workers
from games.adapter.memory_watch import MemoryWatch

START_TIMEOUT_S = 60.0
"""How long a copy may take to start, by default (``game.start_timeout_s``): from its worker
process's fork, import the game, run ``make_env`` (and, for a game without a spec, its first
reset). Generous because imports are slow on a loaded machine and a false alarm here costs an
episode, or the run."""
RESET_TIMEOUT_FLOOR_S = 30.0
"""A reset is awaited ``max(step_timeout_s, this)``: resets load levels and may legitimately
take far longer than a frame."""
MIN_WAIT_S = 1.0
"""The least extra wait a copy gets that was still allocating when its wait ran out."""
WORKER_FAULTS = ("GameHang", "GameProcessDied", "GameOutOfMemory")
"""How a worker's process fails, as opposed to an exception the game raised in it."""


class ProcessRunner:
    """The isolated path: one spawn worker per copy, every reply awaited with a timeout."""

    def __init__(
        self, make_env: Callable[[], gym.Env], num_envs: int, step_timeout_s: float,
        info_keys: Sequence[str] = (), max_rss_mb: float | None = None, spec: GameSpec | None = None,
        start_timeout_s: float | None = None, learn_timeout: bool = False,
    ) -> None:
        self.timeout_s = float(step_timeout_s)
        self.waits = StepWaits(self.timeout_s, learn_timeout, spec)
        """How long each copy's step is awaited (learned, short at a place known to hang)."""
        self.start_timeout_s = float(START_TIMEOUT_S if start_timeout_s is None else start_timeout_s)
        self.start_slots = start_slots()
        self.label = _label(make_env)
        """The game's name in a :class:`GameStartError` (:meth:`games.registry.GameFactory.make_vector`
        puts the factory's label there)."""
        self._unmade: set[int] = set()
        """Copies whose last start failed before ``make_env`` returned (:meth:`_start_copies`)."""
        self._planned: dict[int, deque[int]] = {}
        """Per copy, the actions sent ahead (:meth:`plan`) whose replies are still to be read."""
        self._unsent: dict[int, GameError] = {}  # copies found dead as their plan was sent
        ctx = copy_context()
        self.workers = [Worker(ctx, make_env, i, info_keys) for i in range(num_envs)]
        self.memory = MemoryWatch(self.workers, max_rss_mb)
        # Stops the workers when the game is garbage-collected or the interpreter exits
        # without close(); close() calls it too (it runs once).
        self._finalizer = weakref.finalize(self, stop_workers, self.workers)
        try:
            # A game without a known spec is read from one worker first (see _first_spec).
            self.spec: GameSpec = spec if spec is not None else self._first_spec()
            rest = range(len(self.workers)) if spec is not None else range(1, len(self.workers))
            for w in self.workers:
                w.spec = self.spec
            self.waits.spec = self.spec
            for i, reply in self._start_copies(rest, stop_at_error=True).items():
                if isinstance(reply, GameError):
                    raise self._startup_error(reply, i, known=spec is not None)
        except BaseException:
            self.close()
            raise

    def _start(self, i: int) -> None:
        try:
            self.workers[i].start()
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise ValueError(
                "isolated game copies run each in its own process, so make_env must be "
                "picklable (a module-level function or class, or a functools.partial of one); "
                f"got {self.workers[i]._make_env!r} ({exc})"
            ) from exc

    def _first_spec(self) -> GameSpec:
        """Start the first worker and read the game's spec from it. A game without a spec
        is reset there to count its features; where that reset kills, hangs or bloats the
        worker, the next seed is tried in a fresh one (:data:`games.adapter.game_copy.FIRST_RESETS`):
        the episodes that fault are play, and play reports them."""
        first = self.workers[0]
        while True:
            reply = self._start_copies([0])[0]
            # A worker fault after the game was made is its first reset's; one before is its
            # making's, which another seed does not change.
            if (isinstance(reply, GameError) and reply.type in WORKER_FAULTS and 0 not in self._unmade
                    and first.first_seed + 1 < FIRST_RESETS):
                first.first_seed += 1
                continue
            if isinstance(reply, GameError):
                raise self._startup_error(reply)
            return reply

    def _start_copies(self, indices: Sequence[int], stop_at_error: bool = False) -> dict[int, Reply]:
        """Start the copies ``indices`` and read each one's first reply: its spec, or why it
        could not start.

        At most :attr:`start_slots` copies are starting at any time, the next started as soon
        as one has answered, and each is given :attr:`start_timeout_s` from its own process's
        start; one that has not answered by then is killed (``GameHang``). A copy that failed
        before its game was made (the worker's ``("made", None)``) is in :attr:`_unmade`. With
        ``stop_at_error``, the first copy that fails ends it: the copies not started yet are
        not, and the caller raises (a game that cannot start would otherwise cost one deadline
        per slot's worth of copies).
        """
        todo = list(indices)[::-1]
        deadlines: dict[int, float] = {}
        waiting: dict[mp_connection.Connection, int] = {}
        made: set[int] = set()
        self._unmade.difference_update(indices)
        replies: dict[int, Reply] = {}
        poll = self.memory.poll_s

        def done(i: int, reply: Reply) -> None:
            if isinstance(reply, GameError) and i not in made:
                self._unmade.add(i)
            del deadlines[i]
            for conn in [c for c, j in waiting.items() if j == i]:  # at most start_slots of them
                del waiting[conn]
            replies[i] = reply

        while todo or deadlines:
            if stop_at_error and any(isinstance(r, GameError) for r in replies.values()):
                break
            while todo and len(deadlines) < self.start_slots:
                i = todo.pop()
                self._start(i)
                deadlines[i] = time.monotonic() + self.start_timeout_s
                waiting[self.workers[i].conn] = i  # type: ignore[index]
            now = time.monotonic()
            for i in [i for i, d in deadlines.items() if d <= now]:
                self.workers[i].kill()
                message = f"start did not return within {self.start_timeout_s:g} s (game.start_timeout_s)"
                done(i, GameError(type="GameHang", message=message))
            for i, error in self.memory.over(list(deadlines)).items():
                done(i, error)
            if not deadlines:
                continue
            remaining = max(min(deadlines.values()) - now, 0.0)
            for conn in mp_connection.wait(list(waiting), timeout=min(remaining, poll)):
                i = waiting[conn]  # type: ignore[index]
                try:
                    status, payload = conn.recv()  # type: ignore[union-attr]
                except (EOFError, OSError):
                    done(i, self.workers[i].died())
                    continue
                if status == "made":  # the game is made; its spec (a first reset) comes next
                    made.add(i)
                    continue
                done(i, payload)
                if status == "error":
                    self.workers[i].stop()  # make_env failed: the worker is exiting
        # A copy that answered may have gone over as it started: that start is its bug.
        replies.update(self.memory.over([i for i, r in replies.items() if not isinstance(r, GameError)]))
        return replies

    def _startup_error(self, error: GameError, index: int = 0, known: bool = False) -> Exception:
        """The exception a failed start raises in the parent: a ValueError stays one where the
        game is read for the first time (it is how an unsuitable game is reported), anything
        else becomes a :class:`GameStartError`, and so does a ValueError of a game already
        read (``known``: a worker's copies, made with the spec the run read from a first one,
        which the same kwargs made)."""
        if error.type == "GameSpecError":
            return GameSpecError(error.message)
        if error.type == "ValueError" and not known:
            return ValueError(error.message)
        if error.type == "GameOutOfMemory":  # the bound is below what the game needs at all
            return GameSpecError(f"game.max_rss_mb: {error.message} as soon as it started ({error.detail}); "
                                 "raise the bound")
        if error.type == "GameHang":
            why = "making the game" if index in self._unmade else "its first reset"
            return GameStartError(
                f"game copy {index} of {len(self.workers)} did not start within game.start_timeout_s = "
                f"{self.start_timeout_s:g} s ({why} took longer); raise game.start_timeout_s for a game "
                "this slow to start", index, self.label,
            )
        first = (error.message.strip().splitlines() or [""])[0]
        return GameStartError(f"{error.type}: {first} (game copy {index}, in its worker process)", index, self.label)

    def _collect(self, indices: Sequence[int], deadline: float | dict[int, float], what: str) -> dict[int, Reply]:
        """Read one reply from each of ``indices``, each by its ``deadline`` (``time.monotonic()``;
        one for all, or one per copy). A reply already sent is read even where its deadline
        has passed while this process was busy: the copy answered.

        A worker that has not answered by then is killed (``GameHang``; a step's place is then
        known to hang, :class:`games.adapter.step_waits.StepWaits`), unless it is allocating
        (:meth:`MemoryWatch.growing`: it is given another wait); one whose pipe reads EOF has
        died (``GameProcessDied``). Both are restarted on the next reset.
        """
        waiting = {self.workers[i].conn: i for i in indices}
        replies: dict[int, Reply] = {}
        deadlines = dict(deadline) if isinstance(deadline, dict) else dict.fromkeys(indices, deadline)
        since = dict.fromkeys(indices, time.monotonic())
        poll = self.memory.poll_s
        # One poll set for the whole collection, not one per wait: 16 copies streaming their
        # planned steps are read a few replies a wake-up.
        poller, fds = select.poll(), {conn: conn.fileno() for conn in waiting}  # type: ignore[union-attr]
        by_fd = {fd: conn for conn, fd in fds.items()}
        for fd in by_fd:
            poller.register(fd, select.POLLIN)

        def drop(conn: Any) -> int:
            poller.unregister(fds[conn])
            del by_fd[fds[conn]]
            return waiting.pop(conn)

        while waiting:
            remaining = max(min(deadlines[i] for i in waiting.values()) - time.monotonic(), 0.0)
            for fd, _ in poller.poll(math.ceil(min(remaining, poll) * 1000)):
                if fd not in by_fd:
                    continue
                i = drop(by_fd[fd])
                try:
                    status, payload = self.workers[i].conn.recv()  # type: ignore[union-attr]
                except (EOFError, OSError):
                    replies[i] = self.workers[i].died()
                    continue
                replies[i] = payload
                if status == "error" and what == "start":
                    self.workers[i].stop()  # make_env failed: the worker is exiting
            now = time.monotonic()
            for i in [i for i in waiting.values() if deadlines[i] <= now and self.memory.growing(i, since[i])]:
                # a leak under memory pressure is slow, not hung: another wait
                deadlines[i], since[i] = now + max(deadlines[i] - since[i], MIN_WAIT_S), now
            for conn in [c for c, i in waiting.items() if deadlines[i] <= now]:
                i = drop(conn)
                self.workers[i].kill()
                if what == "step":
                    self.waits.hung(i)
                replies[i] = GameError(type="GameHang", message=hang_message(what, deadline), where="")
            for i, error in self.memory.over(list(waiting.values())).items():
                drop(next(c for c, j in waiting.items() if j == i))
                replies[i] = error
        # A copy that answered may have gone over in the step it answered: that step is its bug.
        replies.update(self.memory.over([i for i, r in replies.items() if not isinstance(r, GameError)]))
        return replies

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

    def plan(self, indices: Sequence[int], actions: Sequence[Sequence[int]]) -> None:
        """Send copies ``indices`` the actions of their next steps in one message each: the
        worker plays them one after another and sends each step's reply at once
        (:func:`games.adapter.worker._play_planned`), and :meth:`step` reads them as it is
        asked for those actions, each within ``step_timeout_s`` as ever: no round trip a step
        (``docs/guides/reliability.md``)."""
        self._drain()
        for i, acts in zip(indices, actions):
            acts = [int(a) for a in acts]
            if not acts:
                continue
            if self.workers[i].send(("steps", acts)):
                self._planned[i] = deque(acts)
                self.waits.started([i], time.monotonic())
            else:
                self._unsent[i] = self.workers[i].died()

    def _drain(self) -> None:
        """Stop the planned steps nobody asked for (a batch cut short by its deadline): each
        copy is told to stop, finishes the step it is in, and says so; its replies till then
        are dropped. A copy that hangs in that step is killed, and restarted at its reset."""
        pending = [i for i, queue in self._planned.items() if queue]
        self._planned.clear()
        sent, dead = self._send_all(pending, "stop", [None] * len(pending))
        for i in dead:
            self.workers[i].died()
        while sent:
            now = time.monotonic()  # a copy whose plan is long over is still given time to say so
            deadlines = {i: max(d, now + self.waits.wait_s(i)) for i, d in self.waits.deadlines(sent).items()}
            replies = self._collect(sent, deadlines, "step")
            self.waits.moved_all(replies)
            sent = [i for i, r in replies.items() if not isinstance(r, (GameError, str))]

    def _took(self, replies: dict[int, Reply]) -> None:
        """Forget the plans of copies whose episode (or process) ended with these replies: the
        worker stopped playing its plan there."""
        for i, reply in replies.items():
            if not isinstance(reply, GameError):
                self.memory.stepped(i)
            if isinstance(reply, GameError) or reply.terminated or reply.truncated:
                self._planned.pop(i, None)

    def reset(self, seeds: Sequence[int], starts: Sequence[bytes | None] | None = None,
              every: int = 0) -> list[Reply]:
        """As :meth:`games.adapter.in_process.InProcessRunner.reset`."""
        self._drain()
        self._unsent.clear()
        replies: dict[int, Reply] = {}
        restart = [i for i, w in enumerate(self.workers) if not w.running]
        if restart:  # a copy that cannot start again is a crash bug of its own
            for i, reply in self._start_copies(restart).items():
                if isinstance(reply, GameError):
                    replies[i] = reply
        todo = [i for i in range(len(self.workers)) if i not in replies]
        back = [i for i in todo if starts is not None and starts[i] is not None]
        fresh = [i for i in todo if i not in back]
        sent, dead = self._send_all(fresh, "reset", [(int(seeds[i]), every) for i in fresh])
        restored, gone = self._send_all(back, "restore", [(starts[i], every) for i in back])  # type: ignore[index]
        sent, dead = sent + restored, {**dead, **gone}
        replies.update(dead)
        replies.update(self._collect(sent, time.monotonic() + max(self.waits.full_s, RESET_TIMEOUT_FLOOR_S), "reset"))
        self.waits.moved_all(replies)
        return [replies[i] for i in range(len(self.workers))]

    def step(self, indices: Sequence[int], actions: Sequence[int]) -> list[Reply]:
        """One step of each copy of ``indices``: a planned one's next reply, or ``action`` sent now.

        Raises:
            RuntimeError: a copy asked for another action than the one planned (an agent
                whose plan was not what it played: an engine bug).
        """
        ahead, fresh = [], []
        for i, action in zip(indices, actions):
            if not self._planned.get(i):
                fresh.append((i, action))
                continue
            planned = self._planned[i].popleft()
            if planned != int(action):
                raise RuntimeError(f"game copy {i} was sent action {planned} ahead, then asked for {int(action)}")
            ahead.append(i)
        replies: dict[int, Reply] = {i: self._unsent.pop(i) for i, _ in fresh if i in self._unsent}
        fresh = [(i, a) for i, a in fresh if i not in replies]  # found dead as their plan was sent
        sent, dead = self._send_all([i for i, _ in fresh], "step", [a for _, a in fresh])
        self.waits.started(sent, time.monotonic())
        replies.update(self._collect(sent + ahead, self.waits.deadlines(sent + ahead), "step"))
        replies.update(dead)
        self._took(replies)
        self.waits.moved_all(replies)
        return [replies[i] for i in indices]

    def render(self) -> list[Reply]:
        """Every copy's frame (:meth:`games.adapter.game_copy.GameCopy.render`), awaited as a step is."""
        self._drain()
        indices = range(len(self.workers))
        sent, dead = self._send_all(indices, "render", [None] * len(self.workers))
        replies = self._collect(sent, time.monotonic() + self.waits.full_s, "render")
        replies.update(dead)
        return [replies[i] for i in indices]

    def close(self) -> None:
        self._finalizer()


def _label(make_env: Callable[[], gym.Env]) -> str:
    """A name for the game ``make_env`` makes: a :class:`games.registry.GameFactory`'s label,
    else the function's or class's name."""
    label = getattr(getattr(make_env, "__self__", None), "label", None)
    if isinstance(label, str):
        return label
    fn = getattr(make_env, "func", make_env)  # a functools.partial
    return str(getattr(fn, "__qualname__", None) or fn)

