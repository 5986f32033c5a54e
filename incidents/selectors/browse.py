"""Reads for browsing by facet: each facet as a tree with counts, and a page per facet value.

A case's implied links (to every ancestor of a value it is tagged with) make the count of a value
the number of distinct cases in its subtree, counted with one grouped query per facet. Cases of a
value are found through the one CaseFilterSet, as on the library page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Count, QuerySet

from incidents.models import Case, CaseFacetLink, Facet, FacetAlias, FacetValue
from incidents.selectors.cases import direct_links_prefetch, filter_cases
from incidents.selectors.vocabulary import FACETS, Vocabulary

# The URL segment of each facet's browse pages.
FACET_PATHS: dict[str, str] = {
    Facet.ROOT_CAUSE: "root-causes",
    Facet.COMPONENT: "components",
    Facet.SYMPTOM: "symptoms",
    Facet.CONTRIBUTING_FACTOR: "contributing-factors",
    Facet.ORGANISATION: "organisations",
}
FACET_LABELS: dict[str, str] = {facet: label for facet, _param, label in FACETS}
CO_OCCURRING_PER_FACET = 6


@dataclass
class TreeNode:
    """A facet value with the number of distinct cases tagged with it or a descendant."""

    value: FacetValue
    count: int
    children: list[TreeNode] = field(default_factory=list)


@dataclass(frozen=True)
class FacetSummary:
    facet: str
    label: str
    values: int
    cases: int


@dataclass(frozen=True)
class CoOccurrence:
    """A value of another facet and the number of this value's cases tagged with it."""

    value: FacetValue
    count: int


@dataclass(frozen=True)
class CoOccurringGroup:
    facet: str
    label: str
    items: list[CoOccurrence]


@dataclass
class ValuePage:
    """Everything the page of one facet value shows."""

    value: FacetValue
    ancestors: list[FacetValue]  # root first, without the value itself
    children: list[TreeNode]
    aliases: list[str]
    cases: Page[Case]
    co_occurring: list[CoOccurringGroup]


def _subtree_counts(facet: str) -> dict[int, int]:
    """Distinct cases per value of a facet, descendants included (implied links), in one query."""
    return dict(
        CaseFacetLink.objects.filter(value__facet=facet)
        .values_list("value_id")
        .annotate(n=Count("case_id"))
        .values_list("value_id", "n")
    )


def _build(
    vocabulary: Vocabulary, values: list[FacetValue], counts: dict[int, int]
) -> list[TreeNode]:
    return [
        TreeNode(
            value,
            counts.get(value.id, 0),
            _build(vocabulary, vocabulary.children.get(value.id, []), counts),
        )
        for value in values
    ]


def facet_tree(*, facet: str, vocabulary: Vocabulary | None = None) -> list[TreeNode]:
    """A facet's values as a tree (alphabetical at each level), each with its case count."""
    vocabulary = vocabulary or Vocabulary.load()
    return _build(vocabulary, vocabulary.roots(facet), _subtree_counts(facet))


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
        FacetSummary(facet, label, len(vocabulary.in_tree_order(facet)), tagged.get(facet, 0))
        for facet, _param, label in FACETS
    ]


def facet_value_page(
    *, facet: str, slug: str, page: int | str = 1, per_page: int = 25
) -> ValuePage:
    """One value: its place in the tree, aliases, cases (newest first) and co-occurring values.

    Raises FacetValue.DoesNotExist for an unknown slug. The number of queries is fixed.
    """
    vocabulary = Vocabulary.load()
    value = vocabulary.get(facet, slug)
    if value is None:
        raise FacetValue.DoesNotExist(f"No {facet} value with slug {slug!r}")
    children = vocabulary.children.get(value.id, [])
    child_counts = (
        dict(
            CaseFacetLink.objects.filter(value__in=children)
            .values_list("value_id")
            .annotate(n=Count("case_id"))
            .values_list("value_id", "n")
        )
        if children
        else {}
    )
    cases = filter_cases(params={facet: [slug]}, vocabulary=vocabulary).qs
    paginator = Paginator(cases.prefetch_related(direct_links_prefetch()), per_page)
    return ValuePage(
        value=value,
        ancestors=vocabulary.path(value)[:-1],
        children=[TreeNode(child, child_counts.get(child.id, 0)) for child in children],
        aliases=sorted(
            FacetAlias.objects.filter(value=value).values_list("text", flat=True), key=str.lower
        ),
        cases=paginator.get_page(page),
        co_occurring=_co_occurring(facet, cases, vocabulary),
    )


def _co_occurring(
    facet: str, cases: QuerySet[Case], vocabulary: Vocabulary
) -> list[CoOccurringGroup]:
    """The values of the other facets that the given cases are most often tagged with."""
    rows = (
        CaseFacetLink.objects.filter(direct=True, case__in=cases.values("id"))
        .exclude(value__facet=facet)
        .values_list("value_id")
        .annotate(n=Count("case_id"))
        .values_list("value_id", "n")
    )
    by_facet: dict[str, list[CoOccurrence]] = {}
    for value_id, count in rows:
        other = vocabulary.values[value_id]
        by_facet.setdefault(other.facet, []).append(CoOccurrence(other, count))
    groups = []
    for other_facet, _param, label in FACETS:
        items = sorted(
            by_facet.get(other_facet, []), key=lambda c: (-c.count, c.value.name.lower())
        )
        if items:
            groups.append(CoOccurringGroup(other_facet, label, items[:CO_OCCURRING_PER_FACET]))
    return groups
