"""Middleware of the site: a database that cannot be reached answers 503, not 500."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from incidents.selectors.health import is_database_unavailable
from incidents.views.errors import unavailable


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
