"""Browser tests: Playwright driving Debian's chromium against pytest-django's live server.

- The browser is Debian's `/usr/bin/chromium` (never `playwright install`); set CHROMIUM to use
  another binary. Without it the tests skip, or fail when BROWSER_TESTS_REQUIRED is set (CI).
- Every request the page makes to another origin than the live server is aborted and fails the
  test, as does any JavaScript error on the page and anything the Content Security Policy refuses.
- Playwright's sync API keeps an asyncio loop running on the main thread while a browser is open;
  Django would then refuse synchronous database calls (the test database flush), so
  DJANGO_ALLOW_ASYNC_UNSAFE is set only while this package's browser is open, and the browser
  is closed (its loop stopped) at the end of this package, before other tests run.
- Data must be committed for the server thread to see it: use
  `@pytest.mark.django_db(transaction=True)`.
- Screenshots go to test-artifacts/ (git-ignored; CI keeps the workspace).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Request, Route, expect, sync_playwright

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
# A loaded CI machine (two cores, two databases) can be slow to swap; waits are generous.
TIMEOUT_MS = 15_000
expect.set_options(timeout=TIMEOUT_MS)

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-first-run",
    "--no-default-browser-check",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless, started once for the browser tests (each gets a context)."""
    if not CHROMIUM.exists():
        message = f"no chromium at {CHROMIUM} (apt-get install -y chromium)"
        if os.environ.get("BROWSER_TESTS_REQUIRED"):
            pytest.fail(message)
        pytest.skip(message)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True
            )
            yield launched
            launched.close()


@pytest.fixture
def page(browser: Browser, live_server: object, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page that may talk to the live server only; failures are reported at teardown."""
    origin = urlsplit(str(live_server.url))  # type: ignore[attr-defined]
    foreign: list[str] = []
    errors: list[str] = []
    javascript = not request.node.get_closest_marker("no_javascript")
    context = browser.new_context(
        viewport={"width": 1280, "height": 900},
        java_script_enabled=javascript,
        service_workers="block",
    )

    def guard(route: Route, req: Request) -> None:
        url = urlsplit(req.url)
        if (url.scheme, url.hostname, url.port) == (origin.scheme, origin.hostname, origin.port):
            route.continue_()
        else:
            foreign.append(req.url)
            route.abort()

    context.route("**/*", guard)
    # Say where a refusal of the Content Security Policy came from (file, line, element).
    context.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => console.error("
        "'Content Security Policy refused ' + e.violatedDirective + ' at ' + e.sourceFile + ':' +"
        " e.lineNumber + ' on ' + (e.target && e.target.outerHTML ? e.target.outerHTML.slice(0, 160)"
        " : e.target)))"
    )
    opened = context.new_page()
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    # The Content Security Policy is enforced on every page: anything it refuses fails the test.
    opened.on(
        "console",
        lambda message: (
            errors.append(f"{message.text} at {message.location}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    opened.set_default_timeout(TIMEOUT_MS)
    yield opened
    context.close()
    _wait_for_open_requests()
    assert not foreign, f"requests to other origins than the test server: {foreign}"
    assert not errors, f"JavaScript errors on the page: {errors}"


def _wait_for_open_requests(timeout: float = 10.0) -> None:
    """Wait until the live server has answered what the closed page still asked (a thread per
    connection, ending once the browser drops it): the test database's flush that follows fails
    ("database table is locked") while a request still reads a table."""
    deadline = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and "process_request_thread" in thread.name:
            thread.join(max(0.0, deadline - time.monotonic()))


@pytest.fixture
def screenshot_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "no_javascript: open the page with JavaScript disabled")
