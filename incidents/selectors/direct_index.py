"""Per facet value, the cases tagged with it directly: the facet index's bitmaps less the implied links.

A value's bitmap in the facet index (`selectors.facet_index`) holds the cases of its subtree:
tagged with it, or only with a descendant (an implied link). What a case page shows counts own
tags alone: its facet values, and the cases sharing the most of its failure values. So next to
an index this module keeps, per value, the cases linked to it only through a descendant (read
in one query when a case page first needs them at that index's version) and subtracts them: a
value without children has no implied links, and its bitmap is used as it is.

Held per database beside the process's index and dropped with it: a new index (the version
moved) reads the implied links again. They are read after the index's rows; a write committed
in between moved the version, so the next request builds both anew (as for the index itself).
Cases are ranks in the library's default order (newest first), as in the index.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.postgres.aggregates import ArrayAgg
from django.db import connections
from pyroaring import BitMap
from pyroaring import FrozenBitMap

from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.selectors.facet_index import FacetIndex
from incidents.selectors.facet_index import current_index
from incidents.selectors.library_version import LibraryVersion

_EMPTY = FrozenBitMap()


@dataclass(frozen=True)
class DirectIndex:
    """Per facet value id, the ranks of the cases tagged with it directly."""

    index: FacetIndex
    by_value: dict[int, FrozenBitMap]
    using: str  # the database the index was read from

    def cases_of(self, value_id: int) -> FrozenBitMap:
        return self.by_value.get(value_id, _EMPTY)

    def own_values(self, case_id: int) -> list[FacetValue] | None:
        """The facet values the case is tagged with, in the vocabulary's order (by facet, then
        name), or None for a case the index does not hold (added since it was built)."""
        rank = self.index.rank_of.get(case_id)
        if rank is None:
            return None
        values = self.index.vocabulary.values
        return [values[v] for v in values if rank in self.by_value.get(v, _EMPTY)]


def top_shared(
    sets: Iterable[BitMap | FrozenBitMap], *, leave_out: int | None, limit: int
) -> list[int]:
    """The ranks found in the most of `sets`, most first, ties in rank order (the library's
    default order: newest, then title); `leave_out` is never one of them.

    Counted with bitmaps (a bit-sliced counter): `levels[j]` holds the ranks found in at least
    j + 1 of the sets seen so far, and each set lifts the ranks it shares with a level to the
    next one; no loop over the cases in Python.
    """
    levels: list[BitMap] = []
    for found in sets:
        carry = BitMap(found)
        for level in levels:
            lifted = level & carry
            level |= carry
            carry = lifted
            if not carry:
                break
        if carry:
            levels.append(carry)
    ranked: list[int] = []
    above = BitMap()
    for level in reversed(levels):
        exactly = level - above
        if leave_out is not None:
            exactly.discard(leave_out)
        ranked.extend(exactly[: limit - len(ranked)])
        if len(ranked) >= limit:
            break
        above = level
    return ranked


def _implied_postgresql(using: str) -> Iterable[tuple[int, list[int]]]:
    """Per value, the ids of the cases linked to it only through a descendant (an array each)."""
    return (
        CaseFacetLink.objects.using(using)
        .filter(direct=False)
        .order_by()
        .values("value_id")
        .annotate(ids=ArrayAgg("case_id"))
        .values_list("value_id", "ids")
    )


def _implied_sqlite(using: str) -> Iterable[tuple[int, list[int]]]:
    """The same on SQLite (no arrays): each implied link read and grouped here."""
    grouped: dict[int, list[int]] = {}
    links = CaseFacetLink.objects.using(using).filter(direct=False).order_by()
    for value_id, case_id in links.values_list("value_id", "case_id").iterator(chunk_size=20_000):
        grouped.setdefault(value_id, []).append(case_id)
    return grouped.items()


def _ranks(rank_of: dict[int, int], ids: list[int]) -> BitMap:
    """The ranks of the cases of `ids`, mapped in C (`map` over the dict's lookup)."""
    try:
        return BitMap(map(rank_of.__getitem__, ids))
    except KeyError:  # a case added since the index was read: left out (the version moved)
        return BitMap(rank_of[i] for i in ids if i in rank_of)


def load_direct(index: FacetIndex, using: str = "default") -> DirectIndex:
    """The index's bitmaps less the implied links (one query)."""
    read = _implied_postgresql if connections[using].vendor == "postgresql" else _implied_sqlite
    implied = {value_id: _ranks(index.rank_of, ids) for value_id, ids in read(using)}
    by_value = {
        value_id: FrozenBitMap(cases - implied[value_id]) if value_id in implied else cases
        for value_id, cases in index.by_value.items()
    }
    return DirectIndex(index, by_value, using)


_lock = threading.Lock()
_held: dict[str, DirectIndex] = {}


def direct_index(index: FacetIndex, using: str = "default") -> DirectIndex:
    """The direct links of `index` (the one this request uses), read once per index."""
    held = _held.get(using)
    if held is not None and held.index is index:
        return held
    with _lock:
        held = _held.get(using)
        if held is None or held.index is not index:
            held = _held[using] = load_direct(index, using)
        return held


def current(using: str = "default", version: LibraryVersion | None = None) -> DirectIndex:
    """The direct links of this process's current index (`facet_index.current_index`);
    `version`: the version this request already read, if it did."""
    return direct_index(current_index(using, version), using)
