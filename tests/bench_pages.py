"""Benchmark: queries and time of the case, browse and cost pages, seeded and at ~5,000 cases.

Run: /work/venv/bin/python -m tests.bench_pages   (an in-memory SQLite database; prints figures)
     DATABASE_URL=postgres://... python -m tests.bench_pages   (a scratch PostgreSQL database)
Nothing is asserted: the tests check that query counts stay constant; this prints what they are.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
os.environ.setdefault("DATABASE_URL", "sqlite://:memory:")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

PAGES = [
    "/cases/acme-seren-kalos-pretraining-failures/",
    "/browse/",
    "/components/",
    "/components/gpu/",
    "/cost/",
    "/cost/?symptom=nccl-timeout&not_organisation=meta",
]


def measure(client: Client, label: str, runs: int = 5) -> None:
    print(f"\n{label}")
    for url in PAGES:
        client.get(url)  # warm caches
        times = []
        for _ in range(runs):
            with CaptureQueriesContext(connection) as ctx:
                start = time.perf_counter()
                response = client.get(url)
                times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (url, response.status_code)
        print(
            f"  {url:52s} queries={len(ctx.captured_queries):2d} "
            f"median={statistics.median(times):7.1f} ms"
        )


def main() -> int:
    from incidents.models import Case
    from incidents.services import load_library
    from tests.bulk import add_cases
    from tests.conftest import REPO_ROOT

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        call_command("migrate", verbosity=0)
        load_library([REPO_ROOT / "fixtures"])
        client = Client()
        measure(client, f"{Case.objects.count()} cases (the seeded library)")
        add_cases(5000 - Case.objects.count())
        measure(client, f"{Case.objects.count()} cases (seeded + synthetic)")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
