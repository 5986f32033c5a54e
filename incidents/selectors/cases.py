"""Reads of cases: the one filter path, the library's list with counts, and a case's card.

`case_queryset(params=...)` is the one way to get the cases a request's filters select: the pages,
the cost view, the graph and the API all call it (or `case_list`, built on it), and none builds
its own queryset. Query counts never depend on the number of cases.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.core.paginator import Page
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.db.models import QuerySet
from django.db.models import prefetch_related_objects

from incidents.facets import FACETS
from incidents.filtersets import CaseFilterSet
from incidents.models import CASE_ITEM_LINKS
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CostFigure
from incidents.models import FacetValue
from incidents.models import KeyFigure
from incidents.models import Source
from incidents.models import case_relation
from incidents.query_params import page_number
from incidents.query_params import page_problem
from incidents.search import Correction
from incidents.selectors.breakdowns import breakdowns_prefetch
from incidents.selectors.card_items import attach_items
from incidents.selectors.direct_index import DirectIndex
from incidents.selectors.facet_counts import FacetGroup
from incidents.selectors.facet_counts import facet_groups
from incidents.selectors.facet_index import current_vocabulary
from incidents.selectors.facet_index import selection
from incidents.selectors.indexed_pages import paginator
from incidents.selectors.library_version import LibraryVersion
from incidents.selectors.prefetch import prefetched
from incidents.selectors.vocabulary import Vocabulary

Params = Mapping[str, Any] | None


@dataclass(frozen=True)
class CaseQuery:
    """The cases a request's filters select, the filter errors, and the bound FilterSet."""

    errors: dict[str, list[str]]
    filterset: CaseFilterSet

    @cached_property
    def queryset(self) -> QuerySet[Case]:
        """The filtered cases as a queryset, built when first asked for: a list paged by the
        facet index in the default order reads its cases by id and never builds it (the
        facets' subqueries cost more than the rest of such a request)."""
        return self.filterset.qs

    @property
    def vocabulary(self) -> Vocabulary:
        return self.filterset.vocabulary

    @property
    def notes(self) -> list[str]:
        """What the bounds on the parameters left out (incidents.query_params), in sentences."""
        return self.filterset.notes


def case_queryset(
    *,
    params: Params,
    vocabulary: Vocabulary | None = None,
    version: LibraryVersion | None = None,
) -> CaseQuery:
    """Apply the one FilterSet to the request's parameters: the filtered cases, newest first
    (best match first with `q`), and the errors of the values it had to leave out. `version`:
    the library version the request already read, if any (not read again)."""
    vocabulary = vocabulary or current_vocabulary(version=version)
    filterset = CaseFilterSet(params or None, queryset=Case.objects.all(), vocabulary=vocabulary)
    # An unbound FilterSet has no errors (its form would be built and copied only to say so).
    errors = (
        {name: [str(e) for e in errs] for name, errs in filterset.errors.items()}
        if filterset.is_bound
        else {}
    )
    return CaseQuery(errors, filterset)


@dataclass(frozen=True)
class SearchSummary:
    """What a page says about its text search: how many of the query's words each listed case
    holds (none when the query is too long to say it usefully) and a "did you mean"."""

    total_words: int
    matched: dict[int, int]
    correction: Correction | None
    asks: bool = True  # False: no word to search (stop words only, or no letter or digit)
    phrases_only: bool = False  # every word of the query is a phrase
    # When the page lists no case: how many cases hold the words whatever the other filters
    # (0 otherwise), so that an empty page can say the filters, not the words, left none.
    held_elsewhere: int = 0

    @property
    def partial(self) -> bool:
        """No listed case holds every word of the query."""
        return bool(self.matched) and max(self.matched.values()) < self.total_words

    def matched_words(self, case: Case) -> int | None:
        return self.matched.get(case.id)


@dataclass(frozen=True)
class CaseListResult:
    """The filtered cases, one page of them (facet values prefetched), counts per facet, and
    what the text search, if any, has to say."""

    query: CaseQuery
    page: Page[Case]
    search: SearchSummary | None = None
    page_problem: str = ""  # what was wrong with the page number asked for (query_params)

    @cached_property
    def facets(self) -> list[FacetGroup]:
        """Every facet's values with their "what if" counts, counted when first asked for (a
        page whose facet trees are in the cache never asks)."""
        return facet_groups(self.query.filterset)

    @property
    def total(self) -> int:
        return self.page.paginator.count

    @property
    def errors(self) -> dict[str, list[str]]:
        return self.query.errors

    @property
    def version(self) -> LibraryVersion:
        """The library version the counts were made at."""
        return selection(self.query.filterset).index.version

    @property
    def cache_key(self) -> str:
        """What fragments that depend only on the library may be cached under ("" when they must
        not be: read inside a transaction, the version may not be committed)."""
        return selection(self.query.filterset).cache_key


def direct_links_prefetch() -> Prefetch[Any]:
    """Prefetch a case's own facet values (not the implied ancestors) as `direct_links`."""
    return Prefetch(
        "links",
        queryset=CaseFacetLink.objects.filter(direct=True)
        .select_related("value")
        .order_by("value__facet", "value__name"),
        to_attr="direct_links",
    )


@dataclass(frozen=True)
class DirectLink:
    """A case's own facet value as `attach_direct_values` stores it in `direct_links` (the
    value itself is the vocabulary's)."""

    value: FacetValue


def attach_direct_values(cases: list[Case], vocabulary: Vocabulary) -> None:
    """Give each case its own facet values as `direct_links`, in the order the prefetch of
    `direct_links_prefetch()` gives them: one query of (case, value) ids, the values taken from
    the vocabulary already in memory instead of read and built again for every link.

    A value newer than the vocabulary (created by a write since the version it was read at) is
    left out: that write moved the version, so the next request reads a newer vocabulary.
    """
    if not cases:
        return
    known = vocabulary.values
    by_case: dict[int, list[FacetValue]] = {case.id: [] for case in cases}
    if all(hasattr(case, "direct_value_ids") for case in cases):
        # Read with the cases already (IndexedPaginator on PostgreSQL): no query.
        pairs: Any = ((c.id, v) for c in cases for v in c.direct_value_ids or ())  # type: ignore[attr-defined]
    else:
        links = CaseFacetLink.objects.using(cases[0]._state.db).filter(
            direct=True, case_id__in=list(by_case)
        )
        pairs = links.order_by().values_list("case_id", "value_id")
    for case_id, value_id in pairs:
        value = known.get(value_id)
        if value is not None:
            by_case[case_id].append(value)
    position = vocabulary.position
    for case in cases:
        values = sorted(by_case[case.id], key=lambda v: position[v.id])
        case.__dict__["direct_links"] = [DirectLink(v) for v in values]


def with_facet_values(cases: QuerySet[Case]) -> QuerySet[Case]:
    """The cases with what a row of a list shows (their own facet values) prefetched."""
    return cases.prefetch_related(direct_links_prefetch())


def case_list(
    *,
    params: Params,
    page: int | str | list[str] = 1,
    per_page: int = 20,
    version: LibraryVersion | None = None,
) -> CaseListResult:
    """Filtered cases, paginated, with "what if" counts for every facet value.

    A value's count is what one more click on it gives (selectors.facet_counts). `page`: the
    number, or every `page=` value of the request: one that is not a page number shows the
    first page, one past the end the last, and `page_problem` says so. `version`: the library
    version the request already read, if any (not read again).
    """
    query = case_queryset(params=params, version=version)
    page_obj, problem = read_requested_page(paginator(query.filterset, per_page), page)
    attach_direct_values(page_obj.object_list, query.vocabulary)  # type: ignore[arg-type]
    return CaseListResult(query, page_obj, search_summary(query, page_obj), problem)


def search_summary(query: CaseQuery, page: Page[Case]) -> SearchSummary | None:
    """The words each case of the page holds (one query), a correction of misspelt words (one
    query, only when a word is in no case) and, for an empty page, how many cases hold the words
    outside the other filters; None without a text search."""
    search = query.filterset.text_search
    if search is None:
        return None
    # The facet index intersected these matches with the filters: kept, so no query here.
    empty = not page.object_list and search.parsed.clauses
    held_elsewhere = len(search.matched()) if empty else 0
    return SearchSummary(
        search.total_words,
        search.coverage([case.id for case in page.object_list]),
        search.did_you_mean(),
        search.asks,
        bool(search.parsed.terms) and all(t.is_phrase for t in search.parsed.terms),
        held_elsewhere,
    )


def read_requested_page(
    paginator: Paginator[Case], page: int | str | list[str]
) -> tuple[Page[Case], str]:
    """The page a request asks for (`page`: the number, or every `page=` value given) and what
    was wrong with it ("" if nothing, query_params.page_problem): one that is not a page number
    gives the first page, one past the end the last."""
    values = [str(v) for v in page] if isinstance(page, list) else [str(page)]
    found = read_page(paginator, (page_number(values[0]) if values else None) or 1)
    return found, page_problem(values, paginator.num_pages)


def read_page(paginator: Paginator[Case], number: int | str) -> Page[Case]:
    """One page of cases, read now (not when a presenter first iterates it)."""
    page = paginator.get_page(number)
    page.object_list = list(page.object_list)
    return page


def case_detail(*, slug: str) -> Case:
    """One case with everything its card shows, in a constant number of queries.

    Raises Case.DoesNotExist when there is no case with that slug.
    """
    return case_detail_queryset().get(slug=slug)


def case_card(*, slug: str, direct: DirectIndex) -> Case:
    """`case_detail` for the case page in fewer queries: the case's own facet values taken from
    the facet index's direct links (no query, the vocabulary's values; read from the database
    for a case the index does not hold, added since it was built), and its links to shared
    items in one query (`card_items`) instead of one per kind.

    Raises Case.DoesNotExist when there is no case with that slug.
    """
    case = case_detail_queryset(card=True).using(direct.using).get(slug=slug)
    values = direct.own_values(case.id)
    if values is None:
        prefetch_related_objects([case], direct_links_prefetch())
    else:
        case.__dict__["direct_links"] = [DirectLink(v) for v in values]
    attach_items(case)
    return case


def case_detail_queryset(*, card: bool = False) -> QuerySet[Case]:
    """Cases with everything a card shows prefetched, but with `card` what `case_card` attaches
    itself (own values, shared items). Ordered by position alone: the models' own order starts
    with the case's, which would join the cases to every query for nothing."""
    return Case.objects.prefetch_related(
        *([] if card else [direct_links_prefetch()]),
        Prefetch("sources", queryset=Source.objects.order_by("position")),
        Prefetch("key_figures", queryset=KeyFigure.objects.order_by("position")),
        Prefetch("costs", queryset=CostFigure.objects.order_by("position")),
        breakdowns_prefetch(),
        *(
            Prefetch(
                case_relation(link),
                queryset=link.objects.select_related("item").order_by("position"),
            )
            for link in ([] if card else CASE_ITEM_LINKS.values())
        ),
    )


def own_values(case: Case) -> list[FacetValue]:
    """The facet values a case is tagged with (its direct links); raises if not prefetched."""
    return [link.value for link in prefetched(case, "direct_links")]


def values_by_facet(case: Case) -> dict[str, list[FacetValue]]:
    """A case's own facet values grouped by facet; raises MissingPrefetch if not prefetched."""
    grouped: dict[str, list[FacetValue]] = {spec.facet: [] for spec in FACETS}
    for value in own_values(case):
        grouped[value.facet].append(value)
    return grouped
