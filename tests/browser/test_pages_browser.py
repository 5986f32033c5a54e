"""The case, cost and submission pages in a real browser (Debian's chromium)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from playwright.sync_api import Page, expect

from incidents.models import Case, CostFigure, CostMetric

pytestmark = pytest.mark.django_db(transaction=True)


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


def test_cost_view_draws_its_chart_next_to_a_table(
    page: Page, live_server: object, small_library: None, screenshot_dir: Path
) -> None:
    hbm = Case.objects.get(slug="hbm-failures")
    CostFigure.objects.create(
        case=hbm,
        metric=CostMetric.GPU_HOURS_LOST,
        value=900,
        source_url="https://example.org/report",
    )
    page.goto(_url(live_server, "/cost/"))
    chart = page.get_by_role("img", name="Cases and GPU-hours lost per root cause")
    expect(chart).to_be_visible()
    expect(page.locator("svg rect.bar-cases")).to_have_count(2)  # hardware fault, software bug
    expect(page.locator("svg rect.bar-cost")).to_have_count(1)
    box = page.locator("svg rect.bar-cost").bounding_box()
    assert box is not None and box["width"] > 100  # drawn to scale, not a hairline
    table = page.get_by_role("table", name=re.compile("Cases and reported cost per root cause"))
    expect(table.get_by_role("row")).to_have_count(3)
    expect(table.get_by_role("rowheader", name="Hardware fault")).to_be_visible()

    # Changing the breakdown with the keyboard only: the form is a plain GET form.
    page.get_by_label("Break down by").focus()
    page.keyboard.press("End")  # the last facet: organisations
    page.get_by_role("button", name="Show").press("Enter")
    expect(page).to_have_url(re.compile(r"/cost/\?by=organisation"))
    expect(page.get_by_role("img", name=re.compile("per organisation"))).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "cost-view.png"), full_page=True)


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


def test_submit_form_prefills_suggestions_and_saves(
    page: Page,
    live_server: object,
    small_library: None,
    django_user_model: Any,
    screenshot_dir: Path,
) -> None:
    _log_in_editor(page, live_server, django_user_model)
    _submit_flow(page, live_server)
    page.screenshot(path=str(screenshot_dir / "submitted-case-page.png"), full_page=True)
    assert Case.objects.filter(slug="a-leaking-dataloader-times-out-nccl-again").exists()


@pytest.mark.no_javascript
def test_submit_form_works_without_javascript(
    page: Page, live_server: object, small_library: None, django_user_model: Any
) -> None:
    _log_in_editor(page, live_server, django_user_model)
    _submit_flow(page, live_server)
