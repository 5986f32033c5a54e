"""The per-process library version on PostgreSQL (incidents.selectors.version_listener): a write
committed by another process is seen on this process's next request once its notification has
arrived; a dropped listener means reading the version on every request again, and a reconnected
one reads it afresh. Committed writes (transactional tests), PostgreSQL only."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from incidents.models import LibraryState
from incidents.selectors import library_version
from incidents.selectors import version_listener
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)

# How long to wait for the listener thread to notice something (not a speed figure: a bound on
# waiting for an event that normally takes milliseconds).
PATIENCE_SECONDS = 20


@pytest.fixture
def listener(settings: object, small_library: None) -> Iterator[version_listener.Listener]:
    if connection.vendor != "postgresql":
        pytest.skip("LISTEN/NOTIFY needs PostgreSQL (DATABASE_URL=postgres://...)")
    settings.LIBRARY_VERSION_LISTEN = True  # type: ignore[attr-defined]
    library_version.current()
    found = version_listener.listener_for("default", connection)
    _wait_for(lambda: found.connected, "the listener to connect")
    yield found
    version_listener.stop_all()


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {PATIENCE_SECONDS} s for {what}")
        time.sleep(0.01)


def _version_queries(run: Callable[[], object]) -> int:
    table = LibraryState._meta.db_table
    with CaptureQueriesContext(connection) as captured:
        run()
    return sum(table in q["sql"] for q in captured.captured_queries)


def _bump_in_another_process() -> None:
    """services.library_version.bump() in a process of its own, on the test database."""
    s = connection.settings_dict
    url = f"postgres://{s['USER'] or 'postgres'}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
    env = {
        **os.environ,
        "DATABASE_URL": f"{url}/{s['NAME']}",
        "DJANGO_SETTINGS_MODULE": "tests.settings",
    }
    script = (
        "import django; django.setup(); from incidents.services.library_version import bump; bump()"
    )
    subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, env=env, check=True)


def _bump_without_notifying() -> None:
    """A change of the version's row that sends no notification (raw SQL, committed)."""
    table = LibraryState._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f'UPDATE "{table}" SET "version" = "version" + 1')


def test_a_write_in_another_process_is_seen_on_the_next_request_after_its_notification(
    listener: version_listener.Listener, client: Client
) -> None:
    first = client.get("/api/cases/")
    assert first.status_code == 200
    # The same URL again: from the response cache, the version from the process's copy.
    with CaptureQueriesContext(connection) as captured:
        again = client.get("/api/cases/")
    assert captured.captured_queries == []
    assert again["ETag"] == first["ETag"]

    before = library_version.current().number
    heard = listener.notifications
    _bump_in_another_process()
    _wait_for(lambda: listener.notifications > heard, "the other process's notification")
    after = client.get("/api/cases/")
    assert after.status_code == 200
    assert after["ETag"] != first["ETag"]
    assert after["ETag"].startswith(f'"lib-{before + 1}-')


def test_a_write_of_this_process_is_seen_at_once(
    listener: version_listener.Listener, client: Client
) -> None:
    from incidents.services.library_version import bump

    before = library_version.current()
    assert _version_queries(library_version.current) == 0
    bump()  # committed: no waiting for the notification
    assert library_version.current().number == before.number + 1


def test_a_dropped_listener_falls_back_to_reading_on_every_request(
    listener: version_listener.Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(version_listener, "RETRY_SECONDS", 60.0)  # stays dropped for the test
    before = library_version.current()
    assert _version_queries(library_version.current) == 0  # the copy
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [listener.backend_pid])
    _wait_for(lambda: not listener.connected, "the listener to notice its connection dropped")

    _bump_without_notifying()
    for _ in range(2):  # every call reads, and sees the change no one announced
        assert _version_queries(library_version.current) == 1
        assert library_version.current().number == before.number + 1


def test_a_reconnected_listener_reads_the_version_again(
    listener: version_listener.Listener,
) -> None:
    library_version.current()
    assert _version_queries(library_version.current) == 0
    _bump_without_notifying()  # missed by the copy: only a new reading sees it
    expected = library_version.read().number
    dropped = listener.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [dropped])
    _wait_for(
        lambda: listener.connected and listener.backend_pid != dropped,
        "the listener to reconnect",
    )
    assert _version_queries(library_version.current) == 1
    assert library_version.current().number == expected
    assert _version_queries(library_version.current) == 0  # and keeps it again


class _Idle(version_listener.Listener):
    """A listener whose thread does nothing: its state is set by the test."""

    def _run(self) -> None:
        pass


def test_a_notification_taken_off_the_socket_but_not_yet_handled_is_not_missed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The thread's steps on a wake-up: busy, take the input off the socket, move the generation,
    # not busy. Here it takes the first two while get() looks at the socket.
    mine, theirs = socket.socketpair()
    listener = _Idle({})
    copy: Any = object()
    listener.connected, listener.heard_at, listener._fd = True, time.monotonic(), mine.fileno()
    listener.keep(listener.generation, copy)
    assert listener.get() is copy
    theirs.send(b"a notification")
    assert listener.get() is None  # unread

    def the_thread_takes_it() -> None:
        listener.busy = True
        mine.recv(100)

    real_poll, real_select = select.poll, select.select

    def poll() -> Any:
        poller = real_poll()
        checked = poller.poll

        def taking(timeout: float) -> Any:
            the_thread_takes_it()
            return checked(timeout)

        return SimpleNamespace(register=poller.register, poll=taking)

    def select_(*args: Any) -> Any:
        the_thread_takes_it()
        return real_select(*args)

    fake = SimpleNamespace(poll=poll, select=select_, POLLIN=select.POLLIN)
    monkeypatch.setattr(version_listener, "select", fake)
    assert listener.get() is None  # being handled
    mine.close(), theirs.close()
    listener.stop()


def test_a_copy_is_kept_on_a_socket_numbered_above_1023() -> None:
    # A busy process (many open files) gets high descriptors, which select() cannot watch.
    mine, theirs = socket.socketpair()
    high = os.dup2(mine.fileno(), 1500)
    listener = _Idle({})
    copy: Any = object()
    listener.connected, listener.heard_at, listener._fd = True, time.monotonic(), high
    listener.keep(listener.generation, copy)
    try:
        assert listener.get() is copy
        theirs.send(b"a notification")
        assert listener.get() is None
    finally:
        os.close(high), mine.close(), theirs.close()
        listener.stop()


class _Scripted(version_listener.Listener):
    """A listener whose connections come from a script and whose waits are recorded, not
    waited."""

    def __init__(self, script: list[_FakeConnection]) -> None:
        self.script, self.pauses = script, list[float]()
        super().__init__({})

    def _connect(self) -> Any:
        if not self.script:
            self._stopping.set()
            raise psycopg.OperationalError("the script is over")
        return self.script.pop(0)

    def _pause(self, seconds: float) -> None:
        if not self._stopping.is_set():
            self.pauses.append(seconds)


class _FakeConnection:
    """A connection whose LISTEN fails (a read-only standby) or that handles `wakeups` wake-ups
    (its socket is always readable) and then drops."""

    def __init__(self, listens: bool = False, wakeups: int = 0) -> None:
        self.listens, self.wakeups = listens, wakeups
        self._mine, self._theirs = socket.socketpair()
        self._theirs.send(b"x")
        self.info = SimpleNamespace(backend_pid=0)

    def execute(self, sql: str) -> None:
        if not self.listens:
            raise psycopg.errors.ActiveSqlTransaction("cannot execute LISTEN during recovery")

    def fileno(self) -> int:
        return self._mine.fileno()

    def notifies(self, timeout: float) -> Iterator[object]:
        if not self.wakeups:
            raise psycopg.OperationalError("the connection dropped")
        self.wakeups -= 1
        return iter(())

    def close(self) -> None:
        self._mine.close(), self._theirs.close()


def test_failures_once_connected_back_off_too_until_a_wake_up_is_handled() -> None:
    listener = _Scripted(
        [
            _FakeConnection(),  # LISTEN fails
            _FakeConnection(),
            _FakeConnection(listens=True),  # drops at its first wake-up: still failing
            _FakeConnection(listens=True, wakeups=1),  # a wake-up handled: back to the start
            _FakeConnection(),
            _FakeConnection(),
        ]
    )
    listener._thread.join(timeout=PATIENCE_SECONDS)
    assert not listener._thread.is_alive()
    first = version_listener.RETRY_SECONDS
    assert listener.pauses == [first, 2 * first, 4 * first, first, 2 * first, 4 * first]
    listener.stop()


def test_a_forked_child_starts_with_no_listener_and_a_free_lock() -> None:
    script = """
import os, sys
from incidents.selectors import version_listener as v
v._listeners["default"] = object()
v._start_lock.acquire()  # held by the parent at fork
pid = os.fork()
if pid == 0:
    os._exit(0 if not v._listeners and v._start_lock.acquire(timeout=5) else 1)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, env=env, check=False)
    assert done.returncode == 0
