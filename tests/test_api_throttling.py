"""Request rates: over the rate, a 429 with Retry-After; anonymous and token clients apart."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

RATES = {
    **settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"anon": "3/minute", "user": "5/minute"},
}


@override_settings(REST_FRAMEWORK=RATES)
def test_anonymous_clients_get_a_429_with_retry_after(
    client: Client, small_library: None, django_user_model: Any
) -> None:
    for _ in range(3):
        assert client.get("/api/cases/").status_code == 200
    throttled = client.get("/api/facets/")
    assert throttled.status_code == 429
    assert 0 < int(throttled["Retry-After"]) <= 60
    assert "throttled" in throttled.json()["detail"].lower()
    # A token client has its own, higher rate.
    django_user_model.objects.create_user("tool", password="x")
    out = StringIO()
    call_command("issue_token", "tool", stdout=out, stderr=StringIO())
    auth = {"HTTP_AUTHORIZATION": f"Token {out.getvalue().strip()}"}
    statuses = [client.get("/api/cases/", **auth).status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]


@override_settings(REST_FRAMEWORK=RATES)
def test_a_request_is_counted_once_in_two_queries(client: Client, small_library: None) -> None:
    # A read and a compare-and-set update of the shared count (API_RATE_CACHE=db); an anonymous
    # client is counted by its address once, not again at the token users' rate.
    client.get("/api/cases/")
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/cases/").status_code == 200
    counting = [q["sql"] for q in queries.captured_queries if "api_rate_counts" in q["sql"]]
    assert [sql.split()[0] for sql in counting] == ["SELECT", "UPDATE"]


def test_rates_come_from_the_environment() -> None:
    import subprocess
    import sys

    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='incidents.config.settings';"
        "django.setup(); from django.conf import settings;"
        "print(settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'])"
    )
    env = {"SECRET_KEY": "x", "API_RATE_ANON": "7/minute", "API_RATE_USER": "off", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "{'anon': '7/minute', 'user': 'off'}", out.stderr


@override_settings(REST_FRAMEWORK=RATES)
def test_every_counted_answer_says_how_many_requests_remain(
    client: Client, small_library: None
) -> None:
    """A tool paces itself by RateLimit-Remaining and -Reset before it meets the 429."""
    first = client.get("/api/cases/")
    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) == ("3", "2")
    assert 0 < int(first["RateLimit-Reset"]) <= 60
    # a 304 and a 400 are counted, and say so, as much as a 200
    revalidated = client.get("/api/cases/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert (revalidated.status_code, revalidated["RateLimit-Remaining"]) == (304, "1")
    refused = client.get("/api/cases/?symptom=nope")
    assert (refused.status_code, refused["RateLimit-Remaining"]) == (400, "0")
    throttled = client.get("/api/facets/")
    assert (throttled.status_code, throttled["RateLimit-Remaining"]) == (429, "0")
    assert int(throttled["RateLimit-Reset"]) == int(throttled["Retry-After"])
    # the pages are not rated, and say nothing of a rate
    assert "RateLimit-Limit" not in client.get("/")
