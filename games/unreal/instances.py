"""The running games a process plays on: one per copy index, shared by its vector games.

The plugin serves one client at a time, so copy ``i`` of every vector game in a process plays
on the same game (``port + i``, or the binary launched for index ``i``): a run makes several
vector games (the spec's, the chunks'), and they play one after another, each episode starting
with a reset. An instance is connected when a copy first needs it, connected again after a
dropped connection, relaunched (launch mode) when its binary died or stopped answering, and
closed when its last vector game closes.
"""

from __future__ import annotations

import contextlib
import subprocess
from dataclasses import dataclass

from games.unreal.connection import Connection, UnrealLost
from games.unreal.launcher import LaunchedGame, launch
from games.unreal.settings import UnrealSettings

DEATH_WAIT_S = 0.2
"""How long a launched binary whose connection dropped is given to be seen dead."""


@dataclass
class Instance:
    """Copy ``index``'s game: its connection and, in launch mode, its binary."""

    settings: UnrealSettings
    index: int
    users: int = 0
    connection: Connection | None = None
    launched: LaunchedGame | None = None
    hung: bool = False
    """The game stopped answering without closing the connection: launch mode starts it again."""
    colors: dict[str, tuple[int, int, int]] | None = None
    """Object mask colours, read once per connection (``objects``)."""

    def ready(self) -> Connection:
        """An open connection, connecting, reconnecting or relaunching as needed.

        Raises:
            UnrealLost: no game answered within ``connect_timeout_s``.
            ValueError: launch mode: the binary is missing or its port is taken.
        """
        if self.connection is not None and self.connection.is_open:
            return self.connection
        s = self.settings
        self.colors = None
        if s.launches:
            if self.launched is None or self.hung or self.launched.process.poll() is not None:
                self._end_binary()
                self.launched = launch(s.binary, s.level, s.host, s.port + self.index if s.port else 0,
                                       s.width, s.height, s.launch_args)
            port, alive = self.launched.port, self.launched.exited
        else:
            port, alive = s.port + self.index, (lambda: None)
        self.hung = False
        connection = Connection(s.host, port, s.request_timeout_s)
        try:
            connection.open(s.connect_timeout_s, alive)
        except UnrealLost as exc:
            if not s.launches:
                raise UnrealLost(f"{exc} (copy {self.index} plays on port {s.port}+{self.index})") from None
            raise
        self.connection = connection
        return connection

    def lost(self, timed_out: bool) -> str | None:
        """The connection failed; after a timeout a launched game is started again.

        Returns:
            Launch mode: how the binary ended, when it died (a crashed game closes its
            connection as it dies: its exit is awaited :data:`DEATH_WAIT_S`); else None.
        """
        self.hung = self.hung or timed_out
        if self.connection is not None:
            self.connection.close()
        if self.launched is None or timed_out:
            return None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.launched.process.wait(timeout=DEATH_WAIT_S)
        code = self.launched.process.poll()
        if code is None:
            return None
        return f"the game binary died ({f'killed by signal {-code}' if code < 0 else f'exit code {code}'})"

    def _end_binary(self) -> None:
        launched, self.launched = self.launched, None
        if launched is not None:
            launched.end()

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        self._end_binary()


_INSTANCES: dict[tuple[UnrealSettings, int], Instance] = {}


def acquire(settings: UnrealSettings, index: int) -> Instance:
    """Copy ``index``'s game for ``settings``, shared with the vector games already using it."""
    instance = _INSTANCES.setdefault((settings, index), Instance(settings, index))
    instance.users += 1
    return instance


def release(instance: Instance) -> None:
    """One vector game less uses ``instance``; the last one closes it."""
    instance.users -= 1
    if instance.users <= 0:
        _INSTANCES.pop((instance.settings, instance.index), None)
        with contextlib.suppress(Exception):  # keep closing the others
            instance.close()
