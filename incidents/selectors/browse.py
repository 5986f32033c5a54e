"""Reads for browsing by facet: each facet as a tree with counts, and a page per facet value.

A case's implied links (to every ancestor of a value it is tagged with) make the count of a value
the number of distinct cases in its subtree, counted with one grouped query per facet. Cases of a
value are found through the one CaseFilterSet, as on the library page.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

from django.core.paginator import Page
from django.core.paginator import Paginator
from django.db.models import Count
from django.db.models import QuerySet

from incidents.facets import FACETS
from incidents.facets import FacetSpec
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetAlias
from incidents.models import FacetValue
from incidents.selectors.cases import case_queryset
from incidents.selectors.cases import read_requested_page
from incidents.selectors.cases import with_facet_values
from incidents.selectors.facet_counts import value_counts
from incidents.selectors.vocabulary import Vocabulary

CO_OCCURRING_PER_FACET = 6


@dataclass
class ValueCount:
    """A facet value with a number of distinct cases (those tagged with it or a descendant, or,
    among the cases of another value, those tagged with both), and its narrower values."""

    value: FacetValue
    count: int
    children: list[ValueCount] = field(default_factory=list)


@dataclass(frozen=True)
class FacetSummary:
    """A facet with its number of values and of cases tagged with any of them."""

    spec: FacetSpec
    values: int
    cases: int


@dataclass(frozen=True)
class CoOccurringGroup:
    """The values of another facet that a value's cases are most often tagged with."""

    spec: FacetSpec
    items: list[ValueCount]


@dataclass
class ValuePage:
    """Everything the page of one facet value shows."""

    spec: FacetSpec
    value: FacetValue
    ancestors: list[FacetValue]  # root first, without the value itself
    children: list[ValueCount]
    aliases: list[str]
    cases: Page[Case]
    co_occurring: list[CoOccurringGroup]
    page_problem: str = ""  # what was wrong with the page number asked for


def _build(
    vocabulary: Vocabulary, values: list[FacetValue], counts: dict[int, int]
) -> list[ValueCount]:
    return [
        ValueCount(
            value,
            counts.get(value.id, 0),
            _build(vocabulary, vocabulary.children.get(value.id, []), counts),
        )
        for value in values
    ]


def facet_tree(*, spec: FacetSpec, vocabulary: Vocabulary | None = None) -> list[ValueCount]:
    """A facet's values as a tree (alphabetical at each level), each with its case count."""
    vocabulary = vocabulary or Vocabulary.load()
    counts = value_counts(CaseFacetLink.objects.filter(value__facet=spec.facet))
    return _build(vocabulary, vocabulary.roots(spec.facet), counts)


def facet_summaries(*, vocabulary: Vocabulary | None = None) -> list[FacetSummary]:
    """Per facet: how many values it has and how many cases are tagged with any of them."""
    vocabulary = vocabulary or Vocabulary.load()
    tagged = dict(
        CaseFacetLink.objects.filter(direct=True)
        .values_list("value__facet")
        .annotate(n=Count("case_id", distinct=True))
        .values_list("value__facet", "n")
    )
    return [
        FacetSummary(spec, len(vocabulary.in_tree_order(spec.facet)), tagged.get(spec.facet, 0))
        for spec in FACETS
    ]


def facet_value_page(
    *, spec: FacetSpec, slug: str, page: int | str | list[str] = 1, per_page: int = 25
) -> ValuePage:
    """One value: its place in the tree, aliases, cases (newest first) and co-occurring values.

    Raises FacetValue.DoesNotExist for an unknown slug. The number of queries is fixed.
    """
    vocabulary = Vocabulary.load()
    value = vocabulary.get(spec.facet, slug)
    if value is None:
        raise FacetValue.DoesNotExist(f"No {spec.facet} value with slug {slug!r}")
    children = vocabulary.children.get(value.id, [])
    child_counts = (
        value_counts(CaseFacetLink.objects.filter(value__in=children)) if children else {}
    )
    cases = case_queryset(params={spec.param: [slug]}, vocabulary=vocabulary).queryset
    paginator = Paginator(with_facet_values(cases), per_page)
    cases_page, problem = read_requested_page(paginator, page)
    return ValuePage(
        spec=spec,
        value=value,
        ancestors=vocabulary.path(value)[:-1],
        children=[ValueCount(child, child_counts.get(child.id, 0)) for child in children],
        aliases=sorted(
            FacetAlias.objects.filter(value=value).values_list("text", flat=True), key=str.lower
        ),
        cases=cases_page,
        co_occurring=_co_occurring(spec, cases, vocabulary),
        page_problem=problem,
    )


def _co_occurring(
    spec: FacetSpec, cases: QuerySet[Case], vocabulary: Vocabulary
) -> list[CoOccurringGroup]:
    """The values of the other facets that the given cases are most often tagged with."""
    rows = value_counts(
        CaseFacetLink.objects.filter(direct=True, case__in=cases.values("id")).exclude(
            value__facet=spec.facet
        )
    )
    by_facet: dict[str, list[ValueCount]] = {}
    for value_id, count in rows.items():
        other = vocabulary.values[value_id]
        by_facet.setdefault(other.facet, []).append(ValueCount(other, count))
    groups = []
    for other_spec in FACETS:
        items = sorted(
            by_facet.get(other_spec.facet, []), key=lambda c: (-c.count, c.value.name.lower())
        )
        if items:
            groups.append(CoOccurringGroup(other_spec, items[:CO_OCCURRING_PER_FACET]))
    return groups
