"""Bumping the library's version stamp (incidents.models.library_state) on every write.

Every save or delete of a library model bumps it through signals (admin, submission, API), at most
once per transaction and inside it, so the new number commits or rolls back with the change. Write
paths that bypass signals (bulk_create, QuerySet.update) call `bump()` themselves.

On PostgreSQL the bump also sends a NOTIFY on selectors.version_listener.CHANNEL in the same
transaction, which PostgreSQL delivers to every process's listener when the write commits, and
this process forgets its own copy of the version at commit. Anything that changes the version's
row without `bump()` must send that NOTIFY too, or other processes see it only at their next ping.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import IntegrityError
from django.db import connections
from django.db import transaction
from django.db.models import F
from django.db.models.signals import post_delete
from django.db.models.signals import post_save
from django.utils import timezone

from incidents.models import LibraryState
from incidents.selectors import version_listener


def _bumped_in_this_transaction() -> None:
    """Marker callback: its presence in the connection's on-commit list means this transaction
    (or savepoint) already bumped the version. Rolled back with the savepoint that added it; run
    at commit, it makes this process read the new version on its next request."""
    version_listener.invalidate_all()


def bump(using: str = "default") -> None:
    """Make the library's version one higher, once per transaction."""
    connection = connections[using]
    if not connection.in_atomic_block:  # the row and the NOTIFY in one transaction
        with transaction.atomic(using=using):
            bump(using)
        return
    if any(entry[1] is _bumped_in_this_transaction for entry in connection.run_on_commit):
        return
    transaction.on_commit(_bumped_in_this_transaction, using=using)
    _write(using)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # delivered when (and if) the transaction commits
            cursor.execute(f"NOTIFY {version_listener.CHANNEL}")


def _write(using: str) -> None:
    now = timezone.now()
    updated = (
        LibraryState.objects.using(using)
        .filter(pk=LibraryState.SINGLETON_PK)
        .update(version=F("version") + 1, changed_at=now)
    )
    if not updated:
        try:
            with transaction.atomic(using=using):
                LibraryState.objects.using(using).create(
                    pk=LibraryState.SINGLETON_PK, version=2, changed_at=now
                )
        except IntegrityError:  # created by a concurrent writer meanwhile
            LibraryState.objects.using(using).filter(pk=LibraryState.SINGLETON_PK).update(
                version=F("version") + 1, changed_at=now
            )


def _on_write(sender: type, using: str = "default", **_: Any) -> None:
    bump(using)


def connect_signals() -> None:
    """Bump on any save or delete of the app's models (called from the app's ready())."""
    for model in apps.get_app_config("incidents").get_models():
        if model is LibraryState:
            continue
        uid = f"library-version-{model._meta.label}"
        post_save.connect(_on_write, sender=model, dispatch_uid=f"{uid}-save")
        post_delete.connect(_on_write, sender=model, dispatch_uid=f"{uid}-delete")
