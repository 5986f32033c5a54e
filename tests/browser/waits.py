"""Waiting for a page to have finished what it started, instead of waiting for quiet.

`networkidle` waits for 500 ms without a request; a page here starts all it loads before its
`load` event (its styles and scripts, the library page's lazy graph panel, the API docs' schema),
so the condition is known: the page loaded, no request it made still open, and htmx done
swapping and settling what came back (a swap can ask for more: the loop looks again). Then one
task more, for the browser to report what the swapped content did (a refusal of the Content
Security Policy is reported as an event queued by then).
"""

from __future__ import annotations

import time
from weakref import WeakKeyDictionary

from playwright.sync_api import Page
from playwright.sync_api import Request

_open: WeakKeyDictionary[Page, set[Request]] = WeakKeyDictionary()

HTMX_IDLE = """() => !window.htmx ||
  !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"""
NEXT_TASK = "() => new Promise(done => setTimeout(done, 0))"


def track(page: Page) -> None:
    """Keep the requests `page` has open (made, neither finished nor failed yet)."""
    requests: set[Request] = set()
    _open[page] = requests
    page.on("request", lambda request: requests.add(request))
    page.on("requestfinished", lambda request: requests.discard(request))
    page.on("requestfailed", lambda request: requests.discard(request))


def settle(
    page: Page, *, javascript: bool = True, timeout_s: float = 15, poll_ms: float = 10
) -> None:
    """Wait until `page` loaded, has no request open and (with JavaScript) htmx has settled its
    swaps."""
    deadline = time.monotonic() + timeout_s
    page.wait_for_load_state("load")
    requests = _open[page]
    while True:
        while requests:
            assert time.monotonic() < deadline, f"still open: {[r.url for r in requests]}"
            page.wait_for_timeout(poll_ms)  # lets Playwright deliver the requests' events
        if not javascript:
            return
        # (Polled by time, not by frame: a page restored by Back may draw no frame for a while.)
        page.wait_for_function(HTMX_IDLE, polling=poll_ms)
        page.evaluate(NEXT_TASK)
        if not requests:
            return
