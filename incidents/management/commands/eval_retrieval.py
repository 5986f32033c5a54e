"""`manage.py eval_retrieval [--half tune|report|all]`: search and suggestion quality, measured.

Prints, on the database in use (load the library first: `manage.py load_cases`), for the
sentences of tests/data/retrieval_eval.yaml: suggestion precision and recall, search recall@5 and
MRR, the p50/p95 time per search, and the substring matches of one-word probe searches. The ids
of missed sentences are listed for the tune half only: nobody tunes on the report half.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser
from django.db import connection

from incidents.evaluation.dataset import HALVES
from incidents.evaluation.dataset import load_items
from incidents.evaluation.retrieval import RetrievalReport
from incidents.evaluation.retrieval import evaluate
from incidents.management.readiness import require_rows
from incidents.models import Case


class Command(BaseCommand):
    help = "Measure search (recall@5, MRR, p95 time) and suggestions (precision, recall)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--half", choices=[*HALVES, "all"], default="report")
        parser.add_argument("--file", type=Path, default=None, help="another evaluation set")

    def handle(self, *args: Any, **options: Any) -> None:
        require_rows(Case, "The library is empty")
        halves = list(HALVES) if options["half"] == "all" else [options["half"]]
        try:
            reports = [evaluate(load_items(options["file"], half=h), h) for h in halves]
        except (OSError, KeyError, TypeError) as exc:
            raise CommandError(f"Cannot read the evaluation set: {exc}") from exc
        self.stdout.write(f"database: {connection.vendor}, cases: {Case.objects.count()}")
        for report in reports:
            self._print(report)

    def _print(self, report: RetrievalReport) -> None:
        search, suggestions = report.search, report.suggestions
        self.stdout.write(f"\n{report.half} half: {search.sentences} sentences")
        self.stdout.write(
            f"  suggestions: precision {suggestions.precision:.2f}, recall {suggestions.recall:.2f}"
            f" ({suggestions.hits} right, {suggestions.wrong} wrong, {suggestions.gold} named)"
        )
        self.stdout.write(
            f"  search: recall@5 {search.recall_at_5:.2f} ({search.found}/{search.sentences}),"
            f" MRR {search.mrr:.2f}"
        )
        self.stdout.write(
            f"  time per search: p50 {search.times.p50:.1f} ms, p95 {search.times.p95:.1f} ms"
        )
        self.stdout.write(f"  substring matches: {len(report.substring_matches)}")
        if report.half == "tune" and search.missed:
            self.stdout.write(f"  missed: {', '.join(search.missed)}")
