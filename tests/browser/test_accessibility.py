"""Accessibility of the library page, measured in the browser: names, contrast, live region."""

from __future__ import annotations

import re

from playwright.sync_api import Page
from playwright.sync_api import expect

# WCAG 2 contrast ratio of an element's text against the first opaque background behind it.
CONTRAST_JS = """
(selector) => {
  const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  return [...document.querySelectorAll(selector)].slice(0, 5).map((el) => {
    let node = el, bg = null;
    while (node && !bg) {
      const c = rgb(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) bg = c.slice(0, 3);
      node = node.parentElement;
    }
    bg = bg || [255, 255, 255];
    const fg = rgb(getComputedStyle(el).color).slice(0, 3);
    const [a, b] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  });
}
"""

TEXT_SELECTORS = [
    "body",
    ".lede",
    ".help",
    ".bar-label",
    ".bar-empty",
    ".chip-facet",
    ".chip-value",
    ".count",
    ".range",
    ".meta",
    ".row-values dt",
    ".row-values a",
    ".facet h3",
    ".facet-link",
    ".facet-exclude",
    ".is-selected .facet-link",
    ".chip-excluded .chip-value",
    ".clear-all",
    ".site-header nav a",
    "button",
    ".search-box input",
]


def _low_contrast(page: Page, selectors: list[str]) -> dict[str, float]:
    low = {}
    for selector in selectors:
        ratios = page.evaluate(CONTRAST_JS, selector)
        assert ratios, f"nothing matched {selector}"
        if min(ratios) < 4.5:
            low[selector] = round(min(ratios), 2)
    return low


def test_text_has_sufficient_contrast(page: Page, live_server: object, small_library: None) -> None:
    page.goto(f"{live_server.url}/?component=network&not_organisation=shanghai-ai-laboratory")  # type: ignore[attr-defined]
    low = _low_contrast(page, TEXT_SELECTORS)
    page.locator("#q").fill("collective timeout")
    expect(page.locator(".suggested .chip")).to_have_count(1)
    low |= _low_contrast(
        page, [".chip-suggested .chip-facet", ".chip-suggested .count", ".matched"]
    )
    assert not low, f"text below WCAG AA contrast (4.5:1): {low}"


def test_every_control_has_a_name(page: Page, live_server: object, small_library: None) -> None:
    page.goto(f"{live_server.url}/?q=nccl+timeout&symptom=job-crash")  # type: ignore[attr-defined]
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('a[href], button, input:not([type=hidden])')]
            .filter((el) => {
              const labelled = el.labels && el.labels.length > 0;
              const text = (el.getAttribute('aria-label') || el.textContent || '').trim();
              return !labelled && !text;
            })
            .map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
    expect(page.get_by_role("searchbox", name="Search in plain words")).to_be_visible()
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    expect(page.get_by_role("link", name=re.compile(r"^Network 1 case"))).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"^not Network: exclude"))).to_be_visible()


def test_the_live_region_announces_new_counts(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(f"{live_server.url}/")  # type: ignore[attr-defined]
    status = page.get_by_role("status")
    expect(status).to_have_text("3 cases")
    handle = status.element_handle()
    page.locator("#f-symptom-nccl-timeout").click()
    expect(status).to_have_text("2 cases")
    # The same element, updated in place: screen readers announce changes to a live region
    # that was already on the page, not a new one swapped in.
    assert handle is not None and handle.evaluate("el => el.isConnected")
