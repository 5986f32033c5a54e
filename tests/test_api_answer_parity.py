"""A read answered from the response cache (or with a 304) carries the same headers and body as
the answer the handler wrote, and the remembered negotiation picks what DRF's would."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from incidents.api import reads

pytestmark = pytest.mark.django_db

URLS = [
    "/api/",
    "/api/cases/",
    "/api/cases/?page=2&page_size=1",
    "/api/cases/?kind=incident&organisation=meta",
    "/api/cases/leaky-loader/",
    "/api/facets/?symptom=nccl-timeout",
]


def _headers(response: object) -> list[tuple[str, str]]:
    return list(response.headers.items())  # type: ignore[attr-defined]


@pytest.mark.parametrize("url", URLS)
def test_a_cached_answer_is_the_written_one_byte_for_byte(
    client: Client, small_library: None, url: str
) -> None:
    cache.clear()
    written = client.get(url)
    assert written.status_code == 200
    cached = client.get(url)
    assert cached.status_code == 200
    assert cached.content == written.content
    # Every header, in the same order (Vary, Allow, the validators, the middleware's own).
    assert _headers(cached) == _headers(written)
    assert cached["Vary"] == "Accept, Cookie"
    assert cached["Allow"] and cached["ETag"] and cached["Last-Modified"]
    # A 304 carries the same validators and variants, no body.
    not_modified = client.get(url, HTTP_IF_NONE_MATCH=written["ETag"])
    assert not_modified.status_code == 304
    assert not_modified.content == b""
    for name in ("ETag", "Last-Modified", "Cache-Control", "Vary", "Allow"):
        assert not_modified[name] == written[name], name


def test_the_remembered_negotiation_is_drfs(client: Client, small_library: None) -> None:
    reads._negotiated.clear()
    for _ in range(2):  # negotiated, then remembered
        html = client.get("/api/cases/", HTTP_ACCEPT="text/html")
        assert html.status_code == 200
        assert html["Content-Type"].startswith("text/html")
        plain = client.get("/api/cases/")
        assert plain["Content-Type"] == "application/json"
        indented = client.get("/api/cases/", HTTP_ACCEPT="application/json; indent=4")
        assert indented["Content-Type"] == "application/json"
        assert indented.content.startswith(b'{\n    "count"')
        assert client.get("/api/cases/?format=api")["Content-Type"].startswith("text/html")
        assert client.get("/api/cases/?format=json")["Content-Type"] == "application/json"
        # Refusals are not remembered as answers: a 406 and an unknown format's 404, each time.
        assert client.get("/api/cases/", HTTP_ACCEPT="application/xml").status_code == 406
        unknown = client.get("/api/cases/?format=yaml")
        assert unknown.status_code == 404
        assert unknown.json() == {
            "detail": "There is no format “yaml” (parameter format); known: json, api."
        }
    # The HTML and the JSON answers are kept apart in the cache too.
    assert client.get("/api/cases/", HTTP_ACCEPT="text/html")["Content-Type"].startswith(
        "text/html"
    )


def test_the_memos_stay_bounded(client: Client, small_library: None) -> None:
    for i in range(reads.MEMO_SIZE + 10):
        assert (
            client.get(f"/api/cases/?page=1&page_size={1 + i % 100}&kind=incident").status_code
            == 200
        )
        client.get("/api/", HTTP_ACCEPT=f"application/json; q=0.{i % 9 + 1}, text/plain; v={i}")
    # Remembered (not empty), and never more than MEMO_SIZE entries (a full memo starts again).
    assert 0 < len(reads._digests) <= reads.MEMO_SIZE
    assert 0 < len(reads._negotiated) <= reads.MEMO_SIZE
