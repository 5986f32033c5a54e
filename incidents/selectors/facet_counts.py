""" "What if" counts: for every facet value, the cases one more click on it would give.

A facet is counted on the cases its FilterSet selects `without` that facet's own include filter
(its exclusions still apply); a value counts the distinct cases tagged with it or a descendant,
through the implied links. The counts come from the facet index (incidents.selectors.facet_index,
bitmaps keyed by the library's version); `sql_counter` counts the same with one grouped query per
facet, the reference the index is tested against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Count, QuerySet

from incidents import facets
from incidents.facets import FACETS, FacetSpec
from incidents.filtersets import CaseFilterSet
from incidents.models import CaseFacetLink, FacetValue
from incidents.selectors.facet_index import Selection, selection
from incidents.suggest import Suggestion, suggest_filters

# Counts of one facet's values: (facet, filter names left out) -> {value id: cases}.
Counter = Callable[[FacetSpec, tuple[str, ...]], dict[int, int]]


@dataclass(frozen=True)
class FacetCount:
    """One facet value with the number of cases the current filters would give if it were added."""

    value: FacetValue
    parent: FacetValue | None
    count: int
    depth: int
    selected: bool
    excluded: bool


@dataclass(frozen=True)
class FacetGroup:
    """A facet's values in tree order, each with its count."""

    spec: FacetSpec
    values: list[FacetCount]


@dataclass(frozen=True)
class CountedSuggestion:
    """A facet value named in the search words, and the cases following the suggestion gives."""

    suggestion: Suggestion
    count: int


def value_counts(links: QuerySet[CaseFacetLink]) -> dict[int, int]:
    """Cases per facet value among the given links, in one grouped query.

    Over all links (implied ones included), a value counts the cases in its subtree.
    """
    return dict(
        links.order_by()
        .values_list("value_id")
        .annotate(n=Count("case_id"))
        .values_list("value_id", "n")
    )


def _counts(filterset: CaseFilterSet, **value_filter: object) -> dict[int, int]:
    """Cases per facet value over the FilterSet's cases."""
    return value_counts(
        CaseFacetLink.objects.filter(case__in=filterset.qs.values("id"), **value_filter)
    )


def sql_counter(filterset: CaseFilterSet) -> Counter:
    """Counts by SQL: one grouped query over the links per facet (the index's reference)."""

    def count(spec: FacetSpec, without: tuple[str, ...]) -> dict[int, int]:
        return _counts(filterset.without(spec.param, *without), value__facet=spec.facet)

    return count


def index_counter(found: Selection) -> Counter:
    """Counts from the facet index: bitmap intersections, no query."""

    def count(spec: FacetSpec, without: tuple[str, ...]) -> dict[int, int]:
        return found.counts(spec, without=without)

    return count


def facet_groups(filterset: CaseFilterSet, *, counter: Counter | None = None) -> list[FacetGroup]:
    """Every facet's values (tree order) with their "what if" counts (from the facet index
    unless another counter is given)."""
    count = counter or index_counter(selection(filterset))
    vocabulary = filterset.vocabulary
    selected = set(filterset.selected())
    groups = []
    for spec in FACETS:
        counts = count(spec, ())
        groups.append(
            FacetGroup(
                spec,
                [
                    FacetCount(
                        value=value,
                        parent=vocabulary.values.get(value.parent_id or 0),
                        count=counts.get(value.id, 0),
                        depth=vocabulary.depth(value),
                        selected=(spec.param, value.slug) in selected
                        and (spec.exclude_param, value.slug) not in selected,
                        excluded=(spec.exclude_param, value.slug) in selected,
                    )
                    for value in vocabulary.in_tree_order(spec.facet)
                ],
            )
        )
    return groups


def suggestions_for(
    filterset: CaseFilterSet, text: str, *, counter: Counter | None = None
) -> list[CountedSuggestion]:
    """The facet values named in `text` that the filters do not use yet, each with what following
    it gives: its facet's "what if" count once the words are dropped (the suggestion replaces
    them). One query for the aliases; the counts come from the facet index."""
    if not text:
        return []
    in_use = set(filterset.selected())
    search = filterset.text_search
    if search is not None and search.text == text:
        named = search.suggestions  # the engine already ran for this text in this request
    else:
        named = suggest_filters(text, values=filterset.vocabulary.values.values())
    found = [
        s
        for s in named
        if not any((name, s.value.slug) in in_use for name in facets.spec(s.facet).params)
    ]
    if not found:
        return []
    count = counter or index_counter(selection(filterset))
    counts: dict[int, int] = {}
    for spec in FACETS:
        ids = {s.value.id for s in found if s.facet == spec.facet}
        if ids:
            by_value = count(spec, ("q", spec.exclude_param))
            counts.update({v: n for v, n in by_value.items() if v in ids})
    return [CountedSuggestion(s, counts.get(s.value.id, 0)) for s in found]
