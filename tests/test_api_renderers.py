"""The API's JSON renderer writes a plain body (the case list's rows) with orjson: the bytes
must be DRF's own renderer's for every kind of string a case may hold, and anything orjson
cannot write, or an indented body, is DRF's renderer's output as before."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework import renderers

from incidents.api.renderers import JSONRenderer
from incidents.api.renderers import PlainRows

STRINGS = [
    "plain",
    'quotes " and \\ backslashes / slashes',
    "line\nbreak\ttab\rreturn\x08\x0c",
    "control \x00 \x01 \x1f and \x7f",
    "non-ASCII: café, Ünïcode, 日本語, emoji 🚀",
    "separators \u2028 and \u2029 (escaped for JavaScript)",
    "",
]


def _page(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "count": len(rows),
        "next": "http://testserver/api/cases/?page=2",
        "previous": None,
        "results": PlainRows(rows),
    }


def _drf(data: dict[str, Any], media_type: str = "application/json") -> bytes:
    plain = {**data, "results": list(data["results"])}
    return renderers.JSONRenderer().render(plain, media_type, {})  # type: ignore[no-any-return]


@pytest.mark.parametrize("text", STRINGS)
def test_a_plain_body_is_drfs_bytes(text: str) -> None:
    data = _page(
        [
            {
                "slug": "a",
                "title": text,
                "facets": {"symptom": [{"slug": "x", "name": text}]},
                "period": {"start": None, "label": text},
                "n": 3,
                "ok": True,
            }
        ]
    )
    assert JSONRenderer().render(data, "application/json", {}) == _drf(data)


def test_what_orjson_cannot_write_is_drfs_output() -> None:
    huge = _page([{"n": 2**70}])
    assert JSONRenderer().render(huge, "application/json", {}) == _drf(huge)
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate: DRF's error, as before
        JSONRenderer().render(_page([{"s": "\ud800"}]), "application/json", {})


def test_an_indented_body_is_drfs() -> None:
    data = _page([{"slug": "a", "title": "T"}])
    media = "application/json; indent=4"
    rendered = JSONRenderer().render(data, media, {})
    assert rendered == _drf(data, media)
    assert b"\n    " in rendered
