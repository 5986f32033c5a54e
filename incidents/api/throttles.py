"""Request rates for the API (DRF throttles): anonymous clients by address, token clients by
user. The rates come from the environment (API_RATE_ANON, API_RATE_USER: "120/minute", "off")
through settings.REST_FRAMEWORK; over the rate, a 429 with `Retry-After` in seconds.

The rate is read at each request (not once at import, as DRF's own classes do), so a settings
override takes effect; the counts live in Django's cache, so every worker sharing that cache
shares them (a per-process cache counts per process).
"""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


def _rate(scope: str | None) -> str | None:
    rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope or "")
    return None if rate in (None, "", "off") else str(rate)


class AnonThrottle(AnonRateThrottle):
    """Anonymous clients, by address."""

    def get_rate(self) -> str | None:
        return _rate(self.scope)


class UserThrottle(UserRateThrottle):
    """Authenticated clients (tokens), by user."""

    def get_rate(self) -> str | None:
        return _rate(self.scope)
