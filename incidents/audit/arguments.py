"""Checks of the command line's values, as argparse types: each says what it wants and got."""

from __future__ import annotations

import argparse
from urllib.parse import urlsplit

from .kubeconfig import MAX_PAGE_LIMIT

LIBRARY_ENV = "KUBEGAP_LIBRARY_URL"


def seconds(value: str) -> float:
    """A timeout: more than 0, at most an hour."""
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value!r}") from None
    if not 0 < seconds <= 3600:
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most 3600 seconds, not {value!r}"
        )
    return seconds


def chunk_size(value: str) -> int:
    """Objects per list request: 1 to MAX_PAGE_LIMIT."""
    try:
        size = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of objects: {value!r}") from None
    if not 1 <= size <= MAX_PAGE_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_PAGE_LIMIT:,} objects")
    return size


def library_url(value: str) -> str:
    """An http(s) URL with a host: cases are linked as ``<URL>/cases/<slug>/``."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"must be an http(s) URL such as https://library.example.org, not {value!r} "
            f"(the default comes from ${LIBRARY_ENV})"
        )
    return value.strip()
