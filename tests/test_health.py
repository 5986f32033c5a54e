"""Health probes and error pages, in-process: /healthz reads nothing, /readyz reads the schema,
and the 400/403/404/405/500 pages run no query."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied
from django.core.exceptions import SuspiciousOperation
from django.db import OperationalError
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import include
from django.urls import path


def _forbidden(request: object) -> None:
    raise PermissionDenied


def _suspicious(request: object) -> None:
    raise SuspiciousOperation("bad")


def _broken(request: object) -> None:
    raise ValueError("a bug")


urlpatterns = [
    path("forbidden/", _forbidden),
    path("suspicious/", _suspicious),
    path("broken/", _broken),
    path("", include("incidents.config.urls")),
]
handler400 = "incidents.views.errors.bad_request"
handler403 = "incidents.views.errors.permission_denied"
handler404 = "incidents.views.errors.page_not_found"
handler500 = "incidents.views.errors.server_error"


def test_healthz_answers_without_touching_the_database(client: Client) -> None:
    # No `db` fixture: pytest-django fails any query this request would make.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_says_ok_when_the_schema_is_up_to_date(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "migrations": "ok"}


@pytest.mark.django_db
def test_readyz_names_a_migration_not_applied(client: Client) -> None:
    recorder = MigrationRecorder(connection)
    latest = recorder.migration_qs.filter(app="incidents").order_by("-id").first()
    assert latest is not None
    latest.delete()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["migrations"] == [f"incidents.{latest.name}"]


@pytest.mark.django_db
def test_readyz_names_a_cache_table_not_made(client: Client, settings: Any) -> None:
    # The API's request counts live in a table `manage.py createcachetable` makes (make serve).
    rates = settings.CACHES["api_rates"] | {"LOCATION": "rates_not_made"}
    settings.CACHES = settings.CACHES | {"api_rates": rates}
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["cache_tables"] == ["rates_not_made is missing"]


@pytest.mark.django_db
def test_a_database_error_is_a_503_page_and_a_503_json(client: Client) -> None:
    failing = mock.patch(
        "incidents.views.library.select_cases", side_effect=OperationalError("gone")
    )
    with failing:
        page = client.get("/")
    assert page.status_code == 503
    assert "Temporarily unavailable" in page.content.decode()
    assert page["Retry-After"] == "30"
    with mock.patch(
        "incidents.api.views.case_queryset", side_effect=OperationalError("connection refused")
    ):
        api = client.get("/api/cases/")
    assert api.status_code == 503
    assert json.loads(api.content)["detail"].startswith("The library's database cannot be reached")


@override_settings(ROOT_URLCONF=__name__, ALLOWED_HOSTS=["testserver", "library.example.org"])
@pytest.mark.parametrize(
    ("url", "status", "title"),
    [
        ("/suspicious/", 400, "Bad request"),
        ("/forbidden/", 403, "Forbidden"),
        ("/no/such/page/", 404, "Not found"),
        ("/broken/", 500, "Server error"),
    ],
)
@pytest.mark.django_db
def test_error_pages_need_no_database(url: str, status: int, title: str) -> None:
    client = Client(raise_request_exception=False)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert [q["sql"] for q in queries.captured_queries] == []
    assert response.status_code == status
    page = response.content.decode()
    assert f"<h1>{title}</h1>" in page and f"Error {status}." in page


@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.django_db
def test_api_errors_are_json() -> None:
    client = Client(raise_request_exception=False)
    response = client.get("/api/no-such-endpoint/")
    assert response.status_code == 404
    assert response.json() == {"detail": "There is nothing at this address."}


TOO_MANY = "&".join(f"symptom{i}=x" for i in range(1001))


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/", "more than 1000 query parameters"),
        ("/api/cases/", '{"detail": "The request has more than 1000 query parameters."}'),
        ("/feeds/cases.atom", "more than 1000 query parameters"),
    ],
)
def test_more_than_1000_query_parameters_is_a_400_with_debug_on_or_off(
    debug: bool, path: str, says: str
) -> None:
    # With DEBUG on, Django's error page read the query again and answered a 500 (after 20-37 s).
    client = Client(raise_request_exception=False)
    with override_settings(DEBUG=debug):
        response = client.get(f"{path}?{TOO_MANY}")
    assert response.status_code == 400
    assert says in response.content.decode()


@pytest.mark.parametrize("path", ["/", "/graph/", "/cost/"])
def test_a_method_a_page_does_not_take_gets_a_page_naming_the_ones_it_does(
    client: Client, path: str
) -> None:
    response = client.post(path)
    assert response.status_code == 405
    assert "GET" in response["Allow"]
    page = response.content.decode()
    assert "<h1>Method not allowed</h1>" in page
    assert f"POST is not allowed here; this address takes {response['Allow']}." in page


def test_the_api_keeps_its_own_405_body(client: Client) -> None:
    response = client.post("/api/facets/")
    assert response.status_code == 405
    assert response.json() == {"detail": 'Method "POST" not allowed.'}
