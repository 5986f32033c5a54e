"""Benchmark (not a test): the graph views at 1,000 and 10,000 cases; prints p50 and p95.

    make bench-graph                                                  # SQLite (in memory)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/incidents_graph make bench-graph

Runs `python -m tests.bench_graph [--runs N] [--sizes 1000,10000]`: a scratch test database,
the seeded library, then synthetic cases (tests.bulk.add_cases) up to each size; for every URL,
one warm-up request and N timed ones through Django's test client (in process, no network),
with the number of queries, the time the database took for them (Django's own timing of
each query: the SQL floor) and the p95 of this process's CPU time per request (the Python side,
less sensitive than wall time to other work on a shared machine). Nothing is asserted: the tests pin query counts and the overview's
budget; this prints what the time is.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ.setdefault("DATABASE_URL", "sqlite://:memory:")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

URLS = [
    "/graph/data.json",
    "/graph/",
    "/graph/panel/",
    "/graph/data.json?focus=symptom:nccl-timeout&from=case:acme-seren-kalos-pretraining-failures",
    "/graph/data.json?focus=case:acme-seren-kalos-pretraining-failures",
    "/graph/data.json?symptom=nccl-timeout&q=timeout",
]


def percentile(times: list[float], share: float) -> float:
    """The nearest-rank percentile (p95 of 20 runs is the 19th fastest)."""
    ordered = sorted(times)
    rank = max(1, round(share * len(ordered) + 0.5 - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def measure(client: Client, label: str, runs: int) -> None:
    print(f"\n{label} on {connection.vendor}, {runs} runs each")
    print(f"  {'url':96} {'p50 ms':>8} {'p95 ms':>8} {'queries':>7} {'SQL ms':>7} {'CPU p95':>8}")
    for url in URLS:
        assert client.get(url).status_code == 200, url  # warm caches
        times, sql, cpu = [], [], []
        for _ in range(runs):
            with CaptureQueriesContext(connection) as ctx:
                start, start_cpu = time.perf_counter(), time.process_time()
                response = client.get(url)
                times.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
            assert response.status_code == 200, (url, response.status_code)
            sql.append(sum(float(q["time"]) for q in ctx.captured_queries) * 1000)
        print(
            f"  {url:96} {statistics.median(times):8.1f} {percentile(times, 0.95):8.1f}"
            f" {len(ctx.captured_queries):7d} {statistics.median(sql):7.1f}"
            f" {percentile(cpu, 0.95):8.1f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sizes", default="1000,10000", help="library sizes, comma-separated")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))

    from incidents.models import Case
    from incidents.services import load_library
    from tests.bulk import add_cases

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        call_command("migrate", verbosity=0)
        load_library([settings.FIXTURES_DIR])
        client = Client()
        for size in sizes:
            have = Case.objects.count()
            if size > have:
                add_cases(size - have, start=have)
            measure(client, f"{Case.objects.count()} cases (seeded + synthetic)", args.runs)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
