"""Conditional requests and the response cache: ETag and Last-Modified from the library's
version, 304 on a match, a cached body served with one query until the next write."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils.http import http_date

from incidents.models import Case
from incidents.selectors import library_version
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def test_reads_carry_validators_from_the_library_version(
    client: Client, small_library: None
) -> None:
    response = client.get("/api/cases/?organisation=meta")
    version = library_version.current()
    assert response["ETag"].startswith(f'"lib-{version.number}-')
    assert response["Last-Modified"] == http_date(version.changed_at.timestamp())
    # Another query is another representation, so another tag.
    assert client.get("/api/cases/")["ETag"] != response["ETag"]
    # The order of the parameters does not matter.
    same = client.get("/api/cases/?organisation=meta&kind=incident&kind=study")
    swapped = client.get("/api/cases/?kind=study&organisation=meta&kind=incident")
    assert same["ETag"] == swapped["ETag"]


@pytest.mark.parametrize(
    "url", ["/api/", "/api/cases/", "/api/cases/leaky-loader/", "/api/facets/"]
)
def test_a_matching_etag_is_a_304_until_the_library_changes(
    client: Client, small_library: None, url: str
) -> None:
    first = client.get(url)
    etag = first["ETag"]
    with assert_max_queries(1):  # the version only
        again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag
    case = Case.objects.get(slug="flaky-network")
    case.title = "Flapping links slow a job, again"
    case.save()
    changed = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_if_modified_since(client: Client, small_library: None) -> None:
    last_modified = client.get("/api/cases/")["Last-Modified"]
    assert client.get("/api/cases/", HTTP_IF_MODIFIED_SINCE=last_modified).status_code == 304
    assert client.get("/api/cases/", HTTP_IF_MODIFIED_SINCE=http_date(0)).status_code == 200


def test_a_cached_body_is_served_with_one_query_and_dropped_by_a_write(
    client: Client, small_library: None
) -> None:
    cold = client.get("/api/cases/?organisation=meta")
    with assert_max_queries(1):
        warm = client.get("/api/cases/?organisation=meta")
    assert warm.status_code == 200 and warm.json() == cold.json()
    case = Case.objects.get(slug="flaky-network")
    case.title = "Renamed"
    case.save()
    fresh = client.get("/api/cases/?organisation=meta").json()
    assert "Renamed" in [row["title"] for row in fresh["results"]]


def test_errors_are_not_cached_nor_tagged(client: Client, small_library: None) -> None:
    response = client.get("/api/cases/?component=nope")
    assert response.status_code == 400 and not response.has_header("ETag")
    assert client.get("/api/cases/?component=nope").status_code == 400
