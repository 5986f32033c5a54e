"""The test database migrated once per pytest-xdist run on SQLite, not once per process.

Each process of the suite sets up its own test database (SQLite in memory): running the
migrations took about 0.6 s of CPU in each. The first process to get there migrates as usual and
copies the migrated database into the run's temporary folder; the others copy it into their own
(SQLite's backup API, a few milliseconds) and send `post_migrate` as `migrate` would, so that its
receivers (content types, permissions, tests/conftest.py's rows) see the same signal.

Only an empty in-memory SQLite database is filled this way; any other `migrate` (PostgreSQL, a
file database, a database already migrated) runs the migrations.
"""

from __future__ import annotations

import fcntl
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from django.core.management.commands.migrate import Command
from django.core.management.sql import emit_post_migrate_signal
from django.db import connections

_migrate = Command.handle


def _empty_in_memory_sqlite(alias: str) -> bool:
    connection = connections[alias]
    if connection.vendor != "sqlite":
        return False
    name = connection.settings_dict["NAME"]
    if not connection.creation.is_in_memory_db(name):  # type: ignore[attr-defined]
        return False
    return not connection.introspection.table_names()


def share_migrations(folder: Path) -> None:
    """From now on, an empty in-memory SQLite database is migrated once for all processes
    sharing `folder` (the run's temporary folder)."""
    template = folder / "migrated-test-database.sqlite3"

    def handle(self: Command, *args: Any, **options: Any) -> Any:
        alias = options.get("database") or "default"
        if not _empty_in_memory_sqlite(alias):
            return _migrate(self, *args, **options)
        connection = connections[alias]
        with open(folder / "migrated-test-database.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not template.exists():
                result = _migrate(self, *args, **options)
                making = template.with_suffix(".making")
                with closing(sqlite3.connect(making)) as target:
                    connection.connection.backup(target)
                making.rename(template)
                return result
        connection.ensure_connection()
        with closing(sqlite3.connect(template)) as source:
            source.backup(connection.connection)
        emit_post_migrate_signal(
            options.get("verbosity", 1), options.get("interactive", False), alias
        )
        return None

    Command.handle = handle  # type: ignore[method-assign]
