"""The graph in a real browser (Debian's chromium) at 1400x1000: readable at the seeded
library's size and at 1,000 cases (at most 60 nodes, labels at least 11 px, none overlapping),
nodes reachable by mouse and keyboard, two clicks from the Acme case to what fixed NCCL
timeouts elsewhere, and the library page's lazy panel. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page
from playwright.sync_api import expect

from incidents.models import Case
from tests.bulk import add_cases

ACME = "acme-seren-kalos-pretraining-failures"

# Every text drawn in an SVG: its on-screen box and font size (after any scaling of the SVG).
BOXES = """svg => Array.from(svg.querySelectorAll('text')).map(t => {
  const b = t.getBoundingClientRect();
  const scale = t.getScreenCTM().a;
  return {text: t.textContent.trim(), x: b.x, y: b.y, w: b.width, h: b.height,
          px: parseFloat(getComputedStyle(t).fontSize) * scale};
})"""
DOTS = """svg => Array.from(svg.querySelectorAll('a.node .dot')).map(d => {
  const b = d.getBoundingClientRect();
  return {text: d.closest('a').dataset.id, x: b.x, y: b.y, w: b.width, h: b.height};
})"""


def _url(live_server: object, path: str) -> str:
    return f"{live_server.url}{path}"  # type: ignore[attr-defined]


def _overlaps(a: dict[str, Any], b: dict[str, Any], slack: float = 0.5) -> bool:
    return (
        a["x"] + a["w"] - slack > b["x"]
        and b["x"] + b["w"] - slack > a["x"]
        and a["y"] + a["h"] - slack > b["y"]
        and b["y"] + b["h"] - slack > a["y"]
    )


def assert_readable(page: Page, svg_selector: str, *, most_nodes: int) -> int:
    """At most `most_nodes` nodes; every text at least 11 px; no two texts overlapping, and no
    text over another node's dot. Returns the number of nodes drawn."""
    svg = page.locator(svg_selector)
    expect(svg).to_be_visible()
    nodes = svg.locator("a.node").count()
    assert 1 <= nodes <= most_nodes, nodes
    texts = svg.evaluate(BOXES)
    assert len(texts) >= nodes
    small = [t for t in texts if t["px"] < 11]
    assert not small, small[:3]
    clashes = [
        (a["text"], b["text"])
        for i, a in enumerate(texts)
        for b in texts[i + 1 :]
        if a["text"] and b["text"] and _overlaps(a, b)
    ]
    assert not clashes, clashes[:5]
    dots = svg.evaluate(DOTS)
    labels = svg.evaluate(
        "svg => Array.from(svg.querySelectorAll('a.node')).map(a => a.dataset.id)"
    )
    label_boxes = [t for t in texts if t["h"]][-len(labels) :]
    covered = [
        (label_id, dot["text"])
        for label_id, box in zip(labels, label_boxes, strict=True)
        for dot in dots
        if dot["text"] != label_id and _overlaps(box, dot)
    ]
    assert not covered, covered[:5]
    return nodes


def test_overview_of_the_seeded_library_is_readable(
    page: Page, live_server: object, seeded_library: None, screenshot: Callable[..., None]
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(_url(live_server, "/graph/"))
    expect(page.locator("h1")).to_have_text(f"What {Case.objects.count()} cases share")
    page.locator("#graph-svg").scroll_into_view_if_needed()
    screenshot(page, "graph-overview-seeded-1400x1000.png")
    drawn = assert_readable(page, "#graph-svg", most_nodes=60)
    assert drawn >= 40  # the seeded library has more than 60 candidates: the budget is used
    expect(page.locator(".legend li")).to_have_count(6)  # five kinds and the size note
    screenshot(page, "graph-overview-seeded-full.png", full_page=True)


@pytest.mark.django_db(transaction=True)  # adds cases
def test_overview_of_1000_cases_is_readable(
    page: Page, live_server: object, seeded_library: None, screenshot: Callable[..., None]
) -> None:
    add_cases(1000 - Case.objects.count())
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(_url(live_server, "/graph/"))
    expect(page.locator("h1")).to_have_text("What 1000 cases share")
    page.locator("#graph-svg").scroll_into_view_if_needed()
    screenshot(page, "graph-overview-1000-1400x1000.png")
    assert assert_readable(page, "#graph-svg", most_nodes=60) >= 40


def test_focus_views_are_readable(
    page: Page, live_server: object, seeded_library: None, screenshot: Callable[..., None]
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    for name, path in {
        "case": f"/graph/?focus=case:{ACME}",
        "symptom": f"/graph/?focus=symptom:nccl-timeout&from=case:{ACME}",
        "remediation": "/graph/?focus=remediation:restart-from-last-checkpoint",
    }.items():
        page.goto(_url(live_server, path))
        page.locator("#graph-svg").scroll_into_view_if_needed()
        screenshot(page, f"graph-focus-{name}-1400x1000.png")
        assert_readable(page, "#graph-svg", most_nodes=61)


def test_from_the_acme_case_two_clicks_reach_what_fixed_nccl_timeouts_elsewhere(
    page: Page, live_server: object, seeded_library: None, screenshot: Callable[..., None]
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(_url(live_server, f"/cases/{ACME}/"))
    page.locator("#case-graph-link").click()  # one
    expect(page.locator("h1")).to_contain_text("what it shares with other cases")
    page.locator('#graph-svg a.node[data-id="symptom:nccl-timeout"]').click()  # two
    expect(page.locator("h1")).to_have_text("What fixed NCCL timeout elsewhere")
    remediations = page.locator("#graph-svg a.node-remediation")
    expect(remediations.first).to_be_visible()
    assert remediations.count() >= 5
    screenshot(page, "graph-what-fixed-nccl-timeout-elsewhere.png")


def test_nodes_are_links_reached_by_keyboard_and_highlight_their_links(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(_url(live_server, "/graph/"))
    node = page.locator('#graph-svg a.node[data-id="symptom:nccl-timeout"]')
    node.focus()
    expect(node).to_be_focused()
    # With the script, a focused node lights its links (far ones included) and dims others.
    expect(page.locator("#graph-svg")).to_have_class(re.compile("highlighting"))
    lit = page.locator("#graph-svg .edge.lit")
    assert lit.count() >= 2
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/graph/\?focus=symptom%3Anccl-timeout$"))
    expect(page.locator("h1")).to_have_text("What fixes NCCL timeout?")
    # Tab moves from node to node inside the drawing.
    first = page.locator("#graph-svg a.node").first
    first.focus()
    page.keyboard.press("Tab")
    expect(page.locator("#graph-svg a.node").nth(1)).to_be_focused()


def test_chips_remove_filters_and_keep_the_focus(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(_url(live_server, "/graph/?organisation=meta&focus=root_cause:hardware-fault"))
    expect(page.locator("h1")).to_have_text("What fixes Hardware fault?")
    chip = page.locator(".applied a.chip", has_text="Meta")
    expect(chip).to_be_visible()
    chip.click()
    expect(page).to_have_url(re.compile(r"/graph/\?focus=root_cause%3Ahardware-fault$"))
    expect(page.locator(".applied .chip")).to_have_count(0)


def test_the_library_page_loads_its_graph_panel_after_the_list(
    page: Page, live_server: object, seeded_library: None, screenshot: Callable[..., None]
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(_url(live_server, "/?symptom=nccl-timeout"))
    expect(page.locator(".case-row").first).to_be_visible()
    panel = page.locator("#graph-panel")
    expect(panel).to_contain_text("What 7 cases share")
    expect(page).to_have_title("7 cases · Incident Library")  # not the drawing's SVG title
    panel.scroll_into_view_if_needed()
    # caret="initial": Playwright would otherwise leave style="" on the focused search box, which
    # htmx then copies onto the box it swaps in, an inline style the CSP refuses.
    screenshot(page, "graph-panel-library.png", caret="initial")
    assert_readable(page, "#graph-panel svg", most_nodes=24)
    # A filter applied on the library page (an htmx swap) reloads the panel for it.
    page.locator(".applied a.chip", has_text="NCCL timeout").click()
    expect(panel).to_contain_text(f"What {Case.objects.count()} cases share")
    page.evaluate("window.__samePage = true")
    panel.locator('a.node[data-id="symptom:job-failure"]').click()
    expect(page).to_have_url(re.compile(r"/graph/\?focus=symptom%3Ajob-failure$"))
    expect(page.locator("h1")).to_have_text("What fixes Job failure?")
    # A page of its own, not the graph page swapped into the library's region.
    assert page.evaluate("window.__samePage === undefined")
    expect(page.locator("#library-region")).to_have_count(0)


@pytest.mark.no_javascript
def test_the_graph_works_without_javascript(
    page: Page, live_server: object, small_library: None
) -> None:
    page.goto(_url(live_server, "/graph/"))
    assert assert_readable(page, "#graph-svg", most_nodes=60) >= 5
    page.locator('#graph-svg a.node[data-id="remediation:restart-from-last-checkpoint"]').click()
    expect(page.locator("h1")).to_have_text("What “Restart from last checkpoint” was used against")


def test_the_draw_form_adds_contributing_factors_and_keeps_the_filters(
    page: Page, live_server: object, seeded_library: None
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(_url(live_server, "/graph/?symptom=nccl-timeout"))
    expect(page.locator("#graph-svg a.node-contributing_factor")).to_have_count(0)
    page.get_by_role("checkbox", name="Contributing factors").check()
    page.get_by_role("button", name="Apply").click()
    expect(page).to_have_url(re.compile(r"symptom=nccl-timeout.*show=contributing_factor"))
    expect(page.locator("#graph-svg .column-title").first).to_have_text(
        "Root causes and contributing factors"
    )
    assert page.locator("#graph-svg a.node-contributing_factor").count() >= 1
    assert_readable(page, "#graph-svg", most_nodes=60)
