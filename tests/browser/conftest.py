"""Browser tests: Playwright driving Debian's chromium against pytest-django's live server.

- The browser is Debian's chromium (never `playwright install`): its headless build,
  `/usr/bin/chromium-headless-shell` (package chromium-headless-shell: the same Blink and V8 as
  `/usr/bin/chromium`, without the desktop browser around them, as Playwright runs headless
  tests), else `/usr/bin/chromium`; set CHROMIUM to use another binary. The headless build ran
  the browser tests on a third less CPU than the full browser (24 against 37 s, one process). Without it the tests skip, or fail when BROWSER_TESTS_REQUIRED is set (CI).
- Every request the page makes to another origin than the live server is refused and fails the
  test, as does any JavaScript error on the page and anything the Content Security Policy refuses.
- Playwright's sync API keeps an asyncio loop running on the main thread while a browser is open;
  Django would then refuse synchronous database calls (the test database flush), so
  DJANGO_ALLOW_ASYNC_UNSAFE is set only while this package's browser is open, and the browser
  is closed (its loop stopped) at the end of this package, before other tests run.
- Data must be committed for the server thread to see it. A test that only reads needs no
  mark: `small_library` and `seeded_library` give it the library committed once for the module's
  read-only tests (shared_library.py; a test that wrote all the same fails), and the page the
  module's read-only tests share (one per JavaScript on or off; viewport, pointer, cookies and
  stored data reset before each, what it still loads settled after each). A test
  that writes (a form saved, rows added, a login) is marked
  `@pytest.mark.django_db(transaction=True)`: its own library, committed and flushed after it,
  its own context, and caches emptied before it. In a module, tests run read-only first,
  grouped by library, then those that write.
- Wait for what a page does with `waits.settle(page)` (loaded, no request open, htmx settled),
  not for quiet (`networkidle`) or a fixed time.
- Pictures of the pages (`screenshot`) go to test-artifacts/ (git-ignored; CI keeps the
  workspace) when BROWSER_SCREENSHOTS is set: no test checks one, and the full-page ones cost
  the browser most.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.db import connections
from playwright.sync_api import Browser
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import ProxySettings
from playwright.sync_api import Request
from playwright.sync_api import ViewportSize
from playwright.sync_api import expect
from playwright.sync_api import sync_playwright

from tests.browser import waits
from tests.browser.shared_library import SharedLibrary
from tests.conftest import FIXTURES
from tests.conftest import SMALL_LIBRARY
from tests.conftest import empty_caches

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "test-artifacts"
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = Path(
    os.environ.get("CHROMIUM")
    or (HEADLESS_SHELL if HEADLESS_SHELL.exists() else Path("/usr/bin/chromium"))
)
# A loaded CI machine (two cores, two databases) can be slow to swap; waits are generous.
TIMEOUT_MS = 15_000
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
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
    # In each module: the read-only tests grouped by the library they read (each library is
    # then written once), then the tests that write. (Stable: otherwise in file order.)
    start = 0
    while start < len(items):
        end = start
        while end < len(items) and items[end].path == items[start].path:
            end += 1
        if Path(str(items[start].path)).is_relative_to(here):
            items[start:end] = sorted(items[start:end], key=_order)
        start = end


def _order(item: pytest.Item) -> tuple[bool, bool]:
    return _writes(item), "seeded_library" not in getattr(item, "fixturenames", ())


def _writes(item: pytest.Item) -> bool:
    """Whether the test is marked to write: `django_db(transaction=True)`."""
    marker = item.get_closest_marker("django_db")
    return marker is not None and bool(marker.kwargs.get("transaction"))


@pytest.fixture(scope="package")
def browser(live_server: object) -> Iterator[Browser]:
    """Debian's chromium, headless, started once for the browser tests (each gets a context)."""
    if not CHROMIUM.exists():
        message = f"no chromium at {CHROMIUM} (apt-get install -y chromium-headless-shell)"
        if os.environ.get("BROWSER_TESTS_REQUIRED"):
            pytest.fail(message)
        pytest.skip(message)
    # Every request to another address than the live server's goes to a proxy at a port bound
    # here and never listened on: it is refused without reaching anything (chromium's implicit
    # bypass of loopback addresses removed, the live server's own address excepted). Not
    # `context.route`: routing every request through Playwright costs each one a round trip to
    # this process and turns off the HTTP cache.
    with socket.socket() as nowhere, pytest.MonkeyPatch.context() as patch:
        nowhere.bind(("127.0.0.1", 0))
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(
                executable_path=str(CHROMIUM),
                args=LAUNCH_ARGS,
                headless=True,
                proxy=ProxySettings(
                    server=f"http://127.0.0.1:{nowhere.getsockname()[1]}",
                    bypass=f"<-loopback>,{urlsplit(str(live_server.url)).netloc}",  # type: ignore[attr-defined]
                ),
            )
            yield launched
            launched.close()


class _Module:
    """What the read-only tests of one module share: the committed library and a browser
    context (with its page) for each of JavaScript on and off, opened on first use."""

    def __init__(self, shared: SharedLibrary) -> None:
        self.shared = shared
        self.contexts: dict[bool, _Guarded] = {}

    def release(self) -> None:
        """Close the shared contexts (the server's threads end with their connections) and
        flush the shared library: before a test that writes, and at the module's end."""
        for guarded in self.contexts.values():
            guarded.context.close()
        self.contexts.clear()
        _wait_for_open_requests()
        self.shared.release()


class _Guarded:
    """A browser context that may talk to the live server only (the other requests refused and
    kept in `foreign`), says where a refusal of the Content Security Policy came from, and keeps
    in `errors` what its page reported (JavaScript errors, refusals of the policy)."""

    def __init__(self, browser: Browser, server_url: str, *, javascript: bool) -> None:
        origin = urlsplit(server_url)
        server = (origin.scheme, origin.hostname, origin.port)
        self.javascript = javascript
        self.foreign: list[str] = []
        self.errors: list[str] = []
        self.opened: Page | None = None
        self.context = browser.new_context(
            viewport=VIEWPORT, java_script_enabled=javascript, service_workers="block"
        )

        def guard(req: Request) -> None:
            url = urlsplit(req.url)
            here = (url.scheme, url.hostname, url.port)
            if url.scheme in ("http", "https", "ws", "wss") and here != server:
                self.foreign.append(req.url)  # (refused: see the `browser` fixture)

        self.context.on("request", guard)
        # Say where a refusal of the Content Security Policy came from (file, line, element).
        self.context.add_init_script(
            "document.addEventListener('securitypolicyviolation', e => console.error("
            "'Content Security Policy refused ' + e.violatedDirective + ' at ' + e.sourceFile + ':'"
            " + e.lineNumber + ' on ' + (e.target && e.target.outerHTML ?"
            " e.target.outerHTML.slice(0, 160) : e.target)))"
        )

    def page(self) -> Page:
        """The context's page, opened on first use."""
        if self.opened is None:
            self.opened = self.context.new_page()
            waits.track(self.opened)
            self.opened.on("pageerror", lambda exc: self.errors.append(str(exc)))
            # The Content Security Policy is enforced on every page: anything it refuses fails
            # the test.
            self.opened.on(
                "console",
                lambda message: (
                    self.errors.append(f"{message.text} at {message.location}")
                    if "Content Security Policy" in message.text
                    else None
                ),
            )
            self.opened.set_default_timeout(TIMEOUT_MS)
        return self.opened

    def reset(self) -> None:
        """Make the page as a new one for the next test: the default viewport, the pointer in
        the corner (no hover left over), no cookies, no stored data (htmx keeps its history
        there), nothing reported yet."""
        self.context.clear_cookies()
        try:
            self._reset_page(self.page())
        except PlaywrightError:  # left in a state of its own by a failed test: a new page
            self.page().close()
            self.opened = None
            self.page()
        self.foreign.clear()
        self.errors.clear()

    def _reset_page(self, opened: Page) -> None:
        if opened.viewport_size != VIEWPORT:
            opened.set_viewport_size(VIEWPORT)
        opened.mouse.move(0, 0)
        if self.javascript and opened.url.startswith("http"):
            opened.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")


@pytest.fixture(scope="session")
def _shared_library() -> SharedLibrary:
    return SharedLibrary()


@pytest.fixture(scope="module", autouse=True)
def _module(_shared_library: SharedLibrary, django_db_blocker: Any) -> Iterator[_Module]:
    module = _Module(_shared_library)
    yield module
    with django_db_blocker.unblock():
        module.release()
        # The connections this module's tests opened are kept where Playwright's greenlets left
        # them (Django keeps a connection per context): closed here, or the test database could
        # not be dropped at the end of the run ("being accessed by other users", PostgreSQL).
        connections.close_all()


@pytest.fixture
def _read_only_db(
    django_db_setup: None, django_db_blocker: Any, _shared_library: SharedLibrary
) -> Iterator[None]:
    """Database access without a transaction (the server sees the shared library committed);
    at the end, the test fails if it changed that library."""
    with django_db_blocker.unblock():
        yield
        changed = _shared_library.check_unchanged()
    assert not changed, (
        f"a test without django_db(transaction=True) wrote (table, before, after): {changed}"
    )


@pytest.fixture(autouse=True)
def _live_server_helper(request: pytest.FixtureRequest) -> Iterator[None]:
    """pytest-django's helper of the same name, overridden here: it gives every test that uses
    the live server a transactional database (flushed after it); here only the tests marked
    `transaction=True` get one, the others read the shared library without a transaction."""
    if "live_server" not in request.fixturenames:
        yield
        return
    if _writes(request.node):
        request.getfixturevalue("transactional_db")
        # The read-only tests' library and contexts go first: this test writes its own rows.
        request.getfixturevalue("_module").release()
    else:
        request.getfixturevalue("_read_only_db")
    live_server = request.getfixturevalue("live_server")
    live_server._live_server_modified_settings.enable()
    yield
    live_server._live_server_modified_settings.disable()


@pytest.fixture(autouse=True)
def _empty_cache(request: pytest.FixtureRequest) -> None:
    """tests/conftest.py's, for the tests that write; the read-only tests keep the server's
    caches warm (emptied when the shared library is written)."""
    if _writes(request.node):
        empty_caches()


def _library(request: pytest.FixtureRequest, path: Path) -> None:
    write: Callable[[Path], None] = request.getfixturevalue("library_rows")
    if _writes(request.node):
        request.getfixturevalue("transactional_db")
        write(path)  # this test's own (the shared copy was flushed: `_live_server_helper`)
    else:
        request.getfixturevalue("_read_only_db")
        request.getfixturevalue("_module").shared.hold(path, write)


@pytest.fixture
def small_library(request: pytest.FixtureRequest) -> None:
    """The three-case library of tests/data/library, committed (see the module's docstring)."""
    _library(request, SMALL_LIBRARY)


@pytest.fixture
def seeded_library(request: pytest.FixtureRequest) -> None:
    """The seeded library of fixtures/, committed (see the module's docstring)."""
    _library(request, FIXTURES)


@pytest.fixture
def page(
    browser: Browser, live_server: object, request: pytest.FixtureRequest, _module: _Module
) -> Iterator[Page]:
    """A page that may talk to the live server only; failures are reported at teardown. A new
    page in a context of its own for a test that writes; for a read-only test, the page its
    module's read-only tests share, reset as new (`_Guarded.reset`)."""
    javascript = not request.node.get_closest_marker("no_javascript")
    url = str(live_server.url)  # type: ignore[attr-defined]
    writes = _writes(request.node)
    if writes:
        guarded = _Guarded(browser, url, javascript=javascript)
    else:
        if javascript not in _module.contexts:
            _module.contexts[javascript] = _Guarded(browser, url, javascript=javascript)
        guarded = _module.contexts[javascript]
        guarded.reset()
    opened = guarded.page()
    yield opened
    if writes:
        guarded.context.close()
        _wait_for_open_requests()
    else:
        # What the page still loads is this test's: let it end before the next one starts.
        waits.settle(opened, javascript=guarded.javascript)
    assert not guarded.foreign, f"requests to other origins than the test server: {guarded.foreign}"
    assert not guarded.errors, f"JavaScript errors on the page: {guarded.errors}"


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
    """test-artifacts/, where `screenshot` saves its pictures."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def screenshot(screenshot_dir: Path) -> Callable[..., None]:
    """`screenshot(page, name, **options)`: a picture of the page for a reader to look at, in
    test-artifacts/, when BROWSER_SCREENSHOTS is set (CI may set it). The test checks no picture,
    and each costs the browser a rendering and an encoding (the full-page ones most)."""

    def take(page: Page, name: str, **options: Any) -> None:
        if os.environ.get("BROWSER_SCREENSHOTS"):
            page.screenshot(path=str(screenshot_dir / name), **options)

    return take


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "no_javascript: open the page with JavaScript disabled")
