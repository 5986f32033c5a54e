"""What every API read shares: strict parameters, conditional requests and the response cache.

`LibraryRead` is mixed into every API view. On a GET or HEAD, after authentication, permissions
and throttles (so a cached answer still counts against a client's rate):

1. Parameters: one the view does not know is a 400 naming it and the closest known ones
   (incidents.selectors.parameters); values are checked by the view, through the FilterSet.
2. Validators: `ETag` is the library's version (selectors.library_version, one query) with a
   digest of what else shapes the body (path, normalised query, media type, host);
   `Last-Modified` is when the library last changed. A matching `If-None-Match` (or, without
   one, an `If-Modified-Since` not older than the last change) is a 304 with no body.
3. Cache: a JSON 200 is kept in Django's cache under the same key as its ETag, so it is served
   again without a query beyond the version's until the next write to the library changes the
   version (every process and replica reads the version from the database, so none serves a
   stale body after a write). Entries of older versions are never read again and expire.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from incidents.selectors import library_version
from incidents.selectors.library_version import LibraryVersion
from incidents.selectors.parameters import unknown_parameters

# Always accepted: DRF's own choice of renderer.
FORMAT_PARAMS = ("format",)
# Seconds a cached body is kept (a write makes it unreachable sooner: the key holds the version).
CACHE_SECONDS = 600
READ_METHODS = ("GET", "HEAD")


class _Answered(Exception):
    """Raised in `initial` when the answer is known before the handler runs (304, cache hit)."""

    def __init__(self, response: HttpResponseBase) -> None:
        self.response = response


class LibraryRead(APIView):
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

    @staticmethod
    def _digest(request: Request) -> str:
        query = sorted(
            (k, v) for k in request.query_params for v in request.query_params.getlist(k)
        )
        shape = repr(
            (request.path, query, request.accepted_media_type, request.get_host(), request.scheme)
        )
        return hashlib.sha256(shape.encode()).hexdigest()[:20]

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, _Answered):
            return exc.response  # type: ignore[return-value]  # a 304 or a cached body
        return super().handle_exception(exc)

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        validators = getattr(self, "_validators", None)
        if validators is None or response.status_code not in (200, 304):
            return response
        etag, changed = validators
        response["ETag"] = etag
        response["Last-Modified"] = http_date(changed)
        # Revalidate every time: the answer is cheap when nothing changed.
        response["Cache-Control"] = "public, no-cache"
        patch_vary_headers(response, ["Accept"])
        if self._cache_key and response.status_code == 200 and isinstance(response, Response):
            response.render()
            cache.set(
                self._cache_key,
                (response.content, response["Content-Type"]),
                CACHE_SECONDS,
            )
        return response
