"""The library page's cheap rendering keeps what a reader sees: the same links, a short pager,
and cached rows that change as soon as their case does."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.core.cache.utils import make_template_fragment_key
from django.test import Client

from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.presenters.library_page import page_numbers
from incidents.presenters.query_state import QueryState
from incidents.selectors import facet_index
from incidents.selectors.library_version import current
from incidents.services import load_library
from tests.bulk import add_cases
from tests.conftest import SMALL_LIBRARY

STATES = [
    QueryState(),
    QueryState(q="gpu & memory"),
    QueryState(selected=(("symptom", "ecc-error"), ("not_component", "network"))),
    QueryState(
        q="nccl",
        words="nccl timeouts",
        selected=(("symptom", "ecc-error"),),
        options=(("min_cases", "2"),),
        page=3,
        path="/cost/",
    ),
]


@pytest.mark.parametrize("state", STATES, ids=range(len(STATES)))
def test_the_quick_facet_links_are_the_links_of_the_changed_state(state: QueryState) -> None:
    for param in ("symptom", "component", "organisation"):
        for slug in ("ecc-error", "network", "a&b c"):
            assert state.toggled_href(param, slug) == state.toggled(param, slug).href()
            assert (
                state.toggled_exclusion_href(param, slug)
                == state.toggled_exclusion(param, slug).href()
            )


def test_the_pager_links_the_ends_and_the_pages_around_the_current_one() -> None:
    assert page_numbers(1, 1) == [1]
    assert page_numbers(1, 6) == [1, 2, 3, None, 6]
    assert page_numbers(2500, 5000) == [1, None, 2498, 2499, 2500, 2501, 2502, None, 5000]
    assert page_numbers(4, 7) == [1, 2, 3, 4, 5, 6, 7]  # a gap of one page is that page


@pytest.mark.django_db
def test_a_long_library_gets_a_short_pager(client: Client, small_library: None) -> None:
    add_cases(200)  # 203 cases: 11 pages
    html = client.get("/?page=6").content.decode()
    pager = html[html.index('class="pagination"') :]
    linked = re.findall(r'<span class="visually-hidden">Page </span>(\d+)</a>', pager)
    assert linked == ["1", "4", "5", "6", "7", "8", "11"]
    assert pager.count('class="page-gap"') == 2


def _rows(html: str) -> str:
    return html[html.index('<ol class="case-rows"') : html.index("</ol>")]


@pytest.mark.django_db(transaction=True)
def test_cached_case_rows_change_with_their_case(client: Client) -> None:
    load_library([SMALL_LIBRARY])  # committed, as a server's writes are
    try:
        first = client.get("/").content.decode()
        assert "Leaky loader, renamed" not in first
        slugs = re.findall(r'<h3><a href="/cases/([^/]+)/"', _rows(first))
        ids = dict(Case.objects.filter(slug__in=slugs).values_list("slug", "id"))
        version = current()
        key = make_template_fragment_key(
            "case-rows",
            [
                f"{version.number}.{version.changed_at.timestamp()}",
                # each case and which search words it holds (none: no search)
                ",".join(f"{ids[slug]}:" for slug in slugs),
            ],
        )
        # the page's rows were cached under the version and their cases ...
        assert "leaky-loader" in slugs and cache.get(key).strip() in _rows(first)
        # ... and serve another address showing the same cases
        assert _rows(client.get("/?page=1").content.decode()) == _rows(first)
        case = Case.objects.get(slug="leaky-loader")
        case.title = "Leaky loader, renamed"
        case.save()  # commits and bumps the library version
        assert "Leaky loader, renamed" in client.get("/?page=1").content.decode()
    finally:
        facet_index.forget()


@pytest.mark.django_db(transaction=True)
def test_a_cached_case_card_changes_with_its_case(client: Client) -> None:
    load_library([SMALL_LIBRARY])  # committed, as a server's writes are
    try:
        page = client.get("/cases/leaky-loader/").content.decode()
        version = current()
        assert cache.get(
            f"case-card:{version.number}.{version.changed_at.timestamp()}:leaky-loader"
        )
        assert client.get("/cases/leaky-loader/").content.decode().count("<h1") == page.count("<h1")
        case = Case.objects.get(slug="leaky-loader")
        case.summary = "A summary written after the card was cached."
        case.save()  # commits and bumps the library version
        assert case.summary in client.get("/cases/leaky-loader/").content.decode()
        assert client.get("/cases/no-such-case/").status_code == 404
    finally:
        facet_index.forget()


def _meta_count(html: str) -> int:
    link = html[html.index('id="f-organisation-meta"') :]
    return int(re.search(r'<span class="count">(\d+)</span>', link).group(1))  # type: ignore[union-attr]


@pytest.mark.django_db(transaction=True)
def test_cached_facet_trees_change_with_the_library(client: Client) -> None:
    load_library([SMALL_LIBRARY])  # committed, as a server's writes are
    try:
        before = _meta_count(client.get("/").content.decode())
        assert _meta_count(client.get("/").content.decode()) == before  # now from the cache
        # Another query is another tree, not the cached one.
        assert "is-excluded" in client.get("/?not_organisation=meta").content.decode()
        assert "is-excluded" not in client.get("/").content.decode()
        untagged = Case.objects.exclude(links__value__slug="meta").first()
        assert untagged is not None
        meta = FacetValue.objects.get(facet="organisation", slug="meta")
        CaseFacetLink.objects.create(case=untagged, value=meta)  # commits, bumps the version
        assert _meta_count(client.get("/").content.decode()) == before + 1
    finally:
        facet_index.forget()
