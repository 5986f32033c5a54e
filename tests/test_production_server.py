"""The production server for real: gunicorn with site/env.example's settings (DEBUG off, static
files collected as `make serve` does), on PostgreSQL reached through a proxy the test controls.

Every page answers with DEBUG off; with the database taken away the pages answer the 503 page and
the API a 503 JSON body, /healthz stays up and /readyz says why; when the database returns the
same server answers 200 again, with no restart. PostgreSQL only: SQLite cannot be made unreachable.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.load_burst import run_burst
from tests.server import Gunicorn
from tests.server import TcpProxy
from tests.server import get
from tests.server import production_env

pytestmark = pytest.mark.django_db(transaction=True)

# The proxy in front answers http; the app redirects to https unless it is told it is behind TLS.
HTTPS = {"X-Forwarded-Proto": "https"}
PAGES = [
    "/",
    "/?q=nccl+timeout",
    "/cases/leaky-loader/",
    "/browse/",
    "/cost/",
    "/graph/",
    "/graph/data.json",
    "/checks/",
    "/kubegap/",
    "/kubegap-rbac.yaml",
    "/accounts/login/",
    "/api/cases/",
    "/api/facets/",
    "/api/docs/",
    "/static/css/library.css",
]


@pytest.fixture(scope="session")
def static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Collected once (by the first server) for every server of the session."""
    return tmp_path_factory.mktemp("static")


@pytest.fixture
def server(small_library: None, static_root: Path) -> Iterator[tuple[Gunicorn, TcpProxy]]:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL=postgres://...): SQLite cannot go away")
    settings = connection.settings_dict
    proxy = TcpProxy((settings["HOST"] or "127.0.0.1", int(settings["PORT"] or 5432)))
    proxy.start()
    user = settings["USER"] or "postgres"
    url = f"postgres://{user}@127.0.0.1:{proxy.port}/{settings['NAME']}"
    # One worker: the recovery below is then seen by the worker that saw the outage.
    with Gunicorn(production_env(url, static_root), workers=1, threads=2) as gunicorn:
        yield gunicorn, proxy
    proxy.stop()


def test_every_page_answers_with_debug_off(server: tuple[Gunicorn, TcpProxy]) -> None:
    gunicorn, _ = server
    statuses = {page: get(gunicorn.url + page, HTTPS)[0] for page in PAGES}
    assert statuses == dict.fromkeys(PAGES, 200)
    status, _ = get(gunicorn.url + "/")
    assert status == 301  # plain http is sent to https (SECURE_SSL_REDIRECT)
    # ... but not the probes, which the kubelet sends over plain http to the pod.
    assert get(gunicorn.url + "/healthz")[0] == 200
    assert get(gunicorn.url + "/readyz")[0] == 200
    # The floor under tests/bench_load.py's figures: concurrency never makes an error.
    paths = [p for p in PAGES if not p.startswith("/static/")] + ["/healthz"]
    burst = run_burst(gunicorn.url, paths, requests=120, concurrency=10)
    assert burst.requests == 120
    assert burst.errors == []


def test_kubegap_pyz_is_built_by_collectstatic_and_served_hashed(
    server: tuple[Gunicorn, TcpProxy], static_root: Path
) -> None:
    """Built once per release, when the static files are collected, not by the running server."""
    gunicorn, _ = server
    hashed = json.loads((static_root / "staticfiles.json").read_text())["paths"][
        "kubegap/kubegap.pyz"
    ]
    assert hashed != "kubegap/kubegap.pyz"  # kubegap.<hash>.pyz: cached for good by clients
    status, body = get(f"{gunicorn.url}/static/{hashed}", HTTPS)
    assert status == 200 and body == (static_root / hashed).read_bytes()
    assert body.startswith(b"#!/usr/bin/env python3\n")
    assert get(gunicorn.url + "/kubegap.pyz", HTTPS)[0] == 302  # to that hashed file


def test_database_down_is_503_and_recovers_without_restart(
    server: tuple[Gunicorn, TcpProxy],
) -> None:
    gunicorn, proxy = server
    assert get(gunicorn.url + "/", HTTPS)[0] == 200
    pid = gunicorn.worker_pids()

    proxy.stop()
    status, body = get(gunicorn.url + "/", HTTPS)
    assert status == 503
    assert "Temporarily unavailable" in body.decode()
    status, body = get(gunicorn.url + "/api/cases/", HTTPS)
    assert status == 503
    assert "database cannot be reached" in json.loads(body)["detail"]
    status, body = get(gunicorn.url + "/readyz", HTTPS)
    assert status == 503 and json.loads(body)["database"].startswith("unreachable")
    assert get(gunicorn.url + "/healthz", HTTPS)[0] == 200

    proxy.start()
    assert get(gunicorn.url + "/", HTTPS)[0] == 200
    assert get(gunicorn.url + "/api/cases/", HTTPS)[0] == 200
    assert get(gunicorn.url + "/readyz", HTTPS)[0] == 200
    assert gunicorn.worker_pids() == pid  # the same worker: no restart
