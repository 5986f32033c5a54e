"""One committed library shared by the browser tests that only read (see conftest.py).

A transactional test (`@pytest.mark.django_db(transaction=True)`) writes its library, commits
it for the live server to see, and has every table flushed after it: about 0.3 s a test, and each
starts with the server's caches cold. Most browser tests only read, so they share one committed
copy instead: written when the first of them needs it, kept while the module's read-only tests
run (the server's caches stay warm between them, as in production, keyed on the library version),
and flushed when the module ends or a test that writes needs the database.

A read-only test that wrote all the same (a saved form, a session, a row added from the test)
would leave its change for the tests after it: after each one the row count of every table and
the library version are compared with what was written, and a difference fails that test (and
the copy is flushed, so the next test starts again from the library as loaded).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.db import connection
from django.db.models.signals import post_migrate

from incidents.models import LibraryState
from incidents.models.search import SEARCH_INDEX_TABLE
from tests.conftest import empty_caches

Counts = tuple[Any, ...]


def _tables() -> list[str]:
    return sorted(
        set(connection.introspection.django_table_names(only_existing=True)) | {SEARCH_INDEX_TABLE}
    )


def _row_counts(tables: list[str]) -> Counts:
    """Each table's row count and the library version, in one query."""
    quote = connection.ops.quote_name
    counts = ", ".join(f"(SELECT COUNT(*) FROM {quote(table)})" for table in tables)
    state = quote(LibraryState._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {counts}, (SELECT MAX(version) FROM {state})")
        row = cursor.fetchone()
    return tuple(zip([*tables, "library version"], row, strict=True))


class SharedLibrary:
    """The library committed for read-only tests in this process, if any."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.tables: list[str] = []
        self.counts: Counts = ()
        # A flush (a transactional test's end, or `release`) empties every table and sends
        # post_migrate: whatever was committed is gone.
        post_migrate.connect(self._flushed, dispatch_uid="tests.browser.shared_library")

    def _flushed(self, sender: Any, **kwargs: Any) -> None:
        self.path = None

    def hold(self, path: Path, write: Callable[[Path], None]) -> None:
        """Have `path`'s library committed (written outside any transaction) for the test."""
        if connection.in_atomic_block:
            raise RuntimeError("the shared library is written outside a test's transaction")
        if self.path == path:
            return
        self.release()
        write(path)  # committed as written (autocommit), the version bumped
        # Another library (or none) was committed under the same version number before: the
        # server's caches, keyed on the version, would answer with its pages.
        empty_caches()
        self.path = path
        self.tables = self.tables or _tables()
        self.counts = _row_counts(self.tables)

    def check_unchanged(self) -> list[tuple[str, Any, Any]]:
        """What a read-only test changed in the shared library (empty if nothing); a change
        flushes the copy so that the next test starts from the library as loaded."""
        if self.path is None:
            return []
        now = _row_counts(self.tables)
        changed = [
            (name, before, after)
            for (name, before), (_, after) in zip(self.counts, now, strict=True)
            if before != after
        ]
        if changed:
            self.release()
        return changed

    def release(self) -> None:
        """Flush the committed library (as a transactional test's end does)."""
        if self.path is None:
            return
        call_command("flush", verbosity=0, interactive=False, database="default")
        empty_caches()
        self.path = None
