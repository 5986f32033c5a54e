"""What the library's read-only commands (benchmarks, evaluations) check before they start."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import DatabaseError
from django.db.models import Model


def require_rows(model: type[Model], empty: str) -> None:
    """Stop the command, saying what to run, when the database is not migrated or `model` has no
    row yet (`empty` says what is missing: "The library is empty")."""
    try:
        if not model._default_manager.exists():
            raise CommandError(f"{empty}: run `manage.py load_cases` first.")
    except DatabaseError as exc:
        raise CommandError(
            f"The database is not ready ({exc}): run `manage.py migrate` and `load_cases`."
        ) from exc
