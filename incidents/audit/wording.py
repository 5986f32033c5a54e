"""Counts in words: ``1 check``, ``2 checks``."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one: ``counted(1, "check")`` is ``1 check``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
