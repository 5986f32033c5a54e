"""Reads: case lists with facet counts, and case detail. Every page and the API go through here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Prefetch, QuerySet
from django.http import QueryDict

from incidents.filtersets import CaseFilterSet
from incidents.models import (
    Case,
    CaseActionItem,
    CaseFacetLink,
    CaseLesson,
    CaseRemediation,
    FacetValue,
)
from incidents.selectors.vocabulary import FACETS, Vocabulary


@dataclass
class FacetCount:
    """One facet value with the number of cases the current filters would give if it were added."""

    value: FacetValue
    count: int
    depth: int
    selected: bool
    excluded: bool


@dataclass
class FacetGroup:
    facet: str
    param: str
    label: str
    values: list[FacetCount]


@dataclass
class CaseListResult:
    """The filtered cases, one page of them, counts per facet value, and any filter errors."""

    filterset: CaseFilterSet
    cases: QuerySet[Case]
    page: Page[Case]
    facets: list[FacetGroup]
    errors: dict[str, list[str]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.page.paginator.count


def direct_links_prefetch() -> Prefetch[Any]:
    """Prefetch a case's own facet values (not the implied ancestors), with the values."""
    return Prefetch(
        "links",
        queryset=CaseFacetLink.objects.filter(direct=True)
        .select_related("value")
        .order_by("value__facet", "value__name"),
        to_attr="direct_links",
    )


def filter_cases(
    *, params: QueryDict | dict[str, Any] | None, vocabulary: Vocabulary | None = None
) -> CaseFilterSet:
    """Bind the one FilterSet to the request's parameters."""
    return CaseFilterSet(params or None, queryset=Case.objects.all(), vocabulary=vocabulary)


def case_list(
    *, params: QueryDict | dict[str, Any] | None, page: int | str = 1, per_page: int = 20
) -> CaseListResult:
    """Filtered cases, newest first, paginated, with "what if" counts for every facet value.

    Each facet is counted on the cases filtered by all the other facets (and by its own
    exclusions), so a count says how many cases one more click on that value would keep.
    The number of queries does not depend on the number of cases.
    """
    vocabulary = Vocabulary.load()
    filterset = filter_cases(params=params, vocabulary=vocabulary)
    filterset.is_valid()
    errors = {name: [str(e) for e in errs] for name, errs in filterset.errors.items()}
    cases = filterset.filter_queryset_without(Case.objects.all(), skip="")
    listed = cases.prefetch_related(direct_links_prefetch())
    paginator = Paginator(listed, per_page)
    page_obj = paginator.get_page(page)
    selected = {
        (param, slug): excluded
        for param, excluded, slugs in filterset.active_values()
        for slug in slugs
    }
    groups: list[FacetGroup] = []
    for facet, param, label in FACETS:
        base = filterset.filter_queryset_without(Case.objects.all(), skip=param)
        counts = dict(
            CaseFacetLink.objects.filter(case__in=base.values("id"), value__facet=facet)
            .values_list("value_id")
            .annotate(n=Count("case_id"))
            .values_list("value_id", "n")
        )
        groups.append(
            FacetGroup(
                facet=facet,
                param=param,
                label=label,
                values=[
                    FacetCount(
                        value=value,
                        count=counts.get(value.id, 0),
                        depth=vocabulary.depth(value),
                        selected=selected.get((param, value.slug)) is False,
                        excluded=selected.get((param, value.slug)) is True,
                    )
                    for value in vocabulary.in_tree_order(facet)
                ],
            )
        )
    return CaseListResult(filterset, cases, page_obj, groups, errors)


def case_detail(*, slug: str) -> Case:
    """One case with everything its card shows, in a constant number of queries.

    Raises Case.DoesNotExist when there is no case with that slug.
    """
    return case_detail_queryset().get(slug=slug)


def case_detail_queryset() -> QuerySet[Case]:
    """Cases with everything a card shows prefetched."""
    return Case.objects.prefetch_related(
        direct_links_prefetch(),
        "sources",
        "key_figures",
        "costs",
        Prefetch(
            "remediation_links",
            queryset=CaseRemediation.objects.select_related("item").order_by("position"),
        ),
        Prefetch(
            "action_item_links",
            queryset=CaseActionItem.objects.select_related("item").order_by("position"),
        ),
        Prefetch(
            "lesson_links",
            queryset=CaseLesson.objects.select_related("item").order_by("position"),
        ),
    )


def values_by_facet(case: Case) -> dict[str, list[FacetValue]]:
    """A prefetched case's own facet values grouped by facet."""
    grouped: dict[str, list[FacetValue]] = {facet: [] for facet, _p, _l in FACETS}
    for link in getattr(case, "direct_links", []):
        grouped[link.value.facet].append(link.value)
    return grouped
