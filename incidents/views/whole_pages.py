"""Whole pages for anonymous readers, cached under the library version, with ETag and 304.

A library page (`/`, a case page) shows nothing of its reader when nobody is logged in: no name,
and no CSRF token, which base.html writes only for a logged-in reader (whose pages post: the
log-out form, the submit page; the log-in form has its own). So an anonymous GET's 200 is kept
whole in Django's cache under the library version (selectors.page_cache), the path, the query
and the htmx headers that choose what the view renders, and is served again until the next
write moves the version. The version comes from the process's copy, kept fresh by LISTEN/NOTIFY
on PostgreSQL (selectors.version_listener; README, "How a process learns of a write"), or from
one query on SQLite or with `LIBRARY_VERSION_LISTEN=0`. The same key is the page's ETag: a
matching If-None-Match is a 304 with no body, as the API answers (incidents.api.reads). The
pages carry no Last-Modified and If-Modified-Since is not answered: a date cannot tell one
release's page from the next (the ETag can, below), so only the ETag confirms a copy.

Key and ETag also hold a digest of the code that renders the pages (the package's Python
files, the templates, the static files' manifest): after a deploy no page cached by the
previous code is served from a shared cache (Redis, memcached), and a browser's copy is not
confirmed with a 304. The digest is taken when the code is loaded: by the production warm-up in
gunicorn's master before the workers fork (incidents.config.warmup), else on a process's first
anonymous page (runserver, tests).

The query is normalised as the page reads it (percent-encoding and `+` decoded), not sorted:
a page's links keep its filters in the order given, so `?a&b` and `?b&a` are two pages. Only a
query of parameters the page knows is cached (`parameters=`): any other (`?x=<random>`) is
rendered every time, so that made-up addresses do not push the pages readers use out of the
cache.

A logged-in reader's page is rendered every time and marked `Cache-Control: private`.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from collections.abc import Collection
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseBase
from django.utils.cache import get_conditional_response
from django.utils.cache import patch_cache_control
from django.utils.cache import patch_vary_headers

from incidents.api.reads import _CONDITIONAL_HEADERS
from incidents.api.reads import CACHE_SECONDS
from incidents.api.reads import READ_METHODS
from incidents.selectors.page_cache import committed_version
from incidents.selectors.page_cache import key_of

# The request headers (besides the address) that change what a page's view renders: htmx's,
# which choose the region partial and whether the search box is sent again.
RENDER_HEADERS = (
    "HTTP_HX_REQUEST",
    "HTTP_HX_TARGET",
    "HTTP_HX_TRIGGER",
    "HTTP_HX_HISTORY_RESTORE_REQUEST",
)

View = Callable[..., HttpResponseBase]


@functools.cache
def build_digest() -> str:
    """A digest of what renders the pages: every Python file of the package, every template
    and the static files' manifest (hashed names), by content (the same on every replica of a
    release). Read once per process (a few milliseconds): in gunicorn's master before the
    workers fork (incidents.config.warmup), so that a worker forked after the files were
    replaced still names the code it runs."""
    package = Path(__file__).resolve().parent.parent
    engines: list[dict[str, Any]] = settings.TEMPLATES
    roots = [package, *(Path(d) for engine in engines for d in engine.get("DIRS", []))]
    files = sorted(
        {f for root in roots for f in root.rglob("*") if f.suffix in (".py", ".html")}
        | {f for f in [Path(settings.STATIC_ROOT) / "staticfiles.json"] if f.is_file()}
    )
    digest = hashlib.sha256()
    for f in files:
        digest.update(str(f.relative_to(f.anchor)).encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:12]


def page_digest(request: HttpRequest) -> str:
    """A digest of what shapes an anonymous page besides the library: the code (build_digest),
    the path, the query's parameters (decoded, in order), the htmx headers, the host and the
    scheme."""
    meta = request.META
    query = [(k, v) for k, values in request.GET.lists() for v in values]
    shape = repr(
        (
            build_digest(),
            request.path,
            query,
            [meta.get(name) for name in RENDER_HEADERS],
            request.get_host(),
            request.scheme,
        )
    )
    return hashlib.sha256(shape.encode()).hexdigest()[:24]


def cached_for_anonymous(
    *, vary: tuple[str, ...] = (), parameters: Collection[str] = ()
) -> Callable[[View], View]:
    """Serve a view's anonymous GET and HEAD pages from the cache (see the module docstring);
    `vary`: the request headers the view's pages vary on (its own `Vary`, which a 304 and a
    cached page carry too); `parameters`: the query parameters the view reads (a page whose
    query holds any other is rendered every time, still with its ETag).

    The view is called with `version=`, the library version already read for this request (so
    that it does not read it again), or None when it must read it itself (a logged-in reader,
    inside a transaction)."""

    def decorate(view: View) -> View:
        return _cached(view, (*vary, "Cookie"), frozenset(parameters))

    return decorate


def _cached(view: View, vary: tuple[str, ...], parameters: frozenset[str]) -> View:
    @functools.wraps(view)
    def page(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        anonymous = not request.user.is_authenticated
        version = committed_version() if anonymous and request.method in READ_METHODS else None
        if version is None:
            response = view(request, *args, version=None, **kwargs)
            if not anonymous:
                # The reader's name and CSRF token: for this browser only.
                patch_cache_control(response, private=True)
            return response
        digest = page_digest(request)
        key = f"page:{key_of(version)}:{digest}"
        etag = f'"page-{key_of(version)}-{digest}"'
        if any(header in request.META for header in _CONDITIONAL_HEADERS):
            # No last_modified: If-Modified-Since (and If-Unmodified-Since) are not answered,
            # as a date does not change with the code (module docstring).
            not_modified = get_conditional_response(request, etag=etag)
            if not_modified is not None:
                return _validated(not_modified, etag, vary)
        known = parameters.issuperset(request.GET)
        hit = cache.get(key) if known else None
        if hit is not None:
            content, content_type = hit
            return _validated(HttpResponse(content, content_type=content_type), etag, vary)
        rendered = view(request, *args, version=version, **kwargs)
        if rendered.status_code != 200:
            return rendered
        if known and isinstance(rendered, HttpResponse) and _cacheable(request, rendered):
            cache.set(key, (rendered.content, rendered["Content-Type"]), CACHE_SECONDS)
        return _validated(rendered, etag, vary)

    return page


def _cacheable(request: HttpRequest, response: HttpResponse) -> bool:
    """Whether a 200 is the same for every anonymous reader: no cookie of its own, no CSRF
    token written into it (which would set the CSRF cookie), not marked private."""
    return (
        not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and "private" not in response.get("Cache-Control", "")
    )


def _validated(response: HttpResponseBase, etag: str, vary: tuple[str, ...]) -> HttpResponseBase:
    """The validator of an anonymous page, and "ask again each time" (a 304 is cheap); `vary`
    holds Cookie: a logged-in reader gets another page at the same address."""
    response["ETag"] = etag
    response["Cache-Control"] = "public, no-cache"
    patch_vary_headers(response, vary)
    return response
