"""Request rates for the API (DRF throttles): anonymous clients by address, token clients by
user. The rates come from the environment (API_RATE_ANON, API_RATE_USER: "120/minute", "off")
through settings.REST_FRAMEWORK; over the rate, a 429 with `Retry-After` in seconds. Every
counted answer says where the client stands (RateLimitHeadersMiddleware): `RateLimit-Limit`,
`RateLimit-Remaining` and `RateLimit-Reset` (seconds until the window opens again), the fields of
the IETF draft "RateLimit header fields for HTTP", so a tool can pace itself before a 429.

The rate is read at each request (not once at import, as DRF's own classes do), so a settings
override takes effect. A client's requests are counted per window of the rate's period (the
clock minute of "120/minute"), in the cache every worker and replica shares (API_RATE_CACHE,
incidents.config.caches): one atomic increment per request, so no two workers, or two requests
at once, count one request. DRF's own throttles keep a list of times that each request reads
and writes back, which loses counts when two requests overlap.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from django.core.cache import caches
from django.http import HttpRequest
from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.throttling import UserRateThrottle

from incidents.config.caches import RATE_CACHE_ALIAS

# Rounds of "increment, else create" before a count gives up.
COUNT_ATTEMPTS = 5


def _rate(scope: str | None) -> str | None:
    rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope or "")
    return None if rate in (None, "", "off") else str(rate)


def count_request(key: str, timeout: int) -> int:
    """Count one request under `key` (kept `timeout` seconds); the count so far, this one in."""
    cache = caches[RATE_CACHE_ALIAS]
    # `add` is False when another worker made the count first, and also when the database
    # refused the write for the moment (the database cache swallows that error): try again.
    for _ in range(COUNT_ATTEMPTS):
        try:
            return int(cache.incr(key))
        except ValueError:  # the window's first request (or its count just expired)
            if cache.add(key, 1, timeout):
                return 1
    return int(cache.incr(key))


class WindowThrottle(SimpleRateThrottle):
    """At most `num_requests` per window of `duration` seconds, counted in the shared cache."""

    def get_rate(self) -> str | None:
        return _rate(self.scope)

    def allow_request(self, request: Request, view: Any) -> bool:
        allowed, duration = self.parse_rate(self.rate)
        if allowed is None or duration is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window = int(self.now // duration)
        self.window_end: float = (window + 1) * duration
        timeout = math.ceil(self.window_end - self.now) + 1
        count = count_request(f"{self.key}_{window}", timeout)
        # Read by RateLimitHeadersMiddleware on the way out (the throttle itself is not kept).
        request._request.rate_limit = (  # type: ignore[attr-defined]
            allowed,
            max(0, allowed - count),
            max(1, math.ceil(self.window_end - self.now)),
        )
        return count <= allowed

    def wait(self) -> float | None:
        """Seconds until the next window opens."""
        return max(self.window_end - self.now, 1.0)


class AnonThrottle(WindowThrottle, AnonRateThrottle):
    """Anonymous clients, by address."""


class UserThrottle(WindowThrottle, UserRateThrottle):
    """Authenticated clients (tokens), by user; an anonymous client is AnonThrottle's alone (DRF's
    own would count it a second time, by address, at the user's rate: two more queries)."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class RateLimitHeadersMiddleware:
    """`RateLimit-Limit`, `-Remaining` and `-Reset` on every answer a rate counted (a 200, a 304,
    a 400 and the 429 alike); none where no rate applies ("off")."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        state = getattr(request, "rate_limit", None)
        if state is not None:
            limit, remaining, reset = state
            response["RateLimit-Limit"] = str(limit)
            response["RateLimit-Remaining"] = str(remaining)
            response["RateLimit-Reset"] = str(reset)
        return response
