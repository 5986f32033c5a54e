"""The library's version stamp: one row whose number grows with every committed change.

Caches (facet indexes, rendered fragments, API responses, ETags) key on it, so every process and
replica sees a write as soon as it is committed, with PostgreSQL (or SQLite) the source of truth.
"""

from __future__ import annotations

from django.db import models


class LibraryState(models.Model):
    """A single row (pk=1): `version` is bumped in the same transaction as any change to the
    library, `changed_at` is when that happened."""

    SINGLETON_PK = 1

    version = models.BigIntegerField(default=1)
    changed_at = models.DateTimeField()

    class Meta:
        verbose_name = "library state"

    def __str__(self) -> str:
        return f"library version {self.version} ({self.changed_at:%Y-%m-%d %H:%M:%S})"
