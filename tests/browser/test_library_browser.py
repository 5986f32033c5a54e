"""The library page in a real browser: facets, chips, Back, suggestions, keyboard, no JavaScript."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page
from playwright.sync_api import expect

SENTENCE = "our nccl timeouts came from a leaking data loader"


def _listed(page: Page) -> list[str]:
    hrefs = page.locator(".case-row h3 a").evaluate_all("els => els.map(e => e.pathname)")
    return [h.strip("/").removeprefix("cases/") for h in hrefs]


def _mark_document(page: Page) -> None:
    """Tag the window, to tell an htmx swap (tag kept) from a full page load (tag gone)."""
    page.evaluate("window.__sameDocument = true")


def _same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def test_facet_click_chip_removal_and_back(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    assert page.evaluate("htmx.version").startswith("2.")
    assert _listed(page) == ["hbm-failures", "leaky-loader", "flaky-network"]
    _mark_document(page)

    page.locator("#f-symptom-nccl-timeout").click()
    expect(page).to_have_url(re.compile(r"/\?symptom=nccl-timeout$"))
    expect(page.locator(".case-row")).to_have_count(2)
    expect(page.locator(".applied .chip")).to_have_text(re.compile(r"Symptom\s+NCCL timeout"))
    expect(page.locator("#result-status")).to_have_text("2 cases")
    expect(page).to_have_title("2 cases · Incident Library")
    assert _same_document(page), "the facet click reloaded the whole page"

    page.locator("#f-organisation-meta").click()
    expect(page).to_have_url(re.compile(r"symptom=nccl-timeout&organisation=meta$"))
    assert _listed(page) == ["flaky-network"]

    page.locator(".applied a.chip", has_text="NCCL timeout").click()
    expect(page).to_have_url(re.compile(r"/\?organisation=meta$"))
    expect(page.locator(".case-row")).to_have_count(2)
    expect(page.locator(".applied .chip")).to_have_count(1)

    page.go_back()
    expect(page).to_have_url(re.compile(r"symptom=nccl-timeout&organisation=meta$"))
    expect(page.locator(".case-row")).to_have_count(1)
    expect(page.locator(".applied .chip")).to_have_count(2)
    page.go_back()
    expect(page).to_have_url(re.compile(r"/\?symptom=nccl-timeout$"))
    expect(page.locator(".case-row")).to_have_count(2)


def test_exclude_a_value(page: Page, live_server: object, small_library: None) -> None:
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    page.locator("#x-organisation-meta").click()
    expect(page).to_have_url(re.compile(r"/\?not_organisation=meta$"))
    expect(page.locator(".applied .chip")).to_have_text(re.compile(r"Organisation\s+not Meta"))
    assert _listed(page) == ["leaky-loader"]


def test_typing_words_suggests_filters_to_click(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    _mark_document(page)
    history = page.evaluate("history.length")
    page.locator("#q").press_sequentially(SENTENCE, delay=15)
    suggestion = page.locator("#s-symptom-nccl-timeout")
    expect(suggestion).to_contain_text("NCCL timeout")
    expect(page.locator("#s-component-training-data-loader")).to_contain_text(
        "Training data loader"
    )
    expect(page).to_have_url(re.compile(r"\?q=our(\+|%20)nccl(\+|%20)timeouts"))
    # Typing did not take the focus away from the box or the words out of it.
    assert page.evaluate("document.activeElement.id") == "q"
    expect(page.locator("#q")).to_have_value(SENTENCE)
    # Typing replaces the URL (shareable) without a history entry per pause.
    assert page.evaluate("history.length") == history

    suggestion.click()
    expect(page).to_have_url(re.compile(r"symptom=nccl-timeout"))
    expect(page.locator(".applied .chip")).to_have_count(1)
    expect(page.locator("#q")).to_have_value("")
    page.locator("#s-component-training-data-loader").click()
    expect(page.locator(".applied .chip")).to_have_count(2)
    assert _listed(page) == ["leaky-loader"]
    assert _same_document(page)


def test_back_to_a_search_shows_its_words_in_the_box(
    page: Page, live_server: object, small_library: None
) -> None:
    """Back from a suggestion to the search, typed or submitted, shows the words searched for
    in the box as well as their cases (htmx restores the page it saved when the suggestion was
    clicked; a typed value is no attribute, so the box came back empty)."""
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    page.locator("#q").press_sequentially(SENTENCE, delay=15)
    page.locator("#s-symptom-nccl-timeout").click()
    expect(page).to_have_url(re.compile(r"symptom=nccl-timeout"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"\?q=our(\+|%20)nccl(\+|%20)timeouts"))
    expect(page.locator(".applied .chip")).to_have_text(re.compile(r"Search\s+" + SENTENCE))
    expect(page.locator("#q")).to_have_value(SENTENCE)

    page.locator("#q").fill("memory")
    page.locator("#q").press("Enter")
    expect(page).to_have_url(re.compile(r"/\?q=memory$"))
    page.locator("#f-organisation-meta").click()
    expect(page).to_have_url(re.compile(r"organisation=meta"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/\?q=memory$"))
    expect(page.locator("#q")).to_have_value("memory")


def test_a_part_saved_mid_swap_comes_back_settled(
    page: Page, live_server: object, small_library: None
) -> None:
    """A click while a part is still being swapped in (the graph panel loads after the list)
    saves the page for Back with htmx's transient classes on that part; Back must restore it
    settled, not mid-swap for good."""
    page.goto(f"{live_server.url}/?q=memory")  # type: ignore[attr-defined]
    page.locator("#graph-panel").evaluate(
        "panel => panel.classList.add('htmx-added', 'htmx-settling')"
    )
    page.locator("#f-organisation-meta").click()
    expect(page).to_have_url(re.compile(r"organisation=meta"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/\?q=memory$"))
    expect(page.locator("#graph-panel")).to_be_attached()
    transient = ".htmx-added, .htmx-settling, .htmx-swapping"
    expect(page.locator(transient)).to_have_count(0)


def test_keyboard_only_filtering_with_visible_focus(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "f-component-network":
            break
    else:
        pytest.fail("Tab never reached the Network facet value")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid", "the focused facet value shows no focus ring"
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/\?component=network$"))
    expect(page.locator(".case-row")).to_have_count(1)
    # Focus stays on the value just used, so the next Tab continues from there.
    expect(page.locator("#f-component-network")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/\??$"))
    expect(page.locator(".case-row")).to_have_count(3)

    page.locator("#q").focus()
    page.keyboard.type("memory")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/\?q=memory$"))
    expect(page.locator(".case-row")).to_have_count(2)


@pytest.mark.no_javascript
def test_everything_works_without_javascript(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    page.locator("#f-component-network").click()
    expect(page).to_have_url(re.compile(r"/\?component=network$"))
    page.locator("#q").fill("links")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page).to_have_url(re.compile(r"component=network"))
    expect(page).to_have_url(re.compile(r"q=links"))
    # The address changes when the navigation starts: wait for the new page before reading it.
    page.wait_for_load_state()
    assert _listed(page) == ["flaky-network"]
    page.locator(".applied a.chip", has_text="Network").click()
    expect(page).to_have_url(re.compile(r"/\?q=links$"))


def test_the_issue_bar_on_the_real_library_leads_to_the_case(
    page: Page, live_server: object, screenshot: Callable[..., None], seeded_library: None
) -> None:
    """On the real library: the sentence's two suggestions lead to the Acme case."""
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    page.locator("#q").fill(SENTENCE)
    page.locator("#s-symptom-nccl-timeout").click()
    expect(page).to_have_url(re.compile(r"/\?symptom=nccl-timeout&words="))
    page.locator("#s-component-training-data-loader").click()
    expect(page.locator(".applied .chip")).to_have_count(2)
    assert "acme-seren-kalos-pretraining-failures" in _listed(page)
    page.locator("#f-organisation-shanghai-ai-laboratory").click()
    expect(page.locator(".applied .chip")).to_have_count(3)
    assert _listed(page) == ["acme-seren-kalos-pretraining-failures"]
    screenshot(page, "library-page.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "library-page-phone.png", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 900})

    page.locator(".case-row h3 a").first.click()
    expect(page).to_have_url(re.compile(r"/cases/acme-seren-kalos-pretraining-failures/$"))
    expect(page.locator("h1")).to_contain_text("Acme")
    screenshot(page, "case-page.png", full_page=True)
