"""The cases holding a word, as stored in `SearchTerm.postings`: a serialized roaring bitmap of
case ids (pyroaring), a few bytes per case for a rare word and at most 8 kB per 65,536 cases for a
common one."""

from __future__ import annotations

from collections.abc import Iterable

from pyroaring import BitMap


def encode(case_ids: Iterable[int] | BitMap) -> bytes:
    found = case_ids if isinstance(case_ids, BitMap) else BitMap(case_ids)
    found.run_optimize()
    return bytes(found.serialize())


def decode(data: bytes | memoryview | None) -> BitMap:
    """The bitmap stored by `encode` (empty for b"": a row written before postings existed)."""
    if not data:
        return BitMap()
    return BitMap.deserialize(bytes(data))
