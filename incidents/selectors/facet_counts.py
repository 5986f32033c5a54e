""" "What if" counts: for every facet value, the cases one more click on it would give.

A value's count is what its link gives: its facet's values combine with OR, so clicking a value
of a facet that already has chosen values gives the cases of the other filters that hold any of
them or this one (`symptom=nccl-timeout`: "Slow checkpoint" counts the NCCL-timeout cases and the
slow-checkpoint ones), and clicking an excluded value includes it instead. A chosen value counts
its cases among the results (its click takes it out). A value is listed when it has cases of its
own under the facet's other filters (its exclusions apply); a value counts the distinct cases
tagged with it or a descendant, through the implied links. The counts come from the facet index
(incidents.selectors.facet_index, bitmaps keyed by the library's version); `sql_counter` counts
the same with grouped queries, the reference the index is tested against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Count
from django.db.models import QuerySet

from incidents import facets
from incidents.facets import FACETS
from incidents.facets import FacetSpec
from incidents.filtersets import CaseFilterSet
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.selectors.facet_index import Selection
from incidents.selectors.facet_index import selection
from incidents.selectors.vocabulary import Vocabulary
from incidents.suggest import Suggestion
from incidents.suggest import suggest_filters

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


def click_counts(
    own: dict[int, int],
    chosen: list[int],
    held: int,
    extra: dict[int, int],
    unexcluded: dict[int, int],
) -> dict[int, int]:
    """A facet's counts from its parts: `own`, each value's cases under the other filters;
    `chosen`, the facet's chosen values, and `held`, the cases they give; `extra`, each value's
    cases among the others (those the chosen ones do not hold); `unexcluded`, what clicking an
    excluded value gives."""
    counts = own
    if chosen:
        counts = {value: held + extra.get(value, 0) for value in own}
        counts.update({value: own.get(value, 0) for value in chosen})
    return {**counts, **unexcluded}


def sql_counter(filterset: CaseFilterSet) -> Counter:
    """Counts by SQL, grouped queries over the links (the index's reference); an excluded
    value's count is its link's filters counted."""
    vocabulary = filterset.vocabulary

    def count(spec: FacetSpec, without: tuple[str, ...]) -> dict[int, int]:
        others = filterset.without(spec.param, *without)
        own = _counts(others, value__facet=spec.facet)
        data = filterset.cleaned_data
        chosen = [] if spec.param in without else list(data.get(spec.param) or ())
        excluded = [] if spec.exclude_param in without else list(data.get(spec.exclude_param) or ())
        held, extra = 0, {}
        if chosen:
            held = filterset.without(*without).qs.count()
            holding = CaseFacetLink.objects.filter(value__facet=spec.facet, value__slug__in=chosen)
            rest = others.qs.exclude(id__in=holding.values("case_id"))
            extra = value_counts(
                CaseFacetLink.objects.filter(case__in=rest.values("id"), value__facet=spec.facet)
            )
        unexcluded = {}
        for slug in excluded:
            clicked = filterset.without(*without).data.copy()
            clicked.setlist(spec.exclude_param, [s for s in excluded if s != slug])
            clicked.setlist(spec.param, [*chosen, slug])
            found = type(filterset)(clicked, queryset=filterset.queryset, vocabulary=vocabulary)
            unexcluded[_id(vocabulary, spec, slug)] = found.qs.count()
        return click_counts(
            own, [_id(vocabulary, spec, s) for s in chosen], held, extra, unexcluded
        )

    return count


def _id(vocabulary: Vocabulary, spec: FacetSpec, slug: str) -> int:
    value = vocabulary.get(spec.facet, slug)
    assert value is not None  # a valid filter value
    return value.id


def index_counter(found: Selection) -> Counter:
    """Counts from the facet index: bitmap intersections, no query."""

    def count(spec: FacetSpec, without: tuple[str, ...]) -> dict[int, int]:
        left_out = (spec.param, *without)
        base = found.cases(without=left_out)
        own = found.own_counts(spec, base)
        chosen = [] if spec.param in without else found.chosen(spec.param)
        excluded = [] if spec.exclude_param in without else found.chosen(spec.exclude_param)
        held, extra = 0, {}
        if chosen:
            inside = base & found.index.cases_of(chosen)
            held, extra = len(inside), found.own_counts(spec, base - inside)
        unexcluded = {
            value: found.cases_with(
                spec.exclude_param, [v for v in excluded if v != value], without=left_out
            ).intersection_cardinality(found.index.cases_of([*chosen, value]))
            for value in excluded
        }
        return click_counts(own, chosen, held, extra, unexcluded)

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
    them; the other filters, its facet's exclusions too, stay). One query for the aliases; the
    counts come from the facet index."""
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
            by_value = count(spec, ("q",))
            counts.update({v: n for v, n in by_value.items() if v in ids})
    return [CountedSuggestion(s, counts.get(s.value.id, 0)) for s in found]
