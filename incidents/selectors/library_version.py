"""Reading the library's version stamp (incidents.models.library_state)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from incidents.models import LibraryState

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


def current(using: str = "default") -> LibraryVersion:
    """The committed version, in one query."""
    row = (
        LibraryState.objects.using(using)
        .filter(pk=LibraryState.SINGLETON_PK)
        .values_list("version", "changed_at")
        .first()
    )
    if row is None:
        return LibraryVersion(0, _EPOCH)
    return LibraryVersion(row[0], timezone.localtime(row[1], dt.UTC))
