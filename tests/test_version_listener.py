"""The per-process library version on PostgreSQL (incidents.selectors.version_listener): a write
committed by another process is seen on this process's next request once its notification has
arrived; a dropped listener means reading the version on every request again, and a reconnected
one reads it afresh. Committed writes (transactional tests), PostgreSQL only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from incidents.models import LibraryState
from incidents.selectors import library_version, version_listener
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
