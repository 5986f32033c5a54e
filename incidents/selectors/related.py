"""Reads for the case page beyond the card itself: similar cases and the case's broad areas.

Both take a case fetched by `case_detail` (its direct links prefetched) and cost a fixed number
of queries, whatever the size of the library. "Similar" means a similar failure: only the
registry's failure facets count, so the same organisation alone does not make two cases alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count
from django.db.models.functions import Coalesce

from incidents.facets import COMPONENT, FACETS, FAILURE_FACETS, FacetSpec
from incidents.models import Case, CaseFacetLink, FacetValue
from incidents.selectors.cases import own_values

_FAILURE = {spec.facet for spec in FAILURE_FACETS}
_FACET_ORDER = {spec.facet: index for index, spec in enumerate(FACETS)}


@dataclass(frozen=True)
class SimilarCase:
    """Another case and the facet values it is tagged with that the first case is tagged with too."""

    case: Case
    shared: list[FacetValue]


def similar_cases(*, case: Case, limit: int = 5) -> list[SimilarCase]:
    """The cases sharing the most directly tagged failure values with `case`, most shared first.

    Ties go to the newer case (by period, else publication date), then by title. Three queries
    at most: the ranking (counted in the database), the cases, and which values each shares.
    """
    own = {v.id: v for v in own_values(case) if v.facet in _FAILURE}
    if not own:
        return []
    ranked = list(
        CaseFacetLink.objects.filter(direct=True, value_id__in=own.keys())
        .exclude(case_id=case.id)
        .values("case_id")
        .annotate(shared=Count("value_id"))
        .order_by(
            "-shared",
            Coalesce("case__period_start", "case__published").desc(nulls_last=True),
            "case__title",
        )
        .values_list("case_id", flat=True)[:limit]
    )
    if not ranked:
        return []
    cases = Case.objects.in_bulk(ranked)
    shared: dict[int, list[FacetValue]] = {case_id: [] for case_id in ranked}
    for case_id, value_id in CaseFacetLink.objects.filter(
        direct=True, case_id__in=ranked, value_id__in=own.keys()
    ).values_list("case_id", "value_id"):
        shared[case_id].append(own[value_id])
    return [
        SimilarCase(
            cases[case_id],
            sorted(shared[case_id], key=lambda v: (_FACET_ORDER[v.facet], v.name.lower())),
        )
        for case_id in ranked
    ]


def broad_areas(*, case: Case, spec: FacetSpec = COMPONENT) -> list[FacetValue]:
    """The top-level values of a facet the case falls under (tagged directly or through a child)."""
    return [
        link.value
        for link in CaseFacetLink.objects.filter(
            case=case, value__facet=spec.facet, value__parent__isnull=True
        )
        .select_related("value")
        .order_by("value__name")
    ]
