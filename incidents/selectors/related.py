"""Reads for the case page beyond the card itself: similar cases and the case's broad areas.

Both take a case fetched by `case_detail` or `case_card` (its own values attached) and are
answered from the facet index and its direct links (`selectors.direct_index`): the similar
cases cost one query (the few cases shown), the broad areas none, whatever the size of the
library. "Similar" means a similar failure: only the registry's failure facets count, so the
same organisation alone does not make two cases alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from incidents.facets import COMPONENT
from incidents.facets import FACETS
from incidents.facets import FAILURE_FACETS
from incidents.facets import FacetSpec
from incidents.models import Case
from incidents.models import FacetValue
from incidents.selectors.cases import own_values
from incidents.selectors.direct_index import DirectIndex
from incidents.selectors.direct_index import top_shared
from incidents.selectors.vocabulary import Vocabulary

_FAILURE = {spec.facet for spec in FAILURE_FACETS}
_FACET_ORDER = {spec.facet: index for index, spec in enumerate(FACETS)}


@dataclass(frozen=True)
class SimilarCase:
    """Another case and the facet values it is tagged with that the first case is tagged with too."""

    case: Case
    shared: list[FacetValue]


def similar_cases(*, case: Case, direct: DirectIndex, limit: int = 5) -> list[SimilarCase]:
    """The cases sharing the most directly tagged failure values with `case`, most shared first.

    Ties go to the newer case (by period, else publication date), then by title, then by id: the
    library's default order, the index's ranks. Counted on the bitmaps of the case's own failure
    values (`top_shared`); one query, for the cases shown.
    """
    own = {v.id: v for v in own_values(case) if v.facet in _FAILURE}
    if not own:
        return []
    index = direct.index
    found = {value_id: direct.cases_of(value_id) for value_id in own}
    ranked = top_shared(found.values(), leave_out=index.rank_of.get(case.id), limit=limit)
    if not ranked:
        return []
    ids = [index.order[rank] for rank in ranked]
    cases = Case.objects.using(case._state.db).order_by().in_bulk(ids)
    return [
        SimilarCase(
            cases[case_id],
            sorted(
                (own[v] for v, members in found.items() if rank in members),
                key=lambda v: (_FACET_ORDER[v.facet], v.name.lower()),
            ),
        )
        for rank, case_id in zip(ranked, ids, strict=True)
        if case_id in cases  # deleted since the index was built: its write moved the version
    ]


def broad_areas(
    *, case: Case, vocabulary: Vocabulary, spec: FacetSpec = COMPONENT
) -> list[FacetValue]:
    """The top-level values of a facet the case falls under (tagged directly or through a child),
    by name: the roots of its own values' paths in the vocabulary (no query)."""
    known = vocabulary.values
    roots = {
        vocabulary.path(known[v.id])[0]
        for v in own_values(case)
        if v.facet == spec.facet and v.id in known  # a value newer than the vocabulary: left out
    }
    return sorted(roots, key=lambda v: vocabulary.position[v.id])
