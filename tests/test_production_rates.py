"""The API's rate limit on a real gunicorn with two workers: one client gets the configured rate,
not the rate times the number of workers (the counts live in the cache every worker shares, a
table of the library's database that `manage.py createcachetable` makes, as `make serve` does).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.server import Gunicorn, get, production_env

HTTPS = {"X-Forwarded-Proto": "https"}
RATE = 10


@pytest.fixture
def database(tmp_path: Path, migrated_sqlite: Path) -> str:
    """A migrated SQLite file without the rate-count table: the server's start makes it."""
    path = Path(shutil.copy(migrated_sqlite, tmp_path / "prod.sqlite3"))
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE IF EXISTS api_rate_counts")
    return f"sqlite:///{path}"


def _statuses(url: str, headers: dict[str, str], requests: int) -> Counter[int]:
    with ThreadPoolExecutor(8) as pool:
        return Counter(pool.map(lambda _: get(url, headers)[0], range(requests)))


def test_two_workers_share_one_count_per_client(database: str, tmp_path: Path) -> None:
    # An hour's window: a burst of a few seconds never straddles two windows.
    env = production_env(database, tmp_path / "static", API_RATE_ANON=f"{RATE}/hour")
    server = Gunicorn(env, workers=2, threads=4)
    server.manage("createcachetable")
    with server as gunicorn:
        statuses = _statuses(gunicorn.url + "/api/cases/", HTTPS, 6 * RATE)
        # A made-up X-Forwarded-For is not a new client (no proxy is configured in front).
        spoofed = get(gunicorn.url + "/api/cases/", HTTPS | {"X-Forwarded-For": "203.0.113.9"})
    assert statuses == {200: RATE, 429: 5 * RATE}, gunicorn.log.decode()[-2000:]
    assert spoofed[0] == 429
