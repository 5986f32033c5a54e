"""The API's rate limit on a real gunicorn with two workers: one client gets the configured rate,
not the rate times the number of workers (the counts live in the cache every worker shares, a
table of the library's database that `manage.py createcachetable` makes, as `make serve` does).
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection

from tests.server import Gunicorn
from tests.server import get
from tests.server import production_env

# On PostgreSQL the server uses this run's test database, whose changes it must see.
pytestmark = pytest.mark.django_db(transaction=True)

HTTPS = {"X-Forwarded-Proto": "https"}
RATE = 10
DAY = 24 * 3600


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path, migrated_sqlite: Path) -> str:
    """A migrated database without the rate-count table (the server's start makes it): an
    SQLite file, and on a PostgreSQL run this run's test database too."""
    if request.param == "sqlite":
        path = Path(shutil.copy(migrated_sqlite, tmp_path / "prod.sqlite3"))
        with sqlite3.connect(path) as db:
            db.execute("DROP TABLE IF EXISTS api_rate_counts")
        return f"sqlite:///{path}"
    if connection.vendor != "postgresql":
        pytest.skip("the PostgreSQL run (DATABASE_URL=postgres://...) checks it there too")
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS api_rate_counts")
    settings = connection.settings_dict
    host, port = settings["HOST"] or "127.0.0.1", settings["PORT"] or 5432
    return f"postgres://{settings['USER'] or 'postgres'}@{host}:{port}/{settings['NAME']}"


def _statuses(url: str, headers: dict[str, str], requests: int) -> Counter[int]:
    with ThreadPoolExecutor(8) as pool:
        return Counter(pool.map(lambda _: get(url, headers)[0], range(requests)))


def test_two_workers_share_one_count_per_client(database: str, tmp_path: Path) -> None:
    # A day's window (the UTC day, as the throttle counts it): the burst takes seconds, so one
    # started in a day's last minute waits for the next day rather than straddle two (an hour's
    # window had that wait in one run of 60).
    env = production_env(database, tmp_path / "static", API_RATE_ANON=f"{RATE}/day")
    server = Gunicorn(env, workers=2, threads=4)
    server.manage("createcachetable")
    with server as gunicorn:
        left = DAY - time.time() % DAY
        if left < 60:
            time.sleep(left + 1)
        statuses = _statuses(gunicorn.url + "/api/cases/", HTTPS, 6 * RATE)
        # A made-up X-Forwarded-For is not a new client (no proxy is configured in front).
        spoofed = get(gunicorn.url + "/api/cases/", HTTPS | {"X-Forwarded-For": "203.0.113.9"})
    assert statuses == {200: RATE, 429: 5 * RATE}, gunicorn.log.decode()[-2000:]
    assert spoofed[0] == 429
