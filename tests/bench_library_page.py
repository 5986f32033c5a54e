"""Benchmark (not a test): the library page and suggest_filters, on the real library and at scale.

    /work/venv/bin/pytest tests/bench_library_page.py -s -q                    # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/incidents \\
        /work/venv/bin/pytest tests/bench_library_page.py -s -q                # PostgreSQL

Prints median response times and query counts for `/`, a sentence search, and the htmx
partial, with the seeded library and with 5,000 synthetic cases added; and suggest_filters on
the issue's sentence and on a 20,000-character pasted postmortem.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from incidents.services import load_library
from incidents.suggest import suggest_filters
from tests.bulk import add_cases

SENTENCE = "our+nccl+timeouts+came+from+a+leaking+data+loader"
URLS = {
    "/": {},
    "/?symptom=nccl-timeout&not_organisation=meta": {},
    f"/?q={SENTENCE}": {},
    f"/?q={SENTENCE} (htmx)": {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "library-region"},
    "/?q=checkpoint": {},
}


def _median_ms(action: Callable[[], object], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _report(client: Client, label: str) -> None:
    print(f"\n{label} on {connection.vendor}:")
    for name, headers in URLS.items():
        url = name.removesuffix(" (htmx)")
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url, **headers).status_code == 200
        queries = len(ctx.captured_queries)  # now: the next request resets the log
        ms = _median_ms(lambda url=url, headers=headers: client.get(url, **headers))
        print(f"  {name:60} {ms:8.1f} ms  {queries:3} queries")


@pytest.mark.django_db
def test_benchmark_library_page(client: Client) -> None:
    load_library([settings.FIXTURES_DIR])
    _report(client, "Seeded library")
    text = SENTENCE.replace("+", " ")
    print(f"  suggest_filters(sentence)   {_median_ms(lambda: suggest_filters(text)):8.1f} ms")
    pasted = ("Our training job hung; the NCCL watchdog fired and ECC errors rose. " * 300)[:20_000]
    print(f"  suggest_filters(20 kB text) {_median_ms(lambda: suggest_filters(pasted), 3):8.1f} ms")
    add_cases(5000)
    _report(client, "Seeded library + 5,000 synthetic cases")
