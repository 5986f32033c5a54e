"""JSON for snapshots and reports: orjson when it is installed, the standard library otherwise.

orjson (a compiled wheel, a dependency of the full install) parses and writes several times faster
than :mod:`json` and shares repeated object keys between the objects it builds. ``kubegap.pyz``
carries only pure-Python code, so there the standard library does the same job, more slowly:
both give the same documents (compact UTF-8; two-space indentation for reports).
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # kubegap.pyz, or an install without the compiled wheel
    orjson = None  # type: ignore[assignment]

BACKEND = "orjson" if orjson is not None else "json"


def loads(data: bytes | str) -> Any:
    """Parse one JSON document; raises ValueError (orjson.JSONDecodeError is one) when invalid."""
    if orjson is not None:
        return orjson.loads(data)
    return json.loads(data)


def _std_plain(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


# Compact JSON of parsed JSON data (string keys, 64-bit integers), as fast as the backend goes.
dumps_plain = orjson.dumps if orjson is not None else _std_plain


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """``value`` as UTF-8 JSON: compact, or indented by two spaces (reports)."""
    if orjson is not None:
        option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
        try:
            return orjson.dumps(value, option=option)
        except orjson.JSONEncodeError:
            pass  # e.g. an integer beyond 64 bits from a YAML file: the standard library takes it
    if indent:
        return json.dumps(value, indent=2, ensure_ascii=False).encode()
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
