"""The facet index: per facet value, the compressed bitmap (pyroaring) of the cases tagged with it.

A value's bitmap holds the cases linked to it directly or through a descendant (the implied
links), so a parent's bitmap already covers its subtree. Facet filters become unions (OR within a
facet), intersections (AND across facets) and differences (`not_<param>`); a "what if" count is
the cardinality of a value's bitmap intersected with the filtered set. The text search `q`
gives its matches from its words' postings (`TextSearch.matched()`); any other filter the index
does not hold is read from the database as a set of ids, once per request; both are intersected
too.

The index lives in the process, one per database alias, and is keyed by the library's version
(`selectors.library_version.current()`, number and time of the last committed write): every
request reads the version (one query) and rebuilds the index when it moved. The version is read
before the rows, so an index is never older than the version it carries; a write committed while
it loads only makes the next request rebuild again. PostgreSQL stays the source of truth: with many
workers or replicas each process holds its own index and each notices a write on its next request.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.postgres.aggregates import ArrayAgg
from django.db import connections
from pyroaring import BitMap
from pyroaring import FrozenBitMap

from incidents.facets import FACETS
from incidents.facets import FacetSpec
from incidents.filtersets import CaseFilterSet
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.selectors import library_version
from incidents.selectors import page_cache
from incidents.selectors.library_version import LibraryVersion
from incidents.selectors.vocabulary import Vocabulary

# The query parameters the index answers itself; any other active filter is read as ids.
FACET_PARAMS: frozenset[str] = frozenset(name for spec in FACETS for name in spec.params)
# The text search, whose matches come from its own postings (TextSearch.matched), not a query.
TEXT_PARAM = "q"
# Parameters that order the cases but select none.
ORDER_PARAMS: frozenset[str] = frozenset({"ordering"})
# Pages of a text search up to this many cases in are ranked on the candidates alone
# (TextSearch.top_ids); later ones sort the whole match.
MAX_RANKED_PAGE_END = 200

_EMPTY = FrozenBitMap()


@dataclass(frozen=True)
class FacetIndex:
    """Every case, and per facet value id the cases in its subtree.

    A case is held as its rank in the library's default order (newest first): `order[rank]` is
    its id and `rank_of[id]` its rank. Counts do not care; a page of cases in the default order
    is then a slice of the selected ranks, with no sort.
    """

    version: LibraryVersion
    cases: FrozenBitMap
    by_value: dict[int, FrozenBitMap]
    vocabulary: Vocabulary  # the facet values as of the same version
    order: list[int]
    rank_of: dict[int, int]
    ids: FrozenBitMap  # every case's id
    rank_by_id: list[int]  # rank_by_id[id] is the rank of a case (-1 for no case)

    def ranks_of(self, case_ids: BitMap) -> BitMap:
        """The ranks of the given cases (ids of no case are left out), with no Python loop."""
        return BitMap(map(self.rank_by_id.__getitem__, case_ids & self.ids))

    def ids_of(self, ranks: BitMap) -> BitMap:
        """The ids of the cases at the given ranks."""
        return BitMap(map(self.order.__getitem__, ranks))

    def cases_of(self, value_ids: Iterable[int]) -> BitMap:
        """The cases tagged with any of the values (or one of their descendants)."""
        return BitMap.union(BitMap(), *(self.by_value.get(v, _EMPTY) for v in value_ids))

    def count_within(self, base: BitMap | FrozenBitMap, value_ids: Iterable[int]) -> dict[int, int]:
        """Per value, how many of the `base` cases it has (values with none are left out)."""
        counts = {}
        for value_id in value_ids:
            cases = self.by_value.get(value_id)
            if cases is not None:
                n = cases.intersection_cardinality(base)
                if n:
                    counts[value_id] = n
        return counts


def load_index(using: str = "default", version: LibraryVersion | None = None) -> FacetIndex:
    """Build the index from the database: the version first (unless just read), then the facet
    values, the cases in the default order and, per value, the ranks of its cases."""
    version = version or library_version.current(using)
    vocabulary = Vocabulary.load(using)
    if connections[using].vendor == "postgresql":
        read = _ranks_in_postgresql
    else:
        read = _ranks_in_python
    order = list(Case.objects.using(using).order_by(*_NEWEST_FIRST).values_list("id", flat=True))
    rank_of = {case_id: rank for rank, case_id in enumerate(order)}
    by_value = dict(read(using, rank_of))
    rank_by_id = [-1] * (max(order, default=0) + 1)
    for rank, case_id in enumerate(order):
        rank_by_id[case_id] = rank
    return FacetIndex(
        version,
        FrozenBitMap(range(len(order))),
        by_value,
        vocabulary,
        order,
        rank_of,
        FrozenBitMap(order),
        rank_by_id,
    )


# The library's default order (newest first), the id settling ties: a case's rank is its place.
_NEWEST_FIRST = [*(Case._meta.ordering or []), "id"]


def _ranks_in_postgresql(using: str, rank_of: dict[int, int]) -> Iterable[tuple[int, FrozenBitMap]]:
    """Per value, the ranks of its cases: PostgreSQL groups the links into one array of case ids
    per value (a row per value, not one per link), and the ids become ranks here, in C (`map`
    over the dict's lookup).

    Measured at 100,000 cases (762,000 links): numbering the cases in PostgreSQL instead (a
    window function joined to the links, arrays of ranks) costs PostgreSQL more than it saves
    here (its hash join of every link: 390 ms against 300 ms for these two reads and the map).
    """
    grouped = (
        CaseFacetLink.objects.using(using)
        .order_by()
        .values("value_id")
        .annotate(ids=ArrayAgg("case_id"))
        .values_list("value_id", "ids")
    )
    for value_id, ids in grouped:
        try:
            yield value_id, FrozenBitMap(map(rank_of.__getitem__, ids))
        except KeyError:
            # A link to a case added after the cases were read is left out: its write moved
            # the version, so the next request rebuilds the index anyway.
            yield value_id, FrozenBitMap(rank_of[i] for i in ids if i in rank_of)


def _ranks_in_python(using: str, rank_of: dict[int, int]) -> Iterable[tuple[int, FrozenBitMap]]:
    """The same on SQLite (no arrays): each link read and mapped to a rank here."""
    rank = rank_of.get
    by_value: dict[int, list[int]] = {}
    links = CaseFacetLink.objects.using(using).order_by().values_list("value_id", "case_id")
    for value_id, case_id in links.iterator(chunk_size=20_000):
        found = rank(case_id)
        if found is not None:  # as above: a case added since the cases were read
            by_value.setdefault(value_id, []).append(found)
    return ((value_id, FrozenBitMap(ranks)) for value_id, ranks in by_value.items())


_lock = threading.Lock()
_indexes: dict[str, FacetIndex] = {}
# The last index built inside a transaction, per database: found again only by the FilterSet
# holding its very vocabulary (the request that built it), never shared with another request.
_unshared: dict[str, FacetIndex] = {}


def current_index(using: str = "default", version: LibraryVersion | None = None) -> FacetIndex:
    """This process's index of the committed library, rebuilt when the version moved; `version`
    is the version this request already read, if it did (it is not read twice)."""
    version = version or library_version.current(using)
    index = _indexes.get(using)
    if index is not None and index.version == version:
        return index
    with _lock:
        index = _indexes.get(using)
        if index is None or index.version != version:
            index = load_index(using, version)
            # Inside a transaction the rows may be this connection's own uncommitted writes:
            # use them for this request, but keep nothing another request could reuse.
            if not connections[using].in_atomic_block:
                _indexes[using] = index
            else:
                _unshared[using] = index
        return index


def current_vocabulary(using: str = "default", version: LibraryVersion | None = None) -> Vocabulary:
    """The facet values: the current index's (no query of their own) when this process holds
    one, else read afresh (one query, and no index is built for it). A caller that read the
    version for this request (an API list) gets the index's, built now if need be: it is about
    to count or page with it, and the version is then read once."""
    if _indexes.get(using) is None and version is None:
        return Vocabulary.load(using)
    return current_index(using, version).vocabulary


def forget(using: str = "default") -> None:
    """Drop this process's index (the next request rebuilds it)."""
    with _lock:
        _indexes.pop(using, None)
        _unshared.pop(using, None)


class Selection:
    """A FilterSet's filters evaluated on the index: the cases it selects, and the bases of the
    "what if" counts (all filters but some), each a bitmap."""

    def __init__(self, index: FacetIndex, filterset: CaseFilterSet) -> None:
        self.index = index
        self.filterset = filterset
        data = filterset.cleaned_data
        vocabulary = filterset.vocabulary
        self._values: dict[str, list[int]] = {}
        for spec in FACETS:
            for name in spec.params:
                ids = [
                    value.id
                    for slug in data.get(name) or ()
                    if (value := vocabulary.get(spec.facet, slug)) is not None
                ]
                if ids:
                    self._values[name] = ids
        self._others = sorted(name for name, v in data.items() if v and name not in FACET_PARAMS)
        self._other_ids: dict[tuple[str, ...], BitMap] = {}
        self._selected: BitMap | None = None

    @property
    def in_default_order(self) -> bool:
        """Whether the FilterSet lists its cases in the library's default order (newest first),
        the index's: yes unless another filter (the text search, best match first) is used."""
        return not self._others

    def selected(self) -> BitMap:
        """The cases every filter selects (computed once)."""
        if self._selected is None:
            self._selected = self.cases()
        return self._selected

    def page_ids(self, start: int, stop: int) -> list[int]:
        """The ids of the selected cases from `start` to `stop` in the default order."""
        return [self.index.order[rank] for rank in self.selected()[start:stop]]

    @property
    def cache_key(self) -> str:
        """The version as a cache key (number and time: a number alone can come back after a
        rolled-back write), or "" if this index is not the process's shared one."""
        if _indexes.get(self.filterset.queryset.db) is not self.index:
            return ""
        return page_cache.key_of(self.index.version)

    def cases(
        self, *, without: Iterable[str] = (), values: dict[str, list[int]] | None = None
    ) -> BitMap:
        """The cases selected by every filter but the named ones (`values`: the facet filters'
        value ids to use instead of the FilterSet's)."""
        left_out = set(without)
        chosen = self._values if values is None else values
        result = BitMap(self.index.cases)
        for spec in FACETS:
            if spec.param in chosen and spec.param not in left_out:
                result &= self.index.cases_of(chosen[spec.param])
            if spec.exclude_param in chosen and spec.exclude_param not in left_out:
                result -= self.index.cases_of(chosen[spec.exclude_param])
        others = tuple(name for name in self._others if name not in left_out)
        if others:
            result &= self._ids_of(others)
        return result

    def _ids_of(self, names: tuple[str, ...]) -> BitMap:
        """The cases the named non-facet filters select: the text search's from its postings,
        the others' ids in one query per combination (a request needs one)."""
        if names not in self._other_ids:
            search = self.filterset.text_search if TEXT_PARAM in names else None
            narrowing = [n for n in names if n not in ORDER_PARAMS]
            if TEXT_PARAM in narrowing and (search is None or not search.narrows):
                search = None  # q without a word that selects (stop words): every case
            if TEXT_PARAM in narrowing:
                narrowing.remove(TEXT_PARAM)
            found: BitMap | None = None
            if search is not None:
                found = self.index.ranks_of(search.matched())
            if narrowing:
                kept = self.filterset.without(*(n for n in self._others if n not in narrowing))
                only = kept.without(*FACET_PARAMS)
                rows = self.index.ranks_of(BitMap(only.qs.order_by().values_list("id", flat=True)))
                found = rows if found is None else found & rows
            self._other_ids[names] = BitMap(self.index.cases) if found is None else found
        return self._other_ids[names]

    def ranked_page(self, start: int, stop: int) -> list[Case] | None:
        """The selected cases from `start` to `stop` in the text search's order, when only
        facets and the text search select and the page is near the top (else None)."""
        search = self.filterset.text_search
        if search is None or self._others != [TEXT_PARAM] or stop > MAX_RANKED_PAGE_END:
            return None
        within = None
        if self._values:  # facet filters: the cases they keep, as ids
            within = self.index.ids_of(self.cases(without=(TEXT_PARAM,)))
        top = search.top(stop, within)
        return None if top is None else top[start:stop]

    def cases_with(self, name: str, value_ids: list[int], *, without: Iterable[str]) -> BitMap:
        """`cases(without=...)` with the facet filter `name` given these value ids instead."""
        return self.cases(without=without, values={**self._values, name: value_ids})

    def chosen(self, name: str) -> list[int]:
        """The value ids of one facet filter (`symptom`, `not_symptom`), in the order given."""
        return self._values.get(name, [])

    def own_counts(self, spec: FacetSpec, base: BitMap) -> dict[int, int]:
        """Per value of the facet, how many of the `base` cases it has (none: left out)."""
        return self.index.count_within(base, self.filterset.vocabulary.ids(spec.facet))


def selection(filterset: CaseFilterSet) -> Selection:
    """The FilterSet evaluated on the current index of its database; one per FilterSet, so a
    request reads the version once however many counts it asks for."""
    found: Selection | None = getattr(filterset, "_facet_selection", None)
    if found is None:
        using = filterset.queryset.db
        index = _indexes.get(using)
        if index is None or index.vocabulary is not filterset.vocabulary:
            # The FilterSet's vocabulary is the index's when it was checked against the version
            # for this request (current_vocabulary); else check now.
            built = _unshared.get(using)
            if built is not None and built.vocabulary is filterset.vocabulary:
                index = built
            else:
                index = current_index(using)
        found = Selection(index, filterset)
        filterset._facet_selection = found  # type: ignore[attr-defined]
    return found
