"""An anonymous reader's library and case pages are cached whole under the library version:
served again with one query, revalidated with ETag/304, never after a write, and never to (or
from) a logged-in reader, whose pages carry their CSRF token."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils.http import http_date

from incidents.models import Case
from incidents.selectors import facet_index
from incidents.services.library_version import bump
from tests.bulk import add_cases
from tests.queries import assert_max_queries

PAGES = ["/", "/?symptom=ecc-error", "/cases/leaky-loader/"]
HTMX_REGION = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "library-region"}


@pytest.fixture
def committed_library(transactional_db: None, small_library: None) -> Iterator[None]:
    """The small library, committed as a server's writes are (nothing is cached inside a
    transaction, where the version read may be rolled back): its rows as `load_library`
    writes them, written back (tests/conftest.py) rather than loaded again for each test."""
    try:
        yield
    finally:
        facet_index.forget()


@pytest.mark.parametrize("path", PAGES)
def test_an_anonymous_page_is_served_again_for_one_query(
    client: Client, committed_library: None, path: str
) -> None:
    first = client.get(path)
    assert first.status_code == 200
    # No token in the page, so no CSRF cookie: the page is the same for every anonymous reader.
    assert "csrftoken" not in first.cookies
    assert "X-CSRFToken" not in first.content.decode()
    with assert_max_queries(1):  # the library's version, nothing else
        again = client.get(path)
    assert again.content == first.content
    for response in (first, again):
        assert response["Cache-Control"] == "public, no-cache"
        assert response["ETag"] == first["ETag"]
        assert "Cookie" in response["Vary"]
    if path.startswith("/?") or path == "/":
        assert again["Vary"] == first["Vary"] == "HX-Request, Cookie"


@pytest.mark.parametrize("path", PAGES)
def test_a_page_the_reader_holds_is_a_304(
    client: Client, committed_library: None, path: str
) -> None:
    etag = client.get(path)["ETag"]
    response = client.get(path, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag
    assert client.get(path, HTTP_IF_NONE_MATCH='"page-other"').status_code == 200
    # Another address is another page (and another ETag).
    assert client.get(path + ("&" if "?" in path else "?") + "page=1")["ETag"] != etag


def test_a_new_case_is_on_the_next_page_served(client: Client, committed_library: None) -> None:
    before = client.get("/")
    etag = before["ETag"]
    assert "Bulk case 0" not in before.content.decode()
    add_cases(1)
    bump()  # committed: the write a submission or the API makes
    after = client.get("/", HTTP_IF_NONE_MATCH=etag)
    assert after.status_code == 200
    assert "Bulk case 0" in after.content.decode()
    assert after["ETag"] != etag


def test_an_edited_case_page_is_served_at_once(client: Client, committed_library: None) -> None:
    client.get("/cases/leaky-loader/")
    case = Case.objects.get(slug="leaky-loader")
    case.summary = "A summary written after the page was cached."
    case.save()  # commits and bumps the library version
    assert case.summary in client.get("/cases/leaky-loader/").content.decode()


def test_the_htmx_region_and_the_whole_page_are_cached_apart(
    client: Client, committed_library: None
) -> None:
    whole = client.get("/?symptom=ecc-error").content.decode()
    region = client.get("/?symptom=ecc-error", **HTMX_REGION).content.decode()  # type: ignore[arg-type]
    assert "<html" in whole and "<html" not in region
    assert 'id="library-region"' in region
    # Typed in the search box: the box is not sent again.
    typed = client.get(
        "/?symptom=ecc-error",
        **HTMX_REGION,  # type: ignore[arg-type]
        HTTP_HX_TRIGGER="q",
    ).content.decode()
    assert 'hx-swap-oob="true"' in region and 'hx-swap-oob="true"' not in typed
    assert "<html" in client.get("/?symptom=ecc-error").content.decode()


def test_a_missing_case_is_not_cached(client: Client, committed_library: None) -> None:
    assert client.get("/cases/no-such-case/").status_code == 404
    assert client.get("/cases/no-such-case/").status_code == 404


@pytest.fixture
def logged_in(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("reader", password="x"))
    return client


@pytest.mark.parametrize("path", PAGES)
def test_a_logged_in_reader_gets_their_own_page_and_token(
    logged_in: Client, committed_library: None, path: str
) -> None:
    anonymous = Client()
    anonymous.get(path)  # cached for anonymous readers
    for _ in range(2):
        response = logged_in.get(path)
        page = response.content.decode()
        assert "Log out reader" in page
        assert 'hx-headers=\'{"X-CSRFToken": "' in page
        assert "private" in response["Cache-Control"]
        assert "ETag" not in response
    # ... and what they were shown is not served to anyone else.
    assert "Log out" not in anonymous.get(path).content.decode()


def test_pages_cached_by_other_code_are_not_served(
    client: Client, committed_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a deploy (another build digest) neither the cache nor a browser's ETag gives the
    page the previous code rendered."""
    from incidents.views import whole_pages

    first = client.get("/")
    with assert_max_queries(1):  # the version: the page from the cache
        client.get("/")
    monkeypatch.setattr(whole_pages, "build_digest", lambda: "another-release")
    with assert_max_queries(3) as captured:
        again = client.get("/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]
    # rendered again (the version, the page's cases; SQLite reads their values apart), not
    # served from the cache
    assert len(captured.captured_queries) > 1


@pytest.mark.parametrize("path", PAGES)
def test_a_date_alone_does_not_confirm_a_page_of_other_code(
    client: Client, committed_library: None, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The library has not changed since the date a browser holds, but the code has: only the
    ETag (which names the code) confirms a copy, so the pages carry no Last-Modified and a bare
    If-Modified-Since gets the page."""
    from incidents.views import whole_pages

    first = client.get(path)
    assert "Last-Modified" not in first
    monkeypatch.setattr(whole_pages, "build_digest", lambda: "another-release")
    again = client.get(path, HTTP_IF_MODIFIED_SINCE=http_date(time.time()))
    assert again.status_code == 200
    assert again.content and again["ETag"] != first["ETag"]


@pytest.mark.parametrize("path", ["/?utm_source=x", "/?symptom=ecc-error&x=1", PAGES[2] + "?x=1"])
def test_a_page_with_a_parameter_it_does_not_read_is_not_cached(
    client: Client, committed_library: None, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """Made-up addresses (`?x=<random>`) would each take a cache entry and push out the pages
    readers use: they are rendered every time, with their ETag and 304 as any page."""
    stored: list[str] = []
    cache_set = cache.set

    def recording_set(key: str, *args: Any, **kwargs: Any) -> None:
        stored.append(key)
        cache_set(key, *args, **kwargs)

    monkeypatch.setattr(cache, "set", recording_set)
    first = client.get(path)
    again = client.get(path)
    assert first.status_code == again.status_code == 200
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert [key for key in stored if key.startswith("page:")] == []
    assert client.get(path, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    # The parameters the library page reads are cached: the version's query only.
    known = "/?q=memory&symptom=ecc-error&words=leak&page=1"
    client.get(known)
    with assert_max_queries(1):
        client.get(known)
    assert len([key for key in stored if key.startswith("page:")]) == 1


def test_the_warm_up_takes_the_code_digest_before_files_change(
    tmp_path: Path, settings: Any
) -> None:
    """gunicorn's master warms up before it forks: a worker forked after a deploy replaced the
    files in place caches and validates its pages under the digest of the code it runs (the
    master's), not of the files now on disk."""
    from incidents.config.warmup import warm
    from incidents.views import whole_pages

    template = tmp_path / "extra.html"
    template.write_text("the release loaded")
    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine.get("DIRS", []), str(tmp_path)]}]
    whole_pages.build_digest.cache_clear()
    try:
        warm()
        template.write_text("the next release, copied over it")
        on_disk = whole_pages.build_digest.__wrapped__()
        assert whole_pages.build_digest() != on_disk
    finally:
        whole_pages.build_digest.cache_clear()
