"""One connection to an UnrealCV game that a timeout or a dropped socket ends for good.

Built on the ``unrealcv`` client (1.3.x), whose measured behaviour shapes this module
(``shared/ANCHORS.md``, ``unrealcv/__init__.py``):

- After one request times out, the same ``Client`` hands the late reply to the next request,
  or its receive thread dies on an id mismatch. So a timeout ends the connection: the next
  request goes through a new client.
- When the game closes the socket, the client's receive thread retries the dead socket for
  about 55 s (10 attempts with a doubling delay) before it reports the loss. Here the client
  makes no such attempt (:class:`_Client`): the request waiting for a reply fails at once,
  and the connection is over.

Every failure of the game to answer, whatever its cause, is an :class:`UnrealLost`: a crash of
the episode it happened in. An ``error ...`` reply to a command is an :class:`UnrealRefused`.
"""

from __future__ import annotations

import contextlib
import io
import logging
import socket
import time
import warnings
from typing import Callable

import unrealcv

CONNECT_POLL_S = 0.1
"""Pause between attempts to connect to a game that is not listening yet."""


class UnrealLost(ConnectionError):
    """The game stopped answering: a timeout, a dropped connection or a dead binary."""


class UnrealTimeout(UnrealLost):
    """The game kept the connection open and did not answer in time (it hangs)."""


class UnrealDied(UnrealLost):
    """The launched game binary is dead."""


class UnrealRefused(RuntimeError):
    """The game answered a command with ``error ...``."""


class _Client(unrealcv.Client):
    """The 1.3.x client without its retries of a closed socket (see the module's notes)."""

    def receive(self) -> bytes:
        """One reply's payload. A closed socket is not retried: the request waiting for a
        reply gets the ``ConnectionError`` at once (the client's own way of handing it over,
        ``recv_data_q``), and the receive thread ends."""
        sock = self.sock
        message = unrealcv.SocketMessage.ReceivePayload(sock) if sock is not None else None
        if not message:
            error = ConnectionError("the game closed the connection")
            self.recv_data_q.put(error)
            raise error
        return message

    def receive_loop_queue(self) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            super().receive_loop_queue()

    # The client warns once per connection, and a run connects again after every lost
    # connection and relaunch: "server is too old" was printed 22 to 39 times a run. Each
    # warning is shown once per process here.

    def _warn_command_capabilities_unavailable(self) -> None:
        _once("the UnrealCV server does not list its commands (plugin older than 1.1.0): "
              "requests go unchecked")
        self._capability_warning_emitted = True

    def _warn_if_command_maybe_unsupported(self, message: str) -> None:
        if self._command_capabilities_available and not any(
            self._matches_command_template(message, t) for t in self._supported_command_templates
        ):
            _once(f"the UnrealCV server does not list the command {' '.join(message.split()[:2])!r}; "
                  "it is sent anyway")


_told: set[str] = set()
"""Warnings about the server shown so far in this process."""


def _once(text: str) -> None:
    if text not in _told:
        _told.add(text)
        warnings.warn(text, UserWarning, stacklevel=2)


@contextlib.contextmanager
def _quiet_client():
    """The client prints and logs every connection attempt; a game that is still starting
    would fill the terminal. Its failures are reported by :meth:`Connection.open` instead."""
    log = logging.getLogger("unrealcv")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        log.setLevel(level)


@contextlib.contextmanager
def _handshake_deadline(seconds: float):
    """Sockets made meanwhile give up after ``seconds``: the client's ``connect`` waits for the
    ``connected to ...`` handshake with no deadline of its own, and a plugin that is serving
    another client does not answer a second one ("let the client silently timeout", in the
    plugin's ``StartMessageService``). Process-wide while it lasts: the engine makes no other
    socket meanwhile."""
    before = socket.getdefaulttimeout()
    socket.setdefaulttimeout(seconds)
    try:
        yield
    finally:
        socket.setdefaulttimeout(before)


class Connection:
    """Requests to the game at ``host:port``, each with a deadline.

    Args:
        host: Where the game listens.
        port: Its UnrealCV port.
        timeout_s: How long one request may wait for its reply.
    """

    def __init__(self, host: str, port: int, timeout_s: float) -> None:
        self.host, self.port, self.timeout_s = host, int(port), float(timeout_s)
        self.client: _Client | None = None

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def is_open(self) -> bool:
        return self.client is not None and self.client.isconnected()

    def open(self, wait_s: float, alive: Callable[[], str | None] = lambda: None) -> None:
        """Connect, trying again until ``wait_s`` has passed (a game takes a while to start
        listening; the plugin serves one client at a time, so a busy game refuses too).

        Args:
            wait_s: How long to keep trying.
            alive: Called between attempts: a reason to stop trying (the binary exited), or None.

        Raises:
            UnrealLost: no game answered in time, or ``alive`` gave a reason.
        """
        deadline = time.monotonic() + wait_s
        while True:
            client = _Client((self.host, self.port))
            with _quiet_client(), _handshake_deadline(self.timeout_s):
                ok = client.connect()
            if ok and client.sock is not None:
                client.sock.settimeout(None)  # replies wait on the request's own deadline
                self.client = client
                return
            client.disconnect()
            reason = alive()
            if reason is not None:
                raise UnrealLost(reason)
            if time.monotonic() >= deadline:
                raise UnrealLost(
                    f"no UnrealCV game answered on {self.where} within {wait_s:g} s (nothing "
                    "listens there, or another client holds it: the plugin serves one at a time)")
            time.sleep(CONNECT_POLL_S)

    def request(self, command: str) -> str | bytes:
        """Send ``command`` and wait for its reply: text, or bytes for a PNG or npy.

        Raises:
            UnrealLost: no reply within ``timeout_s`` or the connection closed; the
                connection is closed for good (:meth:`close`).
            UnrealRefused: the game answered ``error ...``.
        """
        # Messages name the command, not its arguments nor the port: a crash bug's signature
        # is its message, and one fault met from many places and copies is one bug.
        head = " ".join(command.split()[:2])
        client = self.client
        if client is None or not client.isconnected():
            raise UnrealLost(f"{head}: the connection to the game is closed")
        try:
            reply = client.request(command, timeout=self.timeout_s)
        except TimeoutError:
            self.close()
            raise UnrealTimeout(f"{head}: no reply within {self.timeout_s:g} s") from None
        except (ConnectionError, OSError) as exc:
            self.close()
            raise UnrealLost(f"{head}: the connection dropped ({exc})") from None
        if reply is None:  # the client's receive loop saw the socket close
            self.close()
            raise UnrealLost(f"{head}: the connection dropped")
        if isinstance(reply, str) and reply.startswith("error"):
            raise UnrealRefused(f"{head}: {reply}")
        return reply

    def close(self) -> None:
        """Close the socket (safe to call twice). The client's own ``disconnect`` waits up to
        2 s for its receive thread; closing the socket under it ends that thread anyway."""
        client, self.client = self.client, None
        if client is None or client.sock is None:
            return
        sock, client.sock = client.sock, None
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            sock.close()
        client.recv_num_q.put(None)  # the receive loop's quit signal
