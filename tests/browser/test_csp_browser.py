"""Every page under the enforced Content Security Policy (no inline script or style): the pages
work, and the browser reports no refused script, style or connection (the `page` fixture fails a
test on any CSP message)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser
from playwright.sync_api import Page
from playwright.sync_api import expect

from tests.browser.waits import settle

PAGES = [
    "/",
    "/cases/leaky-loader/",
    "/browse/",
    "/symptoms/",
    "/cost/",
    "/graph/",
    "/checks/",
    "/accounts/login/",
    "/api/docs/",
    "/no-such-page/",
]


def test_the_policy_is_sent_and_refuses_inline_script(
    browser: Browser, live_server: object, small_library: None
) -> None:
    # Its own page: the `page` fixture would fail on the refusal this test provokes.
    context = browser.new_context()
    page = context.new_page()
    refused: list[str] = []
    page.on("console", lambda message: refused.append(message.text))
    response = page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert refused == []
    # A script injected into the page is refused: the policy is live, not only sent. (An
    # inline script runs as it is appended, if it runs; the refusal is reported after.)
    with page.expect_console_message(lambda message: "Content Security Policy" in message.text):
        page.evaluate(
            "() => { const s = document.createElement('script'); s.textContent = 'window.ran = 1';"
            " document.head.appendChild(s); }"
        )
    ran = page.evaluate("() => window.ran")
    context.close()
    assert ran is None
    assert any("Content Security Policy" in text for text in refused)


@pytest.mark.parametrize("path", PAGES)
def test_each_page_loads_under_the_policy(
    page: Page, live_server: object, small_library: None, path: str
) -> None:
    page.goto(f"{live_server.url}{path}")  # type: ignore[attr-defined]
    # All the page asks for (its lazy panel, the API docs' schema) loaded and swapped in: a
    # refusal by any of it fails the test (the `page` fixture).
    settle(page)
    expect(page.locator("body")).to_be_visible()


def test_htmx_filters_and_the_graph_work_under_the_policy(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    assert page.evaluate("() => typeof window.htmx") == "object"
    page.goto(f"{live_server.url}/graph/")  # type: ignore[attr-defined]
    # The graph's script runs under the policy: it wires the drawing (and highlights on focus).
    expect(page.locator("svg.graph-svg[data-wired=true]").first).to_be_attached()
    page.goto(f"{live_server.url}/api/docs/")  # type: ignore[attr-defined]
    expect(page.locator(".swagger-ui").first).to_be_visible()
