"""`manage.py load_cases [PATH ...]`: load or update the library from its YAML files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from incidents.services import LibraryError
from incidents.services import load_library


class Command(BaseCommand):
    help = (
        "Load or update the incident library from YAML files or folders (default: fixtures/). "
        "All or nothing: on any problem nothing is written and every problem is listed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "paths", nargs="*", type=Path, help="library folders or files (default: fixtures/)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        paths: list[Path] = options["paths"] or [Path(settings.FIXTURES_DIR)]
        pending = MigrationExecutor(connection).migration_plan(
            MigrationExecutor(connection).loader.graph.leaf_nodes()
        )
        if pending:
            raise CommandError(
                f"the database is not ready: {len(pending)} migration(s) not applied; "
                "run `manage.py migrate` first; nothing was loaded"
            )
        try:
            report = load_library(paths, root=Path.cwd())
        except LibraryError as exc:
            count = len(exc.problems)
            lines = "\n".join(f"  {p}" for p in exc.problems)
            raise CommandError(
                f"{count} problem{'s' if count != 1 else ''} in the library; nothing was loaded:\n{lines}"
            ) from exc
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(
            self.style.SUCCESS(
                "Library loaded." if report.changed else "Library already up to date."
            )
        )
