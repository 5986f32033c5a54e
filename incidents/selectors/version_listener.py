"""A per-process copy of the library's version on PostgreSQL, kept fresh by LISTEN/NOTIFY.

Every write bumps the version (services.library_version.bump) and sends a NOTIFY on CHANNEL in
the same transaction, so PostgreSQL delivers it to every listening session when, and only if, the
write commits. Each process (per database alias) keeps one listening connection in a daemon
thread; `library_version.current()` answers from the process's copy instead of a query while
that copy is known fresh (`Listener.get`):

- the listener is connected and heard from PostgreSQL within SILENCE_SECONDS;
- it is not in the middle of handling a wake-up (a notification, its ping or a reconnection);
- its socket holds nothing unread (a notification, or the end of a dropped connection, that
  arrived but that the thread has not handled yet is treated as a change);
- nothing invalidated the copy since it was read: every notification, every ping (each
  PING_SECONDS of silence, so no copy is older than that) and every connect and disconnect moves
  the listener's generation, and a copy is kept only under the generation it was read at.

Otherwise the version is read from the database, as on SQLite and inside a transaction. So a
write committed by another process is seen on this process's first request after its
notification reaches this process's socket (PostgreSQL sends it as the write commits; the
writer's own process forgets its copy at commit, so it sees its writes at once). A dropped or
silent listener (the database restarted or unreachable) means reading on every request, and so
the 503 when the database cannot be reached; it reconnects with backoff (doubling after every
failure, connecting or listening, and back to the start only once a wake-up was handled) and
reads again then. A forked child (a gunicorn worker) starts with no listener of its own: the
parent's, and its lock, are forgotten at fork.
"""

from __future__ import annotations

import os
import select
import threading
import time
from typing import TYPE_CHECKING
from typing import Any

import psycopg

if TYPE_CHECKING:
    from incidents.selectors.library_version import LibraryVersion

CHANNEL = "incidents_library_version"
# A listener with no notification pings its connection this often (and the copy is read again).
PING_SECONDS = 5.0
# A listener not heard from for this long (a ping stuck on a silent network) is not trusted.
SILENCE_SECONDS = 3 * PING_SECONDS
# Seconds before reconnecting after a failure, doubled after each further one up to the maximum.
RETRY_SECONDS = 1.0
RETRY_MAX_SECONDS = 30.0
# The listening connection's connect timeout, TCP keepalives and send timeout: a dead or
# unreachable peer is noticed in seconds.
_KEEPALIVES = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,
    "application_name": "incidents-version-listener",
}


class Listener:
    """One listening connection (a daemon thread) and the version copy it keeps fresh."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.pid = os.getpid()
        self.generation = 0
        self.connected = False
        self.busy = False
        self.heard_at = 0.0
        self.backend_pid: int | None = None
        self.notifications = 0  # how many were received (for tests and diagnostics)
        self.failures = 0  # failures since the last wake-up handled: the backoff's exponent
        self._fd = -1
        self._copy: tuple[int, LibraryVersion] | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._wake_r, self._wake_w = os.pipe()  # stop() wakes the thread waiting on its socket
        self._thread = threading.Thread(target=self._run, daemon=True, name="version-listener")
        self._thread.start()

    # --- the request's side ---------------------------------------------------------------

    def get(self) -> LibraryVersion | None:
        """The version copy if it is known fresh (see the module's docstring), else None."""
        copy = self._copy
        if copy is None or not self.connected:
            return None
        if time.monotonic() - self.heard_at > SILENCE_SECONDS:
            return None
        # In this order, against the thread's (busy, consume the socket, move the generation,
        # not busy): input that arrived is either still unread here, or being handled (busy),
        # or handled, and then the generation has moved (a closed socket polls as unread).
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        unread = poller.poll(0)
        if unread or self.busy or copy[0] != self.generation:
            return None
        return copy[1]

    def keep(self, generation: int, version: LibraryVersion) -> None:
        """Keep a version read from the database when `generation` was current: only if nothing
        invalidated it since (a notification during the read makes the read possibly old)."""
        if self.connected and generation == self.generation:
            self._copy = (generation, version)

    def invalidate(self) -> None:
        """Forget the copy: the next request reads the version."""
        with self._lock:
            self.generation += 1
            self._copy = None

    def stop(self) -> None:
        """End the thread and close its connection (waits for it)."""
        self._stopping.set()
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=2 * PING_SECONDS)
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)

    # --- the thread -----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                conn = self._connect()
            except Exception:  # noqa: BLE001 - unreachable: requests read; try again later
                self._back_off()
                continue
            try:
                conn.execute(f"LISTEN {CHANNEL}")  # fails on a read-only standby
                self._fd, self.backend_pid = conn.fileno(), conn.info.backend_pid
                self.heard_at = time.monotonic()
                with self._lock:  # anything read before listening is read again
                    self.connected = True
                    self.generation += 1
                self._listen(conn)
            except Exception:  # noqa: BLE001 - dropped: requests read until reconnected
                pass
            finally:
                with self._lock:  # the generation moves before busy clears (see get)
                    self.connected = False
                    self.generation += 1
                    self._copy = None
                self.busy = False
                conn.close()
            if not self._stopping.is_set():
                self._back_off()

    def _connect(self) -> psycopg.Connection[Any]:
        return psycopg.connect(**self.params, autocommit=True)

    def _back_off(self) -> None:
        """Wait before reconnecting: RETRY_SECONDS, doubled after each failure in a row."""
        delay = min(RETRY_SECONDS * 2 ** min(self.failures, 32), RETRY_MAX_SECONDS)
        self.failures += 1
        self._pause(delay)

    def _pause(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    def _listen(self, conn: psycopg.Connection[Any]) -> None:
        poller = select.poll()
        for fd in (self._fd, self._wake_r):
            poller.register(fd, select.POLLIN)
        while not self._stopping.is_set():
            unread = poller.poll(PING_SECONDS * 1000)
            if self._stopping.is_set():
                return
            self.busy = True
            if not unread:
                conn.execute("SELECT 1")  # a ping: raises if the connection is gone
            # Notifications that came in (or during the ping); raises at a closed connection.
            self.notifications += sum(1 for _ in conn.notifies(timeout=0))
            self.invalidate()  # before busy clears (see get)
            self.heard_at = time.monotonic()
            self.failures = 0
            self.busy = False


_listeners: dict[str, Listener] = {}
_start_lock = threading.Lock()


def listener_for(using: str, connection: Any) -> Listener:
    """This process's listener on the alias's database, started on first use (and again in a
    forked child, or when the alias now names another database)."""
    listener = _listeners.get(using)
    name = connection.settings_dict["NAME"]
    if listener is not None and listener.pid == os.getpid() and listener.params["dbname"] == name:
        return listener
    with _start_lock:
        listener = _listeners.get(using)
        if listener is None or listener.pid != os.getpid() or listener.params["dbname"] != name:
            if listener is not None and listener.pid == os.getpid():
                listener.stop()
            params = connection.get_connection_params()
            params.pop("cursor_factory", None)
            params.pop("context", None)
            listener = _listeners[using] = Listener({**params, **_KEEPALIVES})
        return listener


def invalidate_all() -> None:
    """Forget every listener's copy in this process (a write of its own has committed)."""
    for listener in list(_listeners.values()):
        listener.invalidate()


def stop_all() -> None:
    """Stop this process's listeners (tests: before their database is dropped)."""
    with _start_lock:
        for listener in _listeners.values():
            if listener.pid == os.getpid():
                listener.stop()
        _listeners.clear()


def _forget_in_child() -> None:
    """After a fork, in the child: the parent's listeners (their threads are not in the child)
    and a lock perhaps held at fork are not the child's; it starts its own on first use."""
    global _start_lock
    _listeners.clear()
    _start_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)
