"""What rendered fragments that depend only on the library are cached under.

A fragment (a case page's card, a row of the library's list) changes only when the library does,
so it is cached under the library's version (`selectors.library_version`): the process's copy,
kept fresh by LISTEN/NOTIFY on PostgreSQL, or one query per request on SQLite or with
`LIBRARY_VERSION_LISTEN=0`. When a worker or replica sees a committed write, and so stops serving
the older fragments, is what selectors.version_listener and README's "How a process learns of a
write" say. Inside a transaction nothing is cached, as the version read there may be one the
transaction itself is writing and may roll back.
"""

from __future__ import annotations

from django.db import connections

from incidents.selectors import library_version
from incidents.selectors.library_version import LibraryVersion


def key_of(version: LibraryVersion) -> str:
    """A version as a cache key: number and time (a number alone can come back after a
    rolled-back write)."""
    return f"{version.number}.{version.changed_at.timestamp()}"


def version_key(using: str = "default") -> str:
    """The committed library version as a cache key (selectors.library_version: the process's
    copy or one query), or "" inside a transaction."""
    version = committed_version(using)
    return key_of(version) if version is not None else ""


def committed_version(using: str = "default") -> LibraryVersion | None:
    """The committed library version (the process's copy or one query, as
    selectors.library_version reads it), or None inside a transaction, where the
    version read may be one the transaction itself is writing: nothing may be cached then."""
    if connections[using].in_atomic_block:
        return None
    return library_version.current(using)
