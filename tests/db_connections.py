"""Every database connection a test process opened, closed before its test databases are dropped.

PostgreSQL refuses to drop a database a connection still uses: the run then ends with "Error when
trying to teardown test databases ... being accessed by other users" (an error, pyproject.toml)
and leaves the database behind. Django closes the connections of `django.db.connections` as the
teardown sees it, but that holds one connection per thread and per context: a connection opened
in another context of the same thread stays open until it is garbage collected. Playwright's
sync API runs the browser tests' code in greenlets, each with its own context: one PostgreSQL
run in two ended with the tests' own connection, idle after a rollback, left open by the process
that ran the browser package. So every connection is tracked as it is made
(`connection_created`), and those still open are closed before the databases are dropped,
whichever thread or context opened them.
"""

from __future__ import annotations

import weakref
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

_opened: weakref.WeakSet[BaseDatabaseWrapper] = weakref.WeakSet()


def _track(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    _opened.add(connection)


def track() -> None:
    """From now on, remember every connection this process opens."""
    connection_created.connect(_track, dispatch_uid="tests.db_connections")


def close_opened() -> int:
    """Close every remembered connection still open; how many were."""
    closed = 0
    for wrapper in list(_opened):
        if wrapper.connection is None:
            continue
        wrapper.inc_thread_sharing()  # it may belong to another thread (closed from here)
        try:
            wrapper.close()
        finally:
            wrapper.dec_thread_sharing()
        closed += 1
    return closed
