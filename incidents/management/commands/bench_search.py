"""`manage.py bench_search --cases 10000`: search speed on a synthetic library of realistic text.

Builds `--cases` synthetic cases (real sentences of fixtures/ recombined, about 1,000 characters
each, the facet values of a real case) on the database in use, inside a transaction that is
rolled back, and prints p50/p95 of a search (first page, ranked, and its count) and of the
library page's selectors (with every facet's counts) for `--queries` queries of `--chars`
characters. Run `manage.py load_cases` first: the synthetic cases use the library's vocabulary.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser

from incidents.evaluation.bench import run_benchmark
from incidents.management.readiness import require_rows
from incidents.models import FacetValue


class Command(BaseCommand):
    help = "Time ranked search on a throw-away synthetic library of realistic text."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--cases", type=int, default=10_000)
        parser.add_argument("--queries", type=int, default=40)
        parser.add_argument("--chars", type=int, default=500, help="characters per query")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["cases"] < 1 or options["queries"] < 1 or options["chars"] < 1:
            raise CommandError("--cases, --queries and --chars must be positive")
        require_rows(FacetValue, "The vocabulary is empty")
        result = run_benchmark(
            options["cases"], queries_count=options["queries"], query_chars=options["chars"]
        )
        self.stdout.write(
            f"database: {result.vendor}, cases: {result.cases:,} "
            f"(about {result.average_chars:,.0f} characters each), built and indexed in "
            f"{result.build_seconds:.0f} s; load average {result.load_average:.1f} "
            f"on {os.cpu_count()} CPUs"
        )
        for timing in result.timings:
            self.stdout.write(
                f"  {timing.label} ({len(timing.wall.ms)} queries, "
                f"{result.query_chars:.0f} characters): "
                f"p50 {timing.wall.p50:.1f} ms, p95 {timing.wall.p95:.1f} ms; CPU time "
                f"{'(with the PostgreSQL backend) ' if timing.cpu_includes_server else ''}"
                f"p50 {timing.cpu.p50:.1f} ms, p95 {timing.cpu.p95:.1f} ms"
            )
