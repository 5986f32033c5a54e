"""Is the database there, and is its schema the code's? For /readyz and the 503 pages."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.db import DatabaseError
from django.db import InterfaceError
from django.db import OperationalError
from django.db import connections
from django.db.migrations.executor import MigrationExecutor

# Errors that mean "the database cannot be reached now" rather than a bug: answered with a 503.
UNAVAILABLE_ERRORS: tuple[type[Exception], ...] = (OperationalError, InterfaceError)


def is_database_unavailable(exc: BaseException | None) -> bool:
    """Whether an exception (or one it was raised from) says the database is unreachable."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, UNAVAILABLE_ERRORS):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


@dataclass(frozen=True)
class Readiness:
    """The database's state: reachable, the migrations not yet applied (by name), and the cache
    tables not yet made (`manage.py createcachetable`: the API's request counts)."""

    database: bool
    pending: tuple[str, ...] = ()
    error: str = ""
    missing_tables: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return self.database and not self.pending and not self.missing_tables


def cache_tables() -> tuple[str, ...]:
    """The tables the configured database caches keep their entries in."""
    return tuple(
        str(cache["LOCATION"])
        for cache in settings.CACHES.values()
        if cache["BACKEND"].endswith(("db.DatabaseCache", "caches.CountingDatabaseCache"))
    )


def readiness(alias: str = DEFAULT_DB_ALIAS) -> Readiness:
    """Connect, run one query, and compare the applied migrations with the code's."""
    connection = connections[alias]
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        tables = set(connection.introspection.table_names())
    except DatabaseError as exc:
        # Leave no broken connection behind: the next request opens a fresh one.
        connection.close_if_unusable_or_obsolete()
        return Readiness(database=False, error=type(exc).__name__)
    return Readiness(
        database=True,
        pending=tuple(f"{m.app_label}.{m.name}" for m, _ in plan),
        missing_tables=tuple(table for table in cache_tables() if table not in tables),
    )
