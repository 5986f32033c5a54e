"""The API's JSON renderer: DRF's, but a body made only of plain values is written by orjson.

A list of case rows (`PlainRows`: dicts, lists, strings, whole numbers, None and booleans,
nothing DRF's encoder would convert) is written by orjson, about twenty times faster than the
standard library's encoder, to the same bytes: the compact separators, UTF-8 rather than
`\\u` escapes, and U+2028 and U+2029 escaped as DRF escapes them (tests/test_api_renderers.py).
Anything else, an indented body, other settings than DRF's defaults, or a value orjson refuses,
is DRF's renderer as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework import renderers


class PlainRows(list[dict[str, Any]]):
    """Rows that hold only plain JSON values (see the module's docstring)."""


def is_plain(data: Any) -> bool:
    """A body the fast path may write: a page of PlainRows with its count and links."""
    return isinstance(data, Mapping) and isinstance(data.get("results"), PlainRows)


def _escaped_separators(body: bytes) -> bytes:
    """U+2028 and U+2029 escaped, as DRF escapes them. Their UTF-8 forms end in 0xA8 or 0xA9:
    a body with neither byte (most: a one-byte search) has none to escape, and the search for
    the three-byte forms, slow in text full of other punctuation (en dashes share their first
    two bytes), is made only when one of those bytes is there."""
    if b"\xa8" not in body and b"\xa9" not in body:
        return body
    return body.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSONRenderer; plain bodies through orjson (the same bytes)."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if (
            is_plain(data)
            and self.compact
            and not self.ensure_ascii
            and self.get_indent(accepted_media_type or "", renderer_context or {}) is None
        ):
            try:
                body = orjson.dumps(data)
            except TypeError:  # a value orjson does not write (a huge number, a lone surrogate)
                pass
            else:
                return _escaped_separators(body)
        return super().render(data, accepted_media_type, renderer_context)  # type: ignore[no-any-return]
