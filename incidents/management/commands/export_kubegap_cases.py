"""`manage.py export_kubegap_cases`: refresh the case data kubegap cites from fixtures/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from incidents.services import LibraryError
from incidents.services.kubegap_cases import CASES_FILE
from incidents.services.kubegap_cases import export_cases


class Command(BaseCommand):
    help = "Write incidents/audit/library_cases.json (the cases kubegap cites) from fixtures/."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            text = export_cases(Path(settings.FIXTURES_DIR))
        except LibraryError as exc:
            raise CommandError(f"the fixtures have problems; nothing was written:\n{exc}") from exc
        if CASES_FILE.exists() and CASES_FILE.read_text(encoding="utf-8") == text:
            self.stdout.write("library_cases.json is already up to date.")
            return
        CASES_FILE.write_text(text, encoding="utf-8")
        self.stdout.write(self.style.SUCCESS(f"Wrote {CASES_FILE}."))
