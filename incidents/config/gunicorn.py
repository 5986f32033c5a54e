"""gunicorn's configuration for `make serve` and the container, from the environment.

GUNICORN_BIND (default 0.0.0.0:8000), GUNICORN_WORKERS (default 2 x cores + 1, at most 8),
GUNICORN_THREADS (default 4), GUNICORN_TIMEOUT (seconds a request may take, default 30),
GUNICORN_GRACEFUL_TIMEOUT (default 30), GUNICORN_MAX_REQUESTS (a worker's requests before it is
replaced, default 1000, jittered). Access log to standard output, errors to standard error.
"""

from __future__ import annotations

import multiprocessing
import os
from typing import Any


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


wsgi_app = "incidents.config.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = _int("GUNICORN_WORKERS", min(2 * multiprocessing.cpu_count() + 1, 8))
threads = _int("GUNICORN_THREADS", 4)
worker_class = "gthread"
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = 5
max_requests = _int("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = max_requests // 10
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None  # "" turns it off
errorlog = "-"
# The app is loaded once in the master; workers fork with it in memory.
preload_app = True
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
control_socket_disable = True  # several servers on one machine would share its default path


def when_ready(server: Any) -> None:
    """In the master, once the app is loaded and before the workers fork: import and load what
    the first requests would otherwise pay for (incidents.config.warmup)."""
    if server.cfg.preload_app:  # without it Django is not set up in the master
        from incidents.config.warmup import warm

        warm()
