"""Shared fixtures: the small and the seeded library, each loaded once per session.

`load_library` is the slow part of a test that needs data (the seeded library takes a second or
more). So each library is loaded once per test session, in a transaction that is rolled back,
and its rows are kept in memory (the `django_db_setup` / `django_db_blocker` pattern of
pytest-django). A test that asks for `small_library` or `seeded_library` gets those rows written
back in bulk, in its own transaction: tests that change data stay isolated, and a
`transaction=True` test (browser tests) gets them committed and flushed afterwards.

Writing the rows back is itself costly in Django (building 3,000 model instances and compiling
their inserts took about 0.35 s of CPU per test, against 0.05 s for the SQL itself), so each
process writes a library once with `bulk_create` and records the statements that sent; later
tests replay those statements (the same SQL and parameters, in the same order).
"""

from __future__ import annotations

import fcntl
import gc
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.core.management.color import no_style
from django.db import connection
from django.db import models
from django.db import transaction
from django.db.models.signals import post_migrate

from incidents.models import SearchIndex
from incidents.models.search import SEARCH_INDEX_TABLE
from incidents.selectors import facet_index
from incidents.services import load_library
from incidents.services.library_version import bump
from tests import db_connections
from tests.lexicons import lexicons_kept_by_signature
from tests.lexicons import restored
from tests.migrated_once import share_migrations
from tests.scheduling import pytest_xdist_make_scheduler  # noqa: F401 (the hook: xdist scopes)

DATA = Path(__file__).parent / "data"
SMALL_LIBRARY = DATA / "library"
REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = REPO_ROOT / "fixtures"

Snapshot = list[tuple[type[models.Model], list[dict[str, Any]]]]
# The search index (an FTS5 table on SQLite) is not a Django table: its rows are kept as SQL.
_INDEX_COLUMNS = {
    "sqlite": ("rowid, title, summary, facets, body, tags", "%s, %s, %s, %s, %s, %s"),
    "postgresql": (f"rowid, {SEARCH_INDEX_TABLE}::text", "%s, %s::tsvector"),
}


def _library_models() -> list[type[models.Model]]:
    """The app's models, parents before the rows that point at them (not the search index,
    kept as SQL, nor the version stamp's single row, which the migrations create)."""
    return [
        model
        for model in apps.get_app_config("incidents").get_models()
        if model._meta.managed and model._meta.model_name != "librarystate"
    ]


def _index_rows() -> list[tuple[Any, ...]]:
    columns, _values = _INDEX_COLUMNS[connection.vendor]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {SEARCH_INDEX_TABLE} ORDER BY rowid")
        return list(cursor.fetchall())


def _write_index_rows(rows: list[tuple[Any, ...]]) -> None:
    columns, values = _INDEX_COLUMNS[connection.vendor]
    names = columns.replace(f"{SEARCH_INDEX_TABLE}::text", SEARCH_INDEX_TABLE)
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {SEARCH_INDEX_TABLE} ({names}) VALUES ({values})", rows)


def _take_snapshot(path: Path) -> Snapshot:
    """Load a library, read every row back, and leave the database as it was."""
    with transaction.atomic():
        load_library([path])
        snapshot = [
            (model, list(model.objects.order_by("pk").values())) for model in _library_models()
        ]
        snapshot.append((SearchIndex, [{"rows": _index_rows()}]))
        transaction.set_rollback(True)
    return snapshot


Statements = list[tuple[str, Any, bool]]
# Left to the replaying test's own transaction handling.
_TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "COMMIT")


class _Recorder:
    """An execute wrapper keeping every statement it lets through (SQL, parameters, many)."""

    def __init__(self) -> None:
        self.statements: Statements = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if many:
            params = list(params)  # an iterator would be spent by its first execution
        if not sql.lstrip().upper().startswith(_TRANSACTION_CONTROL):
            self.statements.append((sql, params, many))
        return execute(sql, params, many, context)


def _restore(snapshot: Snapshot) -> Statements:
    """Write a snapshot's rows back as they were (ids included), in one insert per table, and
    return the statements that wrote them (for `_replay`)."""
    recorder = _Recorder()
    with connection.execute_wrapper(recorder):
        _write_rows(snapshot)
    _after_restore()
    return recorder.statements


def _replay(statements: Statements) -> None:
    """Send the statements `_restore` recorded again: the same rows, without the ORM's work."""
    with connection.cursor() as cursor:
        for sql, params, many in statements:
            if many:
                cursor.executemany(sql, params)
            else:
                cursor.execute(sql, params)
    _after_restore()


def _write_rows(snapshot: Snapshot) -> None:
    for model, rows in snapshot:
        if model is SearchIndex:
            _write_index_rows(rows[0]["rows"])
            continue
        # Rows are ordered by id, so a value's parent is always written before the value.
        model.objects.bulk_create([model(**row) for row in rows])
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), _library_models()):
            cursor.execute(sql)


def _after_restore() -> None:
    if not connection.in_atomic_block:
        # Committed rows (transactional tests): bulk writes send no signals, and the caches of
        # the server under test key on the version. Inside a test's transaction nothing is
        # cached, and the test's own first write must still be the one that bumps.
        bump()


def _rewrite_migration_rows(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """Put back the rows the data migrations write (the version stamp, the Editors group) after
    a flush. A transactional test ends with a flush, which empties every table and sends
    post_migrate; without this, a test that ran after one on the same process (as pytest-xdist
    may order them) would find no version stamp and no Editors group."""
    if sender.label != "incidents":
        return
    import_module("incidents.migrations.0005_library_state").create_state(apps, None)
    editors = import_module("incidents.migrations.0006_editors_group")
    group, _ = Group.objects.using(using).get_or_create(name=editors.EDITORS)
    group.permissions.add(
        *Permission.objects.using(using).filter(
            content_type__app_label="incidents", codename__in=editors.CODENAMES
        )
    )


post_migrate.connect(_rewrite_migration_rows, dispatch_uid="tests.rewrite_migration_rows")
db_connections.track()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What is alive once the tests are collected (Django, the app, the test items) stays alive:
    the garbage collector no longer walks it (`gc.freeze`), and runs a tenth as often. The
    collector took about 15% of a process's CPU (the snapshots, lexicons and synthetic rows the
    tests hold make every pass long); cyclic garbage is still collected, later."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """pytest-django's, and under pytest-xdist on SQLite one process migrates the test
    database for all (tests/migrated_once.py)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        share_migrations(tmp_path_factory.getbasetemp().parent)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    """pytest-django's; before it drops the test databases, every connection the process opened
    is closed (tests/db_connections.py)."""
    yield
    db_connections.close_opened()


@pytest.fixture(scope="session", autouse=True)
def _lexicons(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suggestion engine's lexicon of each library built once (tests/lexicons.py)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    with lexicons_kept_by_signature(tmp_path_factory.getbasetemp().parent if worker else None):
        yield


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Every test starts with an empty cache: tests roll back, so a version number comes back
    with other rows in another test (in production it only grows). The libraries are restored
    without a bump, so that the first write of a test (bumping once per transaction, and a test
    is one transaction) still changes the version. (The browser tests that only read share
    one committed library and keep the caches warm between them: tests/browser/conftest.py.)"""
    empty_caches()


def empty_caches() -> None:
    """Empty the cache and this process's facet index (which, likewise, keys on the version)."""
    cache.clear()
    facet_index.forget()


def _snapshot_key(path: Path) -> str:
    return f"{path.relative_to(REPO_ROOT)}-{connection.vendor}".replace("/", "_")


def _shared_snapshot(path: Path, folder: Path, take: Callable[[], Snapshot]) -> Snapshot:
    """A snapshot the processes of one pytest-xdist run share: the first to need a library takes
    it and pickles it into `folder` (under a lock), the others read it (one load per run)."""
    key = _snapshot_key(path)
    pickled = folder / f"library-{key}.pickle"
    with open(folder / f"library-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if pickled.exists():
            loaded: Snapshot = pickle.loads(pickled.read_bytes())
            return loaded
        taken = take()
        pickled.write_bytes(pickle.dumps(taken))
        return taken


@pytest.fixture(scope="session")
def library_snapshot(
    django_db_setup: None,
    django_db_blocker: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[Path], Snapshot]:
    """A library's rows by folder, each library loaded at most once per session (on first use),
    and once per run when pytest-xdist runs the session in several processes."""
    taken: dict[Path, Snapshot] = {}
    # Under xdist each process has its own base temporary folder; their parent is the run's.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = tmp_path_factory.getbasetemp().parent if worker else None

    def snapshot(path: Path) -> Snapshot:
        if path not in taken:
            with django_db_blocker.unblock():
                if shared is None:
                    taken[path] = _take_snapshot(path)
                else:
                    taken[path] = _shared_snapshot(path, shared, lambda: _take_snapshot(path))
        return taken[path]

    return snapshot


@pytest.fixture(scope="session")
def library_rows(library_snapshot: Callable[[Path], Snapshot]) -> Callable[[Path], None]:
    """Write a library's rows into the test database: the first time in a process with the ORM
    (recording the statements), later by replaying them."""
    recorded: dict[Path, Statements] = {}

    def write(path: Path) -> None:
        if path in recorded:
            _replay(recorded[path])
        else:
            recorded[path] = _restore(library_snapshot(path))
            restored(_snapshot_key(path))  # its lexicon, shared by the processes too

    return write


@pytest.fixture
def small_library(db: None, library_rows: Callable[[Path], None]) -> None:
    """The three-case library of tests/data/library, as `load_library` writes it."""
    library_rows(SMALL_LIBRARY)


@pytest.fixture
def seeded_library(db: None, library_rows: Callable[[Path], None]) -> None:
    """The seeded library of fixtures/ (the real cases), as `load_library` writes it."""
    library_rows(FIXTURES)


@pytest.fixture(scope="session")
def migrated_sqlite(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """An empty, migrated SQLite database file, for tests that run a command on a fresh
    database: on SQLite a copy of this process's test database (tests leave it as migrated: they
    roll back, or flush and rewrite the migrations' rows), on PostgreSQL `manage.py migrate` once
    per run (the processes of pytest-xdist share it, as they share the library snapshots).
    Copy it before writing to it."""
    folder = tmp_path_factory.getbasetemp()
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite" and connection.creation.is_in_memory_db(name):  # type: ignore[attr-defined]
        # (Only set up when a selected test uses the database; else the subprocess below.)
        migrated = folder / "migrated.sqlite3"
        with django_db_blocker.unblock():
            connection.ensure_connection()
            with sqlite3.connect(migrated) as target:
                connection.connection.backup(target)
        return migrated
    folder = folder.parent if os.environ.get("PYTEST_XDIST_WORKER") else folder
    migrated = folder / "migrated.sqlite3"
    with open(folder / "migrated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not migrated.exists():
            making = folder / "migrating.sqlite3"
            env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
            env |= {"DEBUG": "1", "SECRET_KEY": "test-only", "DATABASE_URL": f"sqlite:///{making}"}
            subprocess.run(
                [sys.executable, str(REPO_ROOT / "manage.py"), "migrate", "--no-input", "-v0"],
                cwd=REPO_ROOT,
                env=env,
                check=True,
                timeout=120,
            )
            making.rename(migrated)
    return migrated


@pytest.fixture
def library_copy(tmp_path: Path) -> Path:
    """A writable copy of the small library, for tests that break it."""
    target = tmp_path / "library"
    shutil.copytree(SMALL_LIBRARY, target)
    return target
