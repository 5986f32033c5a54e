"""`make serve` checks its environment before it starts anything: `python -m incidents.config.preflight`.

A missing or unusable required setting stops the start with one line naming it (exit status 2),
before migrations run or gunicorn forks workers. Required for a production start: SECRET_KEY (at
least 50 characters, not the example's), ALLOWED_HOSTS and DATABASE_URL; DEBUG must be off. The
optional settings that must be numbers (gunicorn's, HSTS) are checked too, and the API's request
counts must be kept where every worker shares them (API_RATE_CACHE). See site/env.example.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

REQUIRED = ("SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL")
WHOLE_NUMBERS = (
    "GUNICORN_WORKERS",
    "GUNICORN_THREADS",
    "GUNICORN_TIMEOUT",
    "GUNICORN_GRACEFUL_TIMEOUT",
    "GUNICORN_MAX_REQUESTS",
    "SECURE_HSTS_SECONDS",
    "DB_CONN_MAX_AGE",
    "DB_CONNECT_TIMEOUT",
)
EXAMPLE_SECRET = "replace-with"
TRUE = {"1", "true", "yes", "on"}


def problem(env: Mapping[str, str]) -> str | None:
    """The first thing wrong with a production environment, or None."""
    for name in REQUIRED:
        if not env.get(name, "").strip():
            return f"{name} is not set (see site/env.example)"
    if env.get("DEBUG", "").strip().lower() in TRUE:
        return "DEBUG is on; `make serve` is the production start (use `make run` for a demo)"
    secret = env["SECRET_KEY"]
    if secret.startswith(EXAMPLE_SECRET) or len(secret) < 50 or len(set(secret)) < 5:
        return (
            "SECRET_KEY must be at least 50 random characters, not the example's; make one with: "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    for name in WHOLE_NUMBERS:
        raw = env.get(name, "").strip()
        if raw and not (raw.isdigit() and (int(raw) > 0 or name == "SECURE_HSTS_SECONDS")):
            return f"{name}={raw!r} is not a positive whole number"
    if env.get("API_RATE_CACHE", "").strip() == "locmem" and env.get("GUNICORN_WORKERS") != "1":
        return (
            "API_RATE_CACHE=locmem counts each worker's requests apart (a client gets the rate "
            "once per worker); use db or redis://... (see site/env.example)"
        )
    return None


def settings_problem() -> str | None:
    """The settings' own complaint (a malformed value), read the way the server will read them."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidents.config.settings")
    import django
    from django.core.exceptions import ImproperlyConfigured

    try:
        django.setup()
    except (ImproperlyConfigured, ValueError) as exc:  # ValueError: a DATABASE_URL's scheme
        return str(exc)
    return None


def main() -> int:
    found = problem(os.environ) or settings_problem()
    if found:
        print(f"make serve: refusing to start: {found}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
