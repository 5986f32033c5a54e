"""`make bench`: synthetic libraries of 1k, 10k and 100k cases, every page figure beside its floor.

    make bench                          # 1,000, 10,000 and 100,000 cases
    make bench BENCH_SIZES=1000         # the quick run
    python -m tests.bench.run 1000 10000 [--rebuild] [--requests 30] [--search] [--graph]
    python -m tests.bench.run 100000 --api-only   # the throughput rows alone

Each size gets a throwaway PostgreSQL database (`$BENCH_DB_PREFIX<size>`, default
`incidents_bench_<size>`, on `$BENCH_DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/),
built once with COPY (tests/bench/synthetic.py) and reused by later runs unless `--rebuild`. Each
size is measured in a process of its own, with Django's in-process client (the whole middleware
and template stack, no network), after one warm-up request per URL.

- p50/p95: of `--requests` requests to the same URL, "warm" (an anonymous page is then served
  whole from the cache) or "cold" (Django's cache cleared, untimed, before each request);
- floor: the SQL the page issues (captured on one request, warm or cold), re-run raw with psycopg on a
  connection of its own, summed (median of five runs); "x floor" is p95 / floor, and "outside
  SQL" is p50 - floor, the time spent in Python;
- CPU: this process's CPU time per request (p50): Python's share, PostgreSQL's work excluded,
  unlike wall time unaffected by other processes on a busy machine;
- req/s: requests per second in a loop, beside a hello-world view on the same stack (the median
  of three interleaved passes of each; their CPU column is CPU ms per request);
- index rebuild: building the facet index from the database (what the first request after a
  write pays, once per process).

Nothing is asserted: the tests keep correctness and query counts; this prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.bench.report import machine
from tests.bench.report import table

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SIZES = (1000, 10_000, 100_000)
# Requests per pass of a throughput figure (a cold pass: at most one per page), and passes.
THROUGHPUT_REQUESTS = 300
THROUGHPUT_ROUNDS = 3
SENTENCE = "our nccl timeouts came from a leaking data loader"


@dataclass
class Row:
    """One figure at one size."""

    name: str
    owner: str  # the issue whose target it is
    p50: float | None = None
    p95: float | None = None
    floor: float | None = None
    queries: int | None = None
    cpu: float | None = None  # this process's CPU time per request, p50 (PostgreSQL's excluded)
    per_second: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return self.p95 / self.floor if self.p95 and self.floor else None

    @property
    def outside_sql(self) -> float | None:
        return self.p50 - self.floor if self.p50 is not None and self.floor is not None else None


# --- one size, in its own process -------------------------------------------------------------


def _database_url(size: int) -> str:
    base = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/")
    prefix = os.environ.get("BENCH_DB_PREFIX", "incidents_bench_")
    return base.rstrip("/") + f"/{prefix}{size}"


def _ensure_database(url: str, rebuild: bool) -> bool:
    """Create the database if missing (drop it first with `rebuild`); True if it is new."""
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and rebuild:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if not exists or rebuild:
            conn.execute(f'CREATE DATABASE "{name}"')
            return True
    return False


def _timed(action: Callable[[], Any], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return times


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def measure_size(
    size: int, *, rebuild: bool, requests: int, graph: bool, search: bool, api_only: bool = False
) -> dict[str, Any]:
    """Build (or reuse) the library of `size` cases and measure every figure."""
    url = _database_url(size)
    new = _ensure_database(url, rebuild)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    import psycopg
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from incidents.models import Case
    from incidents.models import FacetValue
    from incidents.selectors import facet_index
    from tests.bench import synthetic

    settings.ROOT_URLCONF = "tests.bench.urls"
    # As production has it (the test settings read the version on every request instead).
    settings.LIBRARY_VERSION_LISTEN = True
    call_command("migrate", verbosity=0)
    if not new and Case.objects.count() != size:  # a build that did not finish: start again
        connection.close()
        new = _ensure_database(url, rebuild=True)
        call_command("migrate", verbosity=0)
    started = time.perf_counter()
    if new:
        synthetic.build(size)
    built_s = time.perf_counter() - started if new else None
    cases = Case.objects.count()

    raw = psycopg.connect(url, autocommit=True)
    client = Client()

    from django.core.cache import cache

    def floor(path: str, cold: bool) -> tuple[float, int]:
        if cold:
            cache.clear()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(path).status_code == 200, path
        sqls = [q["sql"] for q in captured.captured_queries]
        sums: list[float] = []
        while len(sums) < 5 and sum(sums) < 2000:  # five runs, or fewer of a slow page
            total = 0.0
            for sql in sqls:
                start = time.perf_counter()
                cursor = raw.execute(sql.encode())  # bytes: no placeholder parsing
                if cursor.description is not None:
                    cursor.fetchall()
                total += (time.perf_counter() - start) * 1000
            sums.append(total)
        return statistics.median(sums), len(sqls)

    def page(
        name: str, path: str, owner: str = "15", runs: int = requests, cold: bool = False
    ) -> Row:
        """`cold`: Django's cache cleared before each request (not timed), so that nothing of
        the page is cached (the whole page, its rows, its facet trees, a case's card); else the
        same URL again, an anonymous page then served whole from the cache."""
        response = client.get(path)  # warm-up
        assert response.status_code == 200, (path, response.status_code)
        times, cpu = [], []
        for _ in range(runs):
            if cold:
                cache.clear()
            start, start_cpu = time.perf_counter(), time.process_time()
            client.get(path)
            cpu.append((time.process_time() - start_cpu) * 1000)
            times.append((time.perf_counter() - start) * 1000)
        floor_ms, queries = floor(path, cold)
        return Row(
            name,
            owner,
            statistics.median(times),
            _p95(times),
            floor_ms,
            queries,
            cpu=statistics.median(cpu),
        )

    popular = _popular_values(FacetValue)
    slug = "acme-seren-kalos-pretraining-failures"
    if not Case.objects.filter(slug=slug).exists():
        slug = Case.objects.order_by("id").values_list("slug", flat=True)[0]
    two = f"symptom={popular['symptom']}&component={popular['component']}"
    not_ = f"root_cause={popular['root_cause']}&not_organisation={popular['organisation']}"
    rows = (
        []
        if api_only
        else [
            page("`/` with all facet counts, warm (same URL)", "/"),
            page("`/` with all facet counts, cold (nothing cached)", "/", cold=True),
            page(f"`/` with two facet filters (`{two}`), warm", f"/?{two}"),
            page(f"`/` with two facet filters (`{two}`), cold", f"/?{two}", cold=True),
            page("`/` with a filter and a NOT, cold", f"/?{not_}", cold=True),
            page("`/?page=3`, cold", "/?page=3", cold=True),
            page(f"`/cases/{slug}/`, warm", f"/cases/{slug}/"),
            page(f"`/cases/{slug}/`, cold", f"/cases/{slug}/", cold=True),
        ]
    )
    # Issue 8's figure (minutes per point at 100,000 cases).
    if not api_only and (search or size <= 1000):
        sentence = f"/?q={SENTENCE.replace(' ', '+')}"
        runs = max(3, requests // 10)
        rows.append(page("`/` sentence search, cold", sentence, "8", runs, cold=True))
    if graph and not api_only:
        rows.append(page("`/graph/data.json`", "/graph/data.json", "10", 3))

    def loop(paths: list[str]) -> tuple[float, float]:
        """Requests per second and CPU ms per request of one pass over `paths`."""
        start, start_cpu = time.perf_counter(), time.process_time()
        for path in paths:
            assert client.get(path).status_code == 200, path
        cpu_ms = (time.process_time() - start_cpu) * 1000 / len(paths)
        return len(paths) / (time.perf_counter() - start), cpu_ms

    # Throughput: the hello-world view, the same API URL again (a response-cache hit) and a new
    # API page each time (the response cache cleared first, so every page is a miss), in
    # THROUGHPUT_ROUNDS interleaved rounds; each figure is the median of its rounds, so that a
    # neighbour's burst moves all three alike rather than one of them.
    pages = max(1, min(THROUGHPUT_REQUESTS, (cases - 1) // 20 + 1))
    for path in ("/bench/hello/", "/api/cases/", "/api/cases/?page=2"):
        client.get(path)
    passes: dict[str, list[tuple[float, float]]] = {"hello": [], "warm": [], "cold": []}
    for _ in range(THROUGHPUT_ROUNDS):
        passes["hello"].append(loop(["/bench/hello/"] * THROUGHPUT_REQUESTS))
        passes["warm"].append(loop(["/api/cases/"] * THROUGHPUT_REQUESTS))
        cache.clear()
        passes["cold"].append(loop([f"/api/cases/?page={1 + i}" for i in range(pages)]))

    def throughput(name: str, kind: str, owner: str) -> Row:
        runs = passes[kind]
        return Row(
            name,
            owner,
            cpu=statistics.median(cpu for _, cpu in runs),
            per_second=statistics.median(rate for rate, _ in runs),
        )

    hello = throughput("hello-world view", "hello", "-")
    warm = throughput("`/api/cases/` warm (same URL)", "warm", "15")
    cold = throughput("`/api/cases/` cold (a new page each time)", "cold", "15")
    for row in (warm, cold):
        rate = 100 * (row.per_second or 0) / (hello.per_second or 1)
        cpu = 100 * (hello.cpu or 0) / (row.cpu or 1)
        row.note = f"{rate:.1f}% of hello-world (CPU: {cpu:.1f}%)"
    for row in rows:  # a page's CPU beside the server's own (what no page can go below)
        if row.cpu and hello.cpu:
            row.note = f"CPU {row.cpu / hello.cpu:.1f}x hello-world's"
    rows += [hello, warm, cold]
    if api_only:
        raw.close()
        return {"size": size, "cases": cases, "built_s": built_s, "rows": [_row(r) for r in rows]}
    rebuild_cpu: list[float] = []

    def rebuild_index() -> None:
        start_cpu = time.process_time()
        facet_index.load_index()
        rebuild_cpu.append((time.process_time() - start_cpu) * 1000)

    rebuild_times = _timed(rebuild_index, 3)
    rows.append(
        Row(
            "facet index rebuild (first request after a write)",
            "15",
            statistics.median(rebuild_times),
            max(rebuild_times),
            cpu=statistics.median(rebuild_cpu),
            note="p95 column: the slowest of 3",
        )
    )
    raw.close()
    return {
        "size": size,
        "cases": cases,
        "built_s": built_s,
        "rows": [_row(r) for r in rows],
    }


def _row(r: Row) -> dict[str, Any]:
    return {**asdict(r), "ratio": r.ratio, "outside_sql": r.outside_sql}


def _popular_values(model: Any) -> dict[str, str]:
    """The most used value of each facet (the slug), as a reader's first click would be."""
    from django.db.models import Count

    popular: dict[str, str] = {}
    ranked = model.objects.annotate(n=Count("links")).order_by("-n").values_list("facet", "slug")
    for facet, slug in ranked:
        popular.setdefault(facet, slug)
    return popular


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, help="library sizes (cases)")
    parser.add_argument("--rebuild", action="store_true", help="drop and rebuild the databases")
    parser.add_argument("--requests", type=int, default=30, help="requests per figure")
    parser.add_argument("--graph", action="store_true", help="also /graph/data.json (slow)")
    parser.add_argument(
        "--search", action="store_true", help="the sentence search above 1,000 cases too (slow)"
    )
    parser.add_argument(
        "--api-only", action="store_true", help="only the throughput rows (hello-world, API)"
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child process's size
    args = parser.parse_args(argv)
    if args.one:
        result = measure_size(
            args.one,
            rebuild=args.rebuild,
            requests=args.requests,
            graph=args.graph,
            search=args.search,
            api_only=args.api_only,
        )
        print(json.dumps(result))
        return 0
    results = []
    for size in args.sizes or DEFAULT_SIZES:
        command = [sys.executable, "-m", "tests.bench.run", "--one", str(size)]
        command += ["--requests", str(args.requests)]
        command += [
            flag
            for flag, on in (
                ("--rebuild", args.rebuild),
                ("--graph", args.graph),
                ("--search", args.search),
                ("--api-only", args.api_only),
            )
            if on
        ]
        print(f"measuring {size:,} cases ...", file=sys.stderr, flush=True)
        done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return done.returncode
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if result["built_s"]:
            print(f"  built in {result['built_s']:.0f} s", file=sys.stderr)
        results.append(result)
    print(f"\nMachine: {machine(_database_url(0))}\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
