"""Benchmark: a burst of 2,000 requests, 20 at a time, on gunicorn and PostgreSQL, over the main
pages and the API, against a hello-world view (/healthz: the same server, middleware and
connection, no database) measured in the same run, interleaved with the rest.

Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/incidents_bench python -m tests.bench_load
The database is migrated and the seeded library loaded into it first (the name must start with
"incidents_"). Prints errors, p50/p95 per path and overall, and each worker's memory. Target
(issue 12): 0 errors, and the pages' p95 within 3x of the hello-world view's p95.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests.load_burst import percentile
from tests.load_burst import rss_mib
from tests.load_burst import run_burst
from tests.load_burst import summary
from tests.server import Gunicorn
from tests.server import production_env

HELLO = "/healthz"
PAGES = [
    "/",
    "/?q=nccl+timeout",
    "/?symptom=nccl-timeout",
    "/cases/acme-seren-kalos-pretraining-failures/",
    "/browse/",
    "/components/gpu/",
    "/cost/",
    "/graph/",
    "/checks/",
]
API = ["/api/cases/", "/api/cases/?symptom=nccl-timeout", "/api/facets/", "/api/breakdowns/"]


def main() -> int:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres") or not url.rsplit("/", 1)[-1].startswith("incidents_"):
        print("set DATABASE_URL=postgres://.../incidents_<name> (a scratch database)")
        return 2
    requests = int(os.environ.get("BENCH_REQUESTS", "2000"))
    concurrency = int(os.environ.get("BENCH_CONCURRENCY", "20"))
    workers = int(os.environ.get("BENCH_WORKERS", "3"))
    threads = int(os.environ.get("BENCH_THREADS", "4"))
    with tempfile.TemporaryDirectory() as static:
        # The rate limit counts every API request (its cost is in the figures) but stops none.
        env = production_env(url, Path(static), API_RATE_ANON="1000000/minute")
        server = Gunicorn(
            env | {"GUNICORN_MAX_REQUESTS": "100000"}, workers=workers, threads=threads
        )
        server.manage("migrate", "--no-input", "--verbosity", "0")
        server.manage("createcachetable")
        server.manage("load_cases")
        with server:
            # Every path answers before the clock starts (and each worker has warmed up once).
            warm = run_burst(server.url, [HELLO, *PAGES, *API], requests=60, concurrency=workers)
            if warm.errors:
                print("warm-up errors:", warm.errors[:10])
                return 1
            # Hello-world interleaved with the rest: one request in five.
            mix = [*PAGES, *API, HELLO, HELLO, HELLO]
            burst = run_burst(server.url, mix, requests=requests, concurrency=concurrency)
            memory = {pid: rss_mib(pid) for pid in server.worker_pids()}
    print(
        f"\n{burst.requests} requests, concurrency {concurrency}, gunicorn {workers} workers x "
        f"{threads} threads, PostgreSQL; {burst.seconds:.1f} s, "
        f"{burst.requests / burst.seconds:.0f} requests/s; errors: {len(burst.errors)}"
    )
    for path in [HELLO, *PAGES, *API]:
        print(f"  {path:48s} {summary(burst.latencies[path])}")
    pages, api, hello = burst.of(PAGES), burst.of(API), burst.latencies[HELLO]
    print(f"  {'pages (all)':48s} {summary(pages)}")
    print(f"  {'API (all)':48s} {summary(api)}")
    ratio = percentile(pages, 0.95) / percentile(hello, 0.95)
    ratio_api = percentile(api, 0.95) / percentile(hello, 0.95)
    print(f"  p95 pages / p95 hello-world = {ratio:.2f}; API / hello-world = {ratio_api:.2f}")
    print("  worker memory (RSS): " + ", ".join(f"{m:.0f} MiB" for m in memory.values()))
    for error in burst.errors[:10]:
        print("  error:", error)
    return 0 if not burst.errors else 1


if __name__ == "__main__":
    sys.exit(main())
