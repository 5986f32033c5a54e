"""Health probes and the error pages: none of them needs the database to answer.

/healthz answers 200 while the process runs; /readyz 200 when the database answers and every
migration is applied, else 503. With the database down a page answers the 503 page and the API a
503 JSON body (DatabaseUnavailableMiddleware and the 500 handler below); the next request after the
database returns is served normally, with no restart. The 400/403/404/405/500 pages are rendered
without a request context, so no session, user or query is read for them.
"""

from __future__ import annotations

import sys
from typing import Any

from django.http import HttpRequest
from django.http import HttpResponse
from django.http import JsonResponse
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache

from incidents.selectors.health import is_database_unavailable
from incidents.selectors.health import readiness

TITLES = {
    400: "Bad request",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    500: "Server error",
    503: "Temporarily unavailable",
}
MESSAGES = {
    400: "The request could not be understood.",
    403: "You are not allowed to do that.",
    404: "There is nothing at this address.",
    405: "This address does not take that kind of request.",
    500: "Something went wrong on our side; it has been logged.",
    503: "The library's database cannot be reached just now. Try again in a minute.",
}


def wants_json(request: HttpRequest) -> bool:
    """The API, and clients that ask for JSON only, get JSON errors."""
    return request.path.startswith("/api/") or request.headers.get("Accept", "").startswith(
        "application/json"
    )


def error_response(request: HttpRequest, status: int, detail: str = "") -> HttpResponse:
    """An error as JSON (`{"detail": ...}`, the API's shape) or as a page of the site."""
    message = detail or MESSAGES[status]
    if wants_json(request):
        response: HttpResponse = JsonResponse({"detail": message}, status=status)
    else:
        html = render_to_string(
            "error.html", {"status": status, "title": TITLES[status], "message": message}
        )
        response = HttpResponse(html, status=status)
    if status == 503:
        response["Retry-After"] = "30"
    return response


def unavailable(request: HttpRequest) -> HttpResponse:
    return error_response(request, 503)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    detail = ""
    # A view's own message ("No case 'x'") is shown; the resolver's internals are not.
    if exception is not None and exception.args and isinstance(exception.args[0], str):
        detail = exception.args[0]
    return error_response(request, 404, detail)


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 handler; a database that cannot be reached is a 503, not a 500."""
    if is_database_unavailable(sys.exc_info()[1]):
        return unavailable(request)
    return error_response(request, 500)


@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. Reads nothing, not even the database."""
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness: the database answers, its schema is up to date and its cache tables made."""
    state = readiness()
    body: dict[str, Any] = {
        "status": "ok" if state.ready else "unavailable",
        "database": "ok" if state.database else f"unreachable ({state.error})",
        "migrations": "ok" if state.database and not state.pending else list(state.pending),
    }
    if state.missing_tables:  # made by `manage.py createcachetable`, as `make serve` runs it
        body["cache_tables"] = [f"{name} is missing" for name in state.missing_tables]
    return JsonResponse(body, status=200 if state.ready else 503)
