"""The case, cost and submission pages in a real browser (Debian's chromium)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from playwright.sync_api import Page
from playwright.sync_api import expect

from incidents.models import Case


def _url(live_server: object, path: str) -> str:
    return f"{live_server.url}{path}"  # type: ignore[attr-defined]


def _log_in_editor(page: Page, live_server: object, django_user_model: Any) -> None:
    user = django_user_model.objects.create_user("editor", password="x")
    user.user_permissions.add(Permission.objects.get(codename="add_case"))
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": client.cookies["sessionid"].value,
                "url": _url(live_server, "/"),
            }
        ]
    )


def test_cost_view_shows_the_lesson_above_the_fold_from_data(
    page: Page, live_server: object, seeded_library: None, screenshot: Callable[..., None]
) -> None:
    """With no filters, a category rare by count and dominant by cost (Acme's infrastructure
    failures) is in the first screen at 1400x1000, from the data, with its source."""
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(_url(live_server, "/cost/"))
    headline = page.locator("#cost-headline")
    expect(headline).to_be_visible()
    expect(headline).to_contain_text("Infrastructure")
    expect(headline.locator(".hl-count")).to_have_text("11%")
    expect(headline.locator(".hl-cost")).to_have_text("more than 82%")
    source = headline.get_by_role("link", name=re.compile("arXiv 2403.07648"))
    expect(source).to_have_attribute("href", "https://arxiv.org/abs/2403.07648")
    screenshot(page, "cost-view-1400x1000.png")
    box = headline.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= 1000, box  # above the fold
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1400, box
    # Its chart marks the same category, and a table beside the chart carries the numbers.
    panel = page.locator("article.share-panel").first
    expect(panel.locator("svg g.called-out text.chart-label")).to_contain_text("Infrastructure")
    row = panel.get_by_role("table").get_by_role("row", name=re.compile("Infrastructure"))
    expect(row.get_by_role("cell").nth(1)).to_have_text("> 82%")
    screenshot(page, "cost-view-full.png", full_page=True)


def test_cost_view_reads_on_a_narrow_screen(
    page: Page, live_server: object, seeded_library: None, screenshot: Callable[..., None]
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(_url(live_server, "/cost/?organisation=shanghai-ai-laboratory"))
    expect(page.locator("#cost-headline")).to_contain_text("more than 82%")
    # Nothing but the charts' own scroll boxes is wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    table = page.locator("article.share-panel table").first
    expect(table).to_be_visible()
    size = "parseFloat(getComputedStyle(document.querySelector('.share-table td')).fontSize)"
    assert page.evaluate(size) >= 12
    screenshot(page, "cost-view-390.png", full_page=True)


def _submit_flow(page: Page, live_server: object) -> None:
    page.goto(_url(live_server, "/submit/"))
    page.get_by_label("Postmortem text").fill("Our NCCL timeouts came from a leaking dataloader.")
    page.get_by_role("button", name="Suggest values from the text").click()
    expect(page.locator("#suggested")).to_contain_text("Symptom: NCCL timeout")
    expect(page.get_by_role("checkbox", name="NCCL timeout")).to_be_checked()
    expect(page.get_by_role("checkbox", name="Training data loader")).to_be_checked()
    expect(page.get_by_label("Postmortem text")).to_have_value(
        "Our NCCL timeouts came from a leaking dataloader."
    )
    page.get_by_label("Title:", exact=True).fill("A leaking dataloader times out NCCL again")
    page.get_by_label("Started:", exact=True).fill("2025-01")
    page.get_by_label("Summary:", exact=True).fill(
        "Collectives timed out while a data loader leaked memory."
    )
    page.get_by_role("checkbox", name="Shanghai AI Laboratory").check()
    page.get_by_label("Source 1 URL").fill("https://example.org/dataloader-leak")
    page.get_by_role("button", name="Add the case").click()
    expect(page.get_by_role("heading", name="Case added")).to_be_visible()
    page.get_by_role("link", name="A leaking dataloader times out NCCL again").click()
    expect(page.get_by_role("heading", name="Similar cases")).to_be_visible()
    expect(page.locator("#similar-heading + ul")).to_contain_text("A leaking data loader stalls")


@pytest.mark.django_db(transaction=True)  # logs in, saves a case
def test_submit_form_prefills_suggestions_and_saves(
    page: Page,
    live_server: object,
    small_library: None,
    django_user_model: Any,
    screenshot: Callable[..., None],
) -> None:
    _log_in_editor(page, live_server, django_user_model)
    _submit_flow(page, live_server)
    screenshot(page, "submitted-case-page.png", full_page=True)
    assert Case.objects.filter(slug="a-leaking-dataloader-times-out-nccl-again").exists()


@pytest.mark.django_db(transaction=True)  # logs in, saves a case
@pytest.mark.no_javascript
def test_submit_form_works_without_javascript(
    page: Page, live_server: object, small_library: None, django_user_model: Any
) -> None:
    _log_in_editor(page, live_server, django_user_model)
    _submit_flow(page, live_server)
