"""tests/db_connections.py: a connection opened in a context the teardown does not see (as the
browser tests' greenlets open them) is closed before the test databases are dropped."""

from __future__ import annotations

import contextvars

import pytest
from django.db import connection
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from tests import db_connections


def _open_here() -> BaseDatabaseWrapper:
    opened = connections["default"]
    opened.ensure_connection()
    return opened


@pytest.mark.django_db(transaction=True)  # no transaction held open: closing is harmless
def test_a_connection_of_another_context_is_closed() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("an in-memory SQLite test database is not dropped (and its close is a no-op)")
    # A context of its own, as a greenlet starts with: Django gives it its own connection.
    other = contextvars.Context().run(_open_here)
    assert other is not connection and other.connection is not None
    assert other.settings_dict["NAME"] == connection.settings_dict["NAME"]  # the test database
    pid = other.connection.info.backend_pid
    assert db_connections.close_opened() >= 1
    assert other.connection is None
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
        assert cursor.fetchone() == (0,)
