"""What every API read shares: strict parameters, conditional requests and the response cache.

`LibraryRead` is mixed into every API view. A method the view has no handler for is a 405 with
`Allow` before anything else (`MethodsFirst`: not a 401 or 403 from the credentials checked
first). On a GET or HEAD, after authentication, permissions and throttles (so a cached answer
still counts against a client's rate):

1. Parameters: one the view does not know is a 400 naming it and the closest known ones
   (incidents.selectors.parameters); values are checked by the view, through the FilterSet.
2. Validators: `ETag` is the library's version (selectors.library_version) with a
   digest of what else shapes the body (path, normalised query, media type, host);
   `Last-Modified` is when the library last changed. A matching `If-None-Match` (or, without
   one, an `If-Modified-Since` not older than the last change) is a 304 with no body.
3. Cache: a JSON 200 is kept in Django's cache under the same key as its ETag, so it is served
   again with no query beyond the version's until the next write to the library changes the
   version. The version is the process's copy, kept fresh by LISTEN/NOTIFY on PostgreSQL
   (selectors.version_listener: what that guarantees, and when every request reads the row, is
   in its docstring and README's "How a process learns of a write"), or one query on SQLite or
   with `LIBRARY_VERSION_LISTEN=0`. Entries of older versions are never read again and expire.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.http import Http404
from django.http import HttpResponse
from django.http import HttpResponseBase
from django.utils.cache import get_conditional_response
from django.utils.cache import patch_vary_headers
from django.utils.http import http_date
from rest_framework.exceptions import MethodNotAllowed
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from incidents.api.renderers import is_plain
from incidents.selectors import library_version
from incidents.selectors.library_version import LibraryVersion
from incidents.selectors.parameters import unknown_parameters

# Always accepted: DRF's own choice of renderer.
FORMAT_PARAMS = ("format",)
# Seconds a cached body is kept (a write makes it unreachable sooner: the key holds the version).
CACHE_SECONDS = 600
READ_METHODS = ("GET", "HEAD")
# Remembered negotiations and digests, at most (client input: bounded, then forgotten at once).
MEMO_SIZE = 256
# An Accept header longer than this is negotiated every time rather than remembered.
MEMO_ACCEPT_CHARS = 256

# (view class, Accept header, format parameter, format suffix) -> (renderer's index, media type):
# DRF's DefaultContentNegotiation is a function of those and of the view's renderer classes, and
# parsing the header on every request cost more than a cache hit's body.
_negotiated: dict[tuple[Any, ...], tuple[int, str]] = {}
# (path, query string, media type, host, scheme) -> the digest of their normalised shape.
_digests: dict[tuple[Any, ...], str] = {}


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[key] = value


# The headers that make a request conditional (without any, get_conditional_response answers
# None: no need to ask it).
_CONDITIONAL_HEADERS = (
    "HTTP_IF_MATCH",
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
)


@functools.lru_cache(maxsize=4)
def _http_date(changed: float) -> str:
    """Last-Modified of a version (the same few versions on every request)."""
    return http_date(changed)


class _Answered(Exception):
    """Raised in `initial` when the answer is known before the handler runs (304, cache hit)."""

    def __init__(self, response: HttpResponseBase) -> None:
        self.response = response


class MethodsFirst(APIView):
    """A method the view does not handle is a 405 naming the ones it does (`Allow`), whatever
    the credentials: DRF checks authentication and permissions before it looks for a handler."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        method = (request.method or "").lower()
        if method not in self.http_method_names or not hasattr(self, method):
            self.format_kwarg = self.get_format_suffix(**kwargs)  # as DRF's initial sets it
            raise MethodNotAllowed(request.method or "")
        super().initial(request, *args, **kwargs)


class LibraryRead(MethodsFirst):
    """Base of every API view: strict parameters, ETag/Last-Modified/304 and a response cache."""

    # The query parameters the view understands (besides `format`); None: any (not checked).
    known_parameters: tuple[str, ...] = ()
    # Whether a JSON 200 may be kept in the cache (not for streamed exports).
    cache_responses = True

    def get_known_parameters(self) -> Iterable[str]:
        return self.known_parameters

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self._validators: tuple[str, float] | None = None
        self._cache_key = ""
        self.library_version: LibraryVersion | None = None
        if request.method not in READ_METHODS:
            return
        problems = unknown_parameters(
            request.query_params, [*self.get_known_parameters(), *FORMAT_PARAMS]
        )
        if problems:
            raise ValidationError(problems)
        version = self.library_version = library_version.current()
        digest = self._digest(request)
        etag = f'"lib-{version.number}-{digest}"'
        changed = version.changed_at.timestamp()
        self._validators = (etag, changed)
        meta = request._request.META
        if any(header in meta for header in _CONDITIONAL_HEADERS):
            not_modified = get_conditional_response(
                request._request, etag=etag, last_modified=int(changed)
            )
            if not_modified is not None:
                raise _Answered(not_modified)
        if self.cache_responses and request.accepted_renderer.format == "json":
            self._cache_key = f"api:{version.number}:{digest}"
            hit = cache.get(self._cache_key)
            if hit is not None:
                content, content_type = hit
                raise _Answered(HttpResponse(content, content_type=content_type))

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        """DRF's negotiation, remembered per view class, Accept header and format: the same
        renderer (this request's instance of it) and media type as negotiating again. A request
        that negotiation refuses (406, an unknown format's 404) is not remembered."""
        if type(self.get_content_negotiator()) is not DefaultContentNegotiation:
            return super().perform_content_negotiation(request, force)
        meta = request._request.META
        accept = meta.get("HTTP_ACCEPT")
        override = api_settings.URL_FORMAT_OVERRIDE
        query = request._request.GET
        fmt = query.get(override) if override and override in query else None
        key = (type(self), accept, fmt, self.format_kwarg)
        renderers = self.get_renderers()
        known = _negotiated.get(key)
        if known is not None:
            return renderers[known[0]], known[1]
        try:
            renderer, media_type = self.get_content_negotiator().select_renderer(
                request, renderers, self.format_kwarg
            )
        except Http404 as exc:
            if force:
                return (renderers[0], renderers[0].media_type)
            # DRF's "Not found." names nothing: say which parameter, and what it takes.
            formats = ", ".join(dict.fromkeys(r.format for r in renderers))
            given = fmt if fmt is not None else self.format_kwarg
            raise NotFound(
                f"There is no format “{given}” (parameter {override}); known: {formats}."
            ) from exc
        except Exception:
            if force:
                return (renderers[0], renderers[0].media_type)
            raise
        if accept is None or len(accept) <= MEMO_ACCEPT_CHARS:
            index = next(i for i, r in enumerate(renderers) if r is renderer)
            _remember(_negotiated, key, (index, media_type))
        return renderer, media_type

    @staticmethod
    def _digest(request: Request) -> str:
        """A digest of what shapes the body besides the library: the path, the query (its
        parameters in order, so that their order in the URL does not matter), the media type,
        the host and the scheme."""
        django_request = request._request
        key = (
            django_request.path,
            django_request.META.get("QUERY_STRING", ""),
            request.accepted_media_type,
            django_request.get_host(),
            django_request.scheme,
        )
        digest = _digests.get(key)
        if digest is None:
            params = django_request.GET
            query = sorted((k, v) for k in params for v in params.getlist(k))
            shape = repr((key[0], query, *key[2:]))
            digest = hashlib.sha256(shape.encode()).hexdigest()[:20]
            _remember(_digests, key, digest)
        return digest

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, _Answered):
            return exc.response  # type: ignore[return-value]  # a 304 or a cached body
        return super().handle_exception(exc)

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        if "Vary" not in response and not isinstance(response, Response):
            # A 304 or a cached body, made in `initial` (no Vary yet): what DRF's
            # finalize_response does to it (its Vary first, then the other headers), directly.
            vary = self.headers.pop("Vary", None)
            if vary is not None:
                response["Vary"] = vary
            for key, value in self.headers.items():
                response[key] = value
        else:
            response = super().finalize_response(request, response, *args, **kwargs)
        validators = getattr(self, "_validators", None)
        if validators is None or response.status_code not in (200, 304):
            return response
        etag, changed = validators
        response["ETag"] = etag
        response["Last-Modified"] = _http_date(changed)
        # Revalidate every time: the answer is cheap when nothing changed.
        response["Cache-Control"] = "public, no-cache"
        if response.get("Vary") != "Accept":
            patch_vary_headers(response, ["Accept"])
        if self._cache_key and response.status_code == 200 and isinstance(response, Response):
            response.render()
            cache.set(
                self._cache_key,
                (response.content, response["Content-Type"]),
                CACHE_SECONDS,
            )
            if is_plain(response.data):
                # Written out: let the rows go now. The response, the view and the request
                # refer to one another, so whatever they hold waits for the garbage collector
                # otherwise (a page's rows are most of a cold request's objects).
                response.data = None
        return response
