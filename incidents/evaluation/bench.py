"""A search benchmark on a synthetic library of realistic text: `run_benchmark(cases=10_000)`.

Synthetic cases recombine the sentences of the real cases (fixtures/): a real title, a summary
and a detection made of real sentences until the case holds about 1,000 characters, and the
facet values of a real case. Queries are sentences of the evaluation set joined until they reach
the asked length (500 characters by default). Everything is written in one transaction that is
rolled back at the end, so the database in use is left as it was.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.db import connection
from django.db import transaction

from incidents.evaluation.dataset import load_items
from incidents.evaluation.search import Latencies
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.models.search import SEARCH_INDEX_TABLE
from incidents.selectors import facet_index
from incidents.selectors.cases import case_list
from incidents.selectors.cases import case_queryset
from incidents.selectors.indexed_pages import paginator
from incidents.services.facet_links import refresh_implied_links
from incidents.services.library_files import read_library
from incidents.services.search_index import refresh_search_index

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
CASE_CHARS = 1_000
BATCH = 2_000


class _Rollback(Exception):
    """Raised to undo the synthetic library."""


@dataclass(frozen=True)
class Timing:
    """Times of one kind of request, in milliseconds: wall clock, and CPU time (this process,
    plus the PostgreSQL backend's when its /proc entry is readable), which a busy machine does
    not inflate."""

    label: str
    wall: Latencies
    cpu: Latencies
    cpu_includes_server: bool


def _backend_stat() -> Path | None:
    """/proc/<pid>/stat of this connection's PostgreSQL backend, if on this machine and readable."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone() or (0,)
    path = Path(f"/proc/{pid}/stat")
    try:
        path.read_text()
    except OSError:
        return None
    return path


def _cpu_seconds(backend: Path | None) -> float:
    used = time.process_time()
    if backend is not None:
        fields = backend.read_text().rsplit(")", 1)[1].split()
        used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return used


@dataclass(frozen=True)
class BenchResult:
    """What the benchmark measured."""

    vendor: str
    cases: int
    average_chars: float
    query_chars: float
    build_seconds: float
    timings: tuple[Timing, ...]
    load_average: float  # of the machine while timing (1 minute), to read the figures by


def _pools(fixtures: Path) -> tuple[list[str], list[str], list[list[tuple[str, str]]]]:
    """Real titles, real sentences, and the facet values (facet, slug) of each real case."""
    data = read_library([fixtures])
    titles = [c.title for c in data.cases]
    sentences: list[str] = []
    tags: list[list[tuple[str, str]]] = []
    for case in data.cases:
        for text in (case.summary, case.detection):
            sentences += [s for s in _SENTENCE.split(text or "") if len(s) > 20]
        tags.append([(facet, slug) for facet, slugs in case.facets.items() for slug in slugs])
    sentences += [s.text for s in data.shared if len(s.text) > 20]
    return titles, sentences, tags


def _text(rng: random.Random, sentences: Sequence[str], chars: int) -> str:
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < chars:
        parts.append(rng.choice(sentences))
    return " ".join(parts)


def build_library(count: int, *, seed: int = 8) -> float:
    """Add `count` synthetic cases with realistic text, index them; their average length."""
    rng = random.Random(seed)
    titles, sentences, tags = _pools(Path(settings.FIXTURES_DIR))
    value_ids = {(v.facet, v.slug): v.id for v in FacetValue.objects.all()}
    total_chars = 0
    for start in range(0, count, BATCH):
        cases = []
        for i in range(start, min(count, start + BATCH)):
            title = f"{rng.choice(titles)} ({i})"
            summary = _text(rng, sentences, int(CASE_CHARS * 0.65))
            detection = _text(rng, sentences, int(CASE_CHARS * 0.3))
            total_chars += len(title) + len(summary) + len(detection)
            cases.append(Case(slug=f"bench-{i}", title=title, summary=summary, detection=detection))
        created = Case.objects.bulk_create(cases)
        CaseFacetLink.objects.bulk_create(
            CaseFacetLink(case=case, value_id=value_ids[tag])
            for case in created
            for tag in rng.choice(tags)
            if tag in value_ids
        )
    refresh_implied_links()
    refresh_search_index()
    if connection.vendor == "postgresql":  # SQLite is analyzed by refresh_search_index
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT gin_clean_pending_list('{SEARCH_INDEX_TABLE}_document')")
            cursor.execute(f"ANALYZE {SEARCH_INDEX_TABLE}")
            cursor.execute("ANALYZE incidents_case")
            cursor.execute("ANALYZE incidents_casefacetlink")
    return total_chars / max(1, count)


def queries(count: int, chars: int, *, seed: int = 8) -> list[str]:
    """`count` queries of about `chars` characters made of evaluation sentences."""
    rng = random.Random(seed)
    texts = [item.text for item in load_items()]
    found = []
    for _ in range(count):
        parts: list[str] = []
        while sum(len(p) + 2 for p in parts) < chars:
            parts.append(rng.choice(texts))
        found.append(". ".join(parts)[:chars])
    return found


def _search(text: str) -> None:
    """What a search costs the library page: its first 20 cases and their count (the page's
    paginator: the ranked first ids, the count from the matches' postings)."""
    query = case_queryset(params={"q": text})
    page = paginator(query.filterset, 20).page(1)
    list(page.object_list)
    assert page.paginator.count >= 0


def _page(text: str) -> None:
    case_list(params={"q": text})


def _time(label: str, fn: Callable[[str], None], texts: Sequence[str]) -> Timing:
    fn(texts[0])  # warm-up
    backend = _backend_stat()
    times, cpu = [], []
    for text in texts:
        start, start_cpu = time.perf_counter(), _cpu_seconds(backend)
        fn(text)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((_cpu_seconds(backend) - start_cpu) * 1000)
    return Timing(label, Latencies(tuple(times)), Latencies(tuple(cpu)), backend is not None)


@contextmanager
def _one_index(using: str = "default") -> Iterator[None]:
    """Within the block, every request reads one facet index, built now from the synthetic
    library, as a server process reads one between writes. (A server keeps no index built inside
    a transaction for other requests, and this library is never committed.)"""
    index = facet_index.load_index(using)
    with mock.patch.dict(facet_index._indexes, {using: index}):
        yield


def run_benchmark(cases: int, *, queries_count: int = 40, query_chars: int = 500) -> BenchResult:
    """Build the synthetic library, time searches and library pages, roll everything back."""
    result: BenchResult | None = None
    texts = queries(queries_count, query_chars)
    try:
        with transaction.atomic():
            start = time.perf_counter()
            average = build_library(cases)
            built = time.perf_counter() - start
            if connection.vendor == "postgresql":
                # One process per query, so that its CPU time (read from /proc) is all of it.
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            # The facet index is built once, as a server process would between writes.
            with _one_index():
                timings = (
                    _time(f"search, {query_chars}-character query", _search, texts),
                    _time(f"library page, {query_chars}-character query", _page, texts),
                )
            result = BenchResult(
                connection.vendor,
                Case.objects.count(),
                average,
                sum(map(len, texts)) / len(texts),
                built,
                timings,
                os.getloadavg()[0],
            )
            raise _Rollback
    except _Rollback:
        pass
    assert result is not None
    return result
