"""The library page `/` through Django's client: chips, suggestions, facets, results, htmx."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from tests.bulk import add_cases
from tests.queries import assert_max_queries

# A like case's title beside its suggestion, at most (the template's truncatechars).
LIKE_SHOWN = 50

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "library-region"}
SENTENCE = "our nccl timeouts came from a leaking data loader"


def _html(client: Client, url: str, **headers: str) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200
    return response.content.decode()


def _listed(html: str) -> list[str]:
    return re.findall(r'href="/cases/([\w-]+)/"', html)


def _hrefs(html: str, css_class: str) -> list[str]:
    return [
        unescape(h)
        for h in re.findall(rf'class="{css_class}[^"]*"(?: id="[^"]*")? href="([^"]+)"', html)
    ]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(html)))


def test_every_case_newest_first_with_its_values(client: Client, small_library: None) -> None:
    html = _html(client, "/")
    assert _listed(html) == ["hbm-failures", "leaky-loader", "flaky-network"]
    text = _text(html)
    assert "1 to 3 of 3, newest first" in text
    assert "Shanghai AI Laboratory · Mar 2023 – Aug 2023" in text
    # Each row links its facet values to the cases that share them.
    assert 'href="?symptom=nccl-timeout"' in html


def test_applied_filters_are_chips_that_remove_themselves(
    client: Client, small_library: None
) -> None:
    html = _html(client, "/?symptom=nccl-timeout&not_organisation=meta")
    assert _listed(html) == ["leaky-loader"]
    text = _text(html)
    assert "Symptom NCCL timeout × , remove this filter" in text
    assert "Organisation not Meta ×" in text
    chip_links = _hrefs(html, "chip")
    assert chip_links == ["?not_organisation=meta", "?symptom=nccl-timeout"]
    assert _hrefs(html, "clear-all") == ["?"]


def test_facet_links_toggle_or_within_and_across_facets(
    client: Client, small_library: None
) -> None:
    html = _html(client, "/?component=network")
    # Clicking another component adds it (OR); clicking the selected one removes it.
    assert 'href="?component=network&amp;component=training-data-loader"' in html
    assert 'href="?" data-value="network" aria-current="true"' in html
    # The exclude action replaces an include of the same value.
    assert 'id="x-component-network" href="?not_component=network"' in html
    assert _listed(_html(client, "/?component=network&component=training-data-loader")) == [
        "leaky-loader",
        "flaky-network",
    ]


def test_values_that_would_give_no_case_are_not_offered(
    client: Client, small_library: None
) -> None:
    html = _html(client, "/?organisation=meta&symptom=nccl-timeout")
    # Only flaky-network is left: its component is network; gpu-memory would give nothing.
    assert 'data-value="network"' in html
    assert 'data-value="gpu-memory"' not in html
    assert 'data-value="training-data-loader"' not in html


def test_unknown_value_is_named_and_the_rest_still_applies(
    client: Client, small_library: None
) -> None:
    response = client.get("/?component=no-such-thing&organisation=meta&not_symptom=ghost")
    assert response.status_code == 200
    text = _text(response.content.decode())
    assert "There is no component “no-such-thing” in the library (parameter component)" in text
    assert "There is no symptom “ghost” in the library (parameter not_symptom)" in text
    assert _listed(response.content.decode()) == ["hbm-failures", "flaky-network"]
    # Links built on this page do not carry the unknown value along.
    assert "no-such-thing" not in "".join(_hrefs(response.content.decode(), "chip"))


def test_bad_parameters_are_explained_not_a_crash(client: Client, small_library: None) -> None:
    for url in ["/?page=abc", "/?page=999", "/?q=" + "x" * 5000, '/?q="unclosed', "/?symptom="]:
        assert client.get(url).status_code == 200, url
    html = _html(client, "/?q=%00")
    assert "The q parameter was not used: Null characters are not allowed." in _text(html)


def test_search_words_suggest_filters_with_what_they_would_give(
    client: Client, small_library: None
) -> None:
    html = _html(client, "/?q=" + SENTENCE.replace(" ", "+"))
    text = _text(html)
    assert _listed(html)[0] == "leaky-loader"  # any word matches: never a dead end
    suggested = _hrefs(html, "chip chip-suggested")
    assert suggested[0].startswith("?symptom=nccl-timeout&words=")
    assert "Symptom NCCL timeout 2 cases, found in “nccl timeouts”" in text
    assert "Component Training data loader 1 case, found in “data loader”" in text
    # Following a suggestion turns the words into the filter; the rest stays on offer.
    after = _html(client, "/" + suggested[0])
    assert _listed(after) == ["leaky-loader", "flaky-network"]
    assert "Also named in “our nccl timeouts came from a leaking data loader”" in _text(after)
    second = [h for h in _hrefs(after, "chip chip-suggested") if "training-data-loader" in h]
    final = _html(client, "/" + second[0])
    assert _listed(final) == ["leaky-loader"]


def test_htmx_request_gets_the_region_and_the_count_out_of_band(
    client: Client, small_library: None
) -> None:
    response = client.get("/?symptom=nccl-timeout", HTTP_HX_TRIGGER="q", **HTMX)
    html = response.content.decode()
    assert "<html" not in html
    assert html.lstrip().startswith("<title>2 cases · Incident Library</title>")
    assert '<div id="library-region"' in html
    assert '<p id="result-status" hx-swap-oob="innerHTML">2 cases</p>' in html
    assert 'id="q"' not in html  # the box being typed in is left alone
    assert "HX-Request" in response["Vary"]


def test_a_click_that_changes_the_words_refreshes_the_search_box(
    client: Client, small_library: None
) -> None:
    html = _html(client, "/?symptom=nccl-timeout", HTTP_HX_TRIGGER="", **HTMX)
    assert re.search(r'<input id="q" [^>]*hx-swap-oob="true"', html)


def test_history_restore_and_other_targets_get_the_whole_page(
    client: Client, small_library: None
) -> None:
    restore = client.get("/?symptom=nccl-timeout", HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HTMX)
    assert "<html" in restore.content.decode()
    elsewhere = client.get("/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="main")
    assert "<html" in elsewhere.content.decode()
    full = client.get("/")
    assert "HX-Request" in full["Vary"]


def test_the_page_works_without_javascript(client: Client, small_library: None) -> None:
    html = _html(client, "/?component=network&q=links")
    form = html[html.index('<form id="library-form"') :]
    assert 'method="get"' in form[:200] and 'action="/"' in form[:200]
    assert '<button type="submit">Search</button>' in form
    # The active filters travel with the search words when the form is submitted.
    assert '<input type="hidden" name="component" value="network">' in form
    assert '<script src="/static/django_htmx/htmx-2.min.js"' in html
    assert not re.search(r'<(script|link)[^>]+(src|href)="(https?:)?//', html)


def test_the_live_region_announces_the_count(client: Client, small_library: None) -> None:
    html = _html(client, "/?q=memory")
    assert re.search(r'<p id="result-status"[^>]*role="status"[^>]*aria-live="polite"', html)
    assert "2 cases for “memory”" in _text(html)


def test_pagination_keeps_the_filters(client: Client, small_library: None) -> None:
    add_cases(40)
    html = _html(client, "/?q=synthetic")
    assert "1 to 20 of 40, best match first" in _text(html)
    assert 'href="?q=synthetic&amp;page=2" rel="next"' in html
    page_two = _html(client, "/?q=synthetic&page=2")
    assert "21 to 40 of 40" in _text(page_two)
    assert _listed(page_two)[0] != _listed(html)[0]


@pytest.mark.parametrize(
    ("url", "pin"),
    [
        # The first request of a process: the version, the facet index's build (vocabulary, the
        # cases in order, each value's cases), the page of cases and their facet values (one
        # query on PostgreSQL, two on SQLite). Counts come from the index: counting per facet in
        # SQL again would add one query per facet and break the pin.
        ("/", 7),
        ("/?organisation=meta&not_symptom=job-crash", 7),
        # The same, and the search: the suggestion lexicon (its signature, aliases, the cases'
        # text and tags for the like-cases prior), word rarity, postings, the ranked match, and
        # "did you mean" ("came" is in no case).
        ("/?q=" + SENTENCE.replace(" ", "+"), 15),
    ],
)
def test_query_count_is_pinned_whatever_the_number_of_cases(
    client: Client, small_library: None, url: str, pin: int
) -> None:
    add_cases(40)  # a full page of 20: one query per case would break the pin
    with assert_max_queries(pin):
        assert client.get(url).status_code == 200


def test_the_issue_bar_on_the_real_library(client: Client, seeded_library: None) -> None:
    """/?q=<the sentence> offers the two filters; following them lists the Acme case."""
    for headers in ({}, {**HTMX, "HTTP_HX_TRIGGER": "q"}):
        html = _html(client, "/?q=" + SENTENCE.replace(" ", "+"), **headers)
        suggested = _hrefs(html, "chip chip-suggested")
        assert any(h.startswith("?symptom=nccl-timeout&") for h in suggested)
        assert any(h.startswith("?component=training-data-loader&") for h in suggested)
    first = next(h for h in suggested if h.startswith("?symptom=nccl-timeout&"))
    after = _html(client, "/" + first)
    second = next(h for h in _hrefs(after, "chip chip-suggested") if "training-data-loader" in h)
    final = _html(client, "/" + second)
    assert "acme-seren-kalos-pretraining-failures" in _listed(final)


def test_a_like_case_is_named_short_beside_its_suggestion(
    client: Client, seeded_library: None
) -> None:
    """A suggestion raised by like cases names them in a few words, the whole title on hover:
    four suggestions like one case of 130 characters took four lines of the bar."""
    text = "etcd slow, API server timeouts"
    like = {
        title
        for s in client.get("/api/suggest/", {"q": text}).json()["suggestions"]
        for title in s["like_cases"]
    }
    long_titles = [title for title in like if len(title) > LIKE_SHOWN]
    assert long_titles, "the sentence no longer raises a value through a long-titled like case"
    html = client.get("/", {"q": text}).content.decode()
    matched = " ".join(re.findall(r'<span class="matched"[^>]*>(.*?)</span></li>', html, re.S))
    for title in long_titles:
        assert unescape(title) not in unescape(re.sub(r'title="[^"]*"', "", matched))
        assert f'title="{title}"' in unescape(matched)
        assert title[: LIKE_SHOWN - 1] + "…" in unescape(matched)


def test_the_library_leads_a_first_reader_to_the_cost_view(
    client: Client, small_library: None
) -> None:
    """The library's point (a failure's count is not its cost) is one click from its first
    page, not only in the menu."""
    lede = re.search(r'<p class="lede">(.*?)</p>', _html(client, "/"), re.S)
    assert lede is not None
    assert re.search(r'<a href="/cost/">[^<]*cost the most</a>', lede.group(1))


def test_kind_setting_year_and_ordering_are_chips_too(client: Client, small_library: None) -> None:
    html = _html(client, "/?kind=incident&year_min=2023&ordering=oldest")
    assert _listed(html) == ["leaky-loader"]
    text = _text(html)
    assert "Kind Incident ×" in text and "From year 2023 ×" in text
    assert "1 to 1 of 1, oldest first" in text
    assert _hrefs(html, "chip") == [
        "?year_min=2023&ordering=oldest",
        "?kind=incident&ordering=oldest",
        "?kind=incident&year_min=2023",
    ]


def _sort_links(html: str) -> dict[str, tuple[str, bool]]:
    nav = re.search(r'<nav class="sort".*?</nav>', html, re.S)
    assert nav, "no sort control"
    return {
        label: (unescape(href), bool(current))
        for href, current, label in re.findall(
            r'<a href="([^"]+)"[^>]*?( aria-current="true")?>([^<]+)</a>', nav.group(0)
        )
    }


def test_the_list_can_be_sorted_from_the_page(client: Client, small_library: None) -> None:
    html = _html(client, "/?organisation=meta&page=1")
    links = _sort_links(html)
    assert list(links) == ["Newest first", "Oldest first", "Title, A to Z", "Title, Z to A"]
    assert links["Newest first"] == ("?organisation=meta", True)
    # Each keeps the filters and starts on page 1; the region's links are boosted by htmx.
    oldest, current = links["Oldest first"]
    assert oldest == "?organisation=meta&ordering=oldest" and not current
    region = _html(client, "/" + oldest, **HTMX)
    assert region.lstrip().startswith("<title>") and _listed(region) == [
        "flaky-network",
        "hbm-failures",
    ]
    assert _sort_links(region)["Oldest first"][1]
    with_words = _sort_links(_html(client, "/?q=memory&ordering=title"))
    assert list(with_words)[0] == "Best match" and with_words["Best match"][0] == "?q=memory"
    assert with_words["Title, A to Z"] == ("?q=memory&ordering=title", True)
