"""Reading the library's version stamp (incidents.models.library_state).

On PostgreSQL, outside a transaction and with settings.LIBRARY_VERSION_LISTEN on (the default),
a process answers from its own copy of the version while LISTEN/NOTIFY keeps it fresh
(selectors.version_listener, whose docstring says exactly what that guarantees); otherwise, and
whenever the listener is not known connected, every call reads the row (one query).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db import connections
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from incidents.models import LibraryState
from incidents.selectors import version_listener

# What an empty database (no row yet) reports: older than any write.
_EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class LibraryVersion:
    """The library's version number and when it last changed; `etag` is a strong validator."""

    number: int
    changed_at: dt.datetime

    @property
    def etag(self) -> str:
        return f'"lib-{self.number}"'


_TABLE = LibraryState._meta.db_table
_PK = int(LibraryState.SINGLETON_PK)
# The key written into the SQL (a constant): no parameters to adapt on every request.
_SQL = f'SELECT "version", "changed_at" FROM "{_TABLE}" WHERE "id" = {_PK}'
# PostgreSQL: the time as seconds since the epoch, a float8, which the driver reads far more
# cheaply than a timestamptz (Django's loader of those is Python); to the microsecond it is the
# same instant (a float8 holds 1e9-scale seconds to a quarter of a microsecond, and
# `fromtimestamp` rounds to the nearest microsecond).
_SQL_EPOCH = (
    f'SELECT "version", EXTRACT(EPOCH FROM "changed_at")::float8 FROM "{_TABLE}" WHERE "id" = {_PK}'
)


def current(using: str = "default") -> LibraryVersion:
    """The committed version: the process's copy while the listener keeps it fresh, else read
    in one query."""
    connection = connections[using]
    if (
        connection.vendor == "postgresql"
        and not connection.in_atomic_block
        and getattr(settings, "LIBRARY_VERSION_LISTEN", False)
    ):
        listener = version_listener.listener_for(using, connection)
        version = listener.get()
        if version is None:
            generation = listener.generation  # before the read: a change during it is seen
            version = read(using)
            listener.keep(generation, version)
        return version
    return read(using)


def read(using: str = "default") -> LibraryVersion:
    """The committed version, read now in one query (written in SQL: it is read often, and the
    ORM's compiling it cost more than the query)."""
    connection = connections[using]
    postgresql = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute(_SQL_EPOCH if postgresql else _SQL)
        row = cursor.fetchone()
    if row is None:
        return LibraryVersion(0, _EPOCH)
    number, changed = row
    if postgresql:
        return LibraryVersion(int(number), dt.datetime.fromtimestamp(changed, dt.UTC))
    if isinstance(changed, str):  # SQLite without a converter for the column's type
        changed = parse_datetime(changed)
    if timezone.is_naive(changed):  # SQLite keeps UTC without an offset
        changed = changed.replace(tzinfo=dt.UTC)
    return LibraryVersion(int(number), changed.astimezone(dt.UTC))
