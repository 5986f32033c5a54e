"""Middleware of the site: a database that cannot be reached answers 503, not 500; too many query
parameters a 400 at once; a 405 says which methods the address takes; an API write without the
address's trailing slash a 308 to it; the Content Security Policy header built once per process,
not on every response."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from csp.constants import HEADER
from csp.constants import HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseBase
from django.http import JsonResponse
from django.http import QueryDict
from django.urls import is_valid_path

from incidents.selectors.health import is_database_unavailable
from incidents.views.errors import error_response
from incidents.views.errors import unavailable

security_log = logging.getLogger("django.security.TooManyFieldsSent")


class QueryLimitMiddleware:
    """More query parameters than DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) is a 400 naming the
    limit, answered here before anything reads the query, with DEBUG on or off.

    Django raises TooManyFieldsSent wherever `request.GET` is first read; with DEBUG off that is
    a 400, but with DEBUG on the technical error page reads `request.GET` again while rendering
    every frame of the traceback (tens of seconds), fails the same way and answers a 500.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request.GET  # noqa: B018 (parsed, and kept, here)
        except TooManyFieldsSent as exc:
            security_log.warning("%s: %s", request.path, exc)
            request.GET = QueryDict()  # nothing after this reads the refused query again
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
            return error_response(
                request, 400, f"The request has more than {limit} query parameters."
            )
        return self.get_response(request)


class MethodNotAllowedMiddleware:
    """A 405 with no body (Django's ``require_GET`` and class-based views answer one) becomes the
    site's error page, or the API's JSON, naming the methods the address takes; the ``Allow``
    header is kept. A 405 that already says something (the API's) is left as it is."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or response.content:
            return response
        allowed = response.get("Allow", "")
        detail = f"{request.method} is not allowed here"
        detail += f"; this address takes {allowed}." if allowed else "."
        page = error_response(request, 405, detail)
        if allowed:
            page["Allow"] = allowed
        return page


class ApiSlashMiddleware:
    """A write to an API address without its trailing slash (`POST /api/cases`) is a 308 to the
    address with it, which keeps the method and the body, and says so in JSON. Django's
    APPEND_SLASH answers a 301 there (a client following it re-sends a GET, the body lost) and,
    with DEBUG on, a 500. Reads keep Django's 301."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if (
            request.method not in ("GET", "HEAD")
            and path.startswith("/api/")
            and not path.endswith("/")
            and not is_valid_path(path, getattr(request, "urlconf", None))
            and is_valid_path(f"{path}/", getattr(request, "urlconf", None))
        ):
            query = request.META.get("QUERY_STRING", "")
            location = f"{request.path}/" + (f"?{query}" if query else "")
            response = JsonResponse(
                {"detail": f"The address is {request.path}/, with its trailing slash."},
                status=308,
            )
            response["Location"] = location
            return response
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    """Turns an unreachable database, raised from a view, into the 503 page or JSON.

    (Raised from another middleware, the 500 handler does the same when DEBUG is off.)
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_database_unavailable(exception):
            return unavailable(request)
        return None


# What gives a response or a request a policy of its own (django-csp's decorators and nonce).
_OWN_POLICY = tuple(
    f"_csp_{part}{suffix}"
    for part in ("config", "update", "replace", "exempt")
    for suffix in ("", "_ro")
)
# (the settings' policies) -> [(header, policy, excluded path prefixes)]
_site_policies: dict[tuple[int, int], list[tuple[str, str, tuple[str, ...]]]] = {}


def _policies() -> list[tuple[str, str, tuple[str, ...]]]:
    enforced = getattr(settings, "CONTENT_SECURITY_POLICY", None)
    reported = getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
    key = (id(enforced), id(reported))
    known = _site_policies.get(key)
    if known is None:
        known = []
        for header, config, report_only in (
            (HEADER, enforced, False),
            (HEADER_REPORT_ONLY, reported, True),
        ):
            policy = build_policy(report_only=report_only)
            if policy:
                prefixes = tuple((config or {}).get("EXCLUDE_URL_PREFIXES") or ())
                known.append((header, policy, prefixes))
        _site_policies.clear()  # settings changed (a test's override): forget the old ones
        _site_policies[key] = known
    return known


class CSPMiddleware(DjangoCSPMiddleware):
    """django-csp's middleware, the site's policy built once: django-csp builds the same header
    from the settings on every response (a tenth of a cached page's time). A response with a
    policy of its own (csp_update and the like), a request that used its nonce, and DEBUG (whose
    error pages django-csp exempts) go through django-csp's own `process_response`."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> Any:
        if (
            settings.DEBUG
            or getattr(request, "_csp_nonce", None) is not None
            or any(hasattr(response, name) for name in _OWN_POLICY)
        ):
            return super().process_response(request, response)
        for header, policy, prefixes in _policies():
            if header not in response and not request.path_info.startswith(prefixes):
                response[header] = policy
        # As django-csp does: the nonce cannot be asked for once the header is written.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response
