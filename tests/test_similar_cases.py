"""Similar cases from the facet index's bitmaps rank as the SQL ranking they replace did.

The oracle below is the query the case page ran before (`CaseFacetLink` direct links of the
case's failure values grouped per case, most shared first, then newest, then title), with the
id added last so that the order is total. It is compared with `similar_cases` for every case of
the seeded library and of a synthetic library of many overlapping cases (cases tagged with a
value and with its child too, same dates, no dates), on whichever database runs the tests
(SQLite by default, PostgreSQL with DATABASE_URL). The case page's own values and broad areas,
taken from the index too, are compared with the database's, and its shared items, read in one
query, with their prefetches.
"""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import connection
from django.db.models import Count
from django.db.models.functions import Coalesce
from django.test.utils import CaptureQueriesContext

from incidents.facets import COMPONENT
from incidents.facets import FAILURE_FACETS
from incidents.models import CASE_ITEM_LINKS
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.models import case_relation
from incidents.selectors import facet_index
from incidents.selectors.card_items import attach_items
from incidents.selectors.cases import case_card
from incidents.selectors.cases import case_detail_queryset
from incidents.selectors.cases import own_values
from incidents.selectors.direct_index import DirectIndex
from incidents.selectors.direct_index import load_direct
from incidents.selectors.direct_index import top_shared
from incidents.selectors.prefetch import MissingPrefetch
from incidents.selectors.prefetch import prefetched
from incidents.selectors.related import broad_areas
from incidents.selectors.related import similar_cases
from incidents.services import refresh_implied_links

pytestmark = pytest.mark.django_db

_FAILURE = [spec.facet for spec in FAILURE_FACETS]
Ranking = list[tuple[str, list[str]]]  # (slug, slugs of the shared values)


def _sql_ranking(case: Case, limit: int) -> Ranking:
    """The ranking as SQL gave it: the direct links of the case's failure values, grouped."""
    own = dict(
        CaseFacetLink.objects.filter(case=case, direct=True, value__facet__in=_FAILURE).values_list(
            "value_id", "value__slug"
        )
    )
    ranked = list(
        CaseFacetLink.objects.filter(direct=True, value_id__in=own.keys())
        .exclude(case_id=case.id)
        .values("case_id")
        .annotate(shared=Count("value_id"))
        .order_by(
            "-shared",
            Coalesce("case__period_start", "case__published").desc(nulls_last=True),
            "case__title",
            "case_id",
        )
        .values_list("case_id", "case__slug")[:limit]
    )
    shared: dict[int, list[str]] = {case_id: [] for case_id, _ in ranked}
    for case_id, value_id in CaseFacetLink.objects.filter(
        direct=True, case_id__in=shared, value_id__in=own.keys()
    ).values_list("case_id", "value_id"):
        shared[case_id].append(own[value_id])
    return [(slug, sorted(shared[case_id])) for case_id, slug in ranked]


def _index_ranking(case: Case, direct: DirectIndex, limit: int) -> Ranking:
    return [
        (s.case.slug, sorted(v.slug for v in s.shared))
        for s in similar_cases(case=case, direct=direct, limit=limit)
    ]


def _direct() -> DirectIndex:
    return load_direct(facet_index.load_index())


def _compare_every_case(direct: DirectIndex) -> dict[int, Ranking]:
    """Compare both rankings (the first five, and every case sharing a value) for every case;
    returns the SQL's first five by case id (empty for a case with no similar case).

    The SQL ranking is read once per case, whole: its order is total (the id comes last), so
    its first five are the rows `LIMIT 5` returns."""
    first_five = {}
    for case in case_detail_queryset():
        expected = _sql_ranking(case, 10_000)
        first_five[case.id] = expected[:5]
        for limit in (5, 10_000):
            assert _index_ranking(case, direct, limit) == expected[:limit], (case.slug, limit)
    return first_five


def _add_overlapping_cases(count: int, seed: int = 15) -> None:
    """Cases tagged with a few failure values each, drawn from a small pool so that they
    overlap a lot: parents and their children (some cases both), dates shared by many cases,
    some with only a publication date or none."""
    rng = random.Random(seed)
    values = list(FacetValue.objects.filter(facet__in=_FAILURE).order_by("id"))
    children = [v for v in values if v.parent_id is not None]
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=d) for d in range(6)]
    cases = []
    for i in range(count):
        when = rng.choice([*days, None])
        published = rng.choice([*days, None]) if when is None else None
        cases.append(
            Case(
                slug=f"overlap-{i}",
                title=f"Overlap {rng.randint(0, count // 4):04d} {i}",
                summary="Synthetic.",
                period_start=when,
                published=published,
            )
        )
    cases = Case.objects.bulk_create(cases)
    links = []
    for case in cases:
        chosen = set(rng.sample(values[:24], rng.randint(1, 5)))
        if rng.random() < 0.3:  # a child and its parent both tagged directly
            child = rng.choice(children)
            chosen |= {child, next(v for v in values if v.id == child.parent_id)}
        links += [CaseFacetLink(case=case, value=v) for v in chosen]
    CaseFacetLink.objects.bulk_create(links)
    refresh_implied_links()


def test_index_ranking_equals_the_sql_ranking_on_the_seeded_library(seeded_library: None) -> None:
    assert sum(map(bool, _compare_every_case(_direct()).values())) > 40


def test_index_ranking_equals_the_sql_ranking_with_many_overlapping_cases(
    small_library: None,
) -> None:
    _add_overlapping_cases(240)
    direct = _direct()
    first_five = _compare_every_case(direct)
    assert sum(map(bool, first_five.values())) > 200
    # The library tells the ranking apart from near misses: counted on the values' subtrees
    # (implied links too), or with ties in another order, some case's ranking differs.
    index = direct.index
    subtrees = DirectIndex(index, index.by_value, direct.using)
    reverse = {rank: len(index.order) - rank for rank in range(len(index.order))}
    differs_subtree = differs_ties = 0
    for case in case_detail_queryset():
        expected = first_five[case.id]
        differs_subtree += _index_ranking(case, subtrees, 5) != expected
        own = [v.id for v in own_values(case) if v.facet in _FAILURE]
        found = [direct.cases_of(v) for v in own]
        me = index.rank_of[case.id]
        top = top_shared(found, leave_out=me, limit=10_000)
        by_count = {r: sum(r in f for f in found) for r in top}
        newest_last = sorted(top, key=lambda r: (-by_count[r], reverse[r]))[:5]
        differs_ties += newest_last != top[:5]
    assert differs_subtree > 10 and differs_ties > 10


def test_the_case_page_values_and_areas_from_the_index_are_the_databases(
    small_library: None,
) -> None:
    _add_overlapping_cases(60)
    direct = _direct()
    for case in case_detail_queryset():
        card = case_card(slug=case.slug, direct=direct)
        assert [v.id for v in own_values(card)] == [v.id for v in own_values(case)], case.slug
        expected = [
            link.value.slug
            for link in CaseFacetLink.objects.filter(
                case=case, value__facet=COMPONENT.facet, value__parent__isnull=True
            )
            .select_related("value")
            .order_by("value__name")
        ]
        areas = broad_areas(case=card, vocabulary=direct.index.vocabulary)
        assert [v.slug for v in areas] == expected, case.slug


def test_a_case_added_since_the_index_was_built_reads_its_values_from_the_database(
    small_library: None,
) -> None:
    index = facet_index.load_index()
    _add_overlapping_cases(3)
    direct = load_direct(index)  # their implied links are read, and left out
    assert direct.own_values(Case.objects.get(slug="overlap-0").id) is None
    assert all(len(direct.cases_of(v)) <= len(index.cases) for v in index.by_value)
    card = case_card(slug="overlap-0", direct=direct)
    expected = CaseFacetLink.objects.filter(case=card, direct=True).values_list(
        "value_id", flat=True
    )
    assert sorted(v.id for v in own_values(card)) == sorted(expected)


@pytest.mark.parametrize(
    ("sets", "leave_out", "expected"),
    [
        ([[1, 2, 3], [2, 3], [3]], None, [3, 2, 1]),
        ([[1, 2, 3], [2, 3], [3]], 3, [2, 1]),
        ([[5, 1], [1, 5], [7]], None, [1, 5, 7]),  # ties in rank order
        ([[4], [], [4, 9]], 4, [9]),
        ([], None, []),
    ],
)
def test_top_shared_counts_each_rank_once_per_set(
    sets: list[list[int]], leave_out: int | None, expected: list[int]
) -> None:
    from pyroaring import BitMap

    assert top_shared([BitMap(s) for s in sets], leave_out=leave_out, limit=10) == expected
    assert top_shared([BitMap(s) for s in sets], leave_out=leave_out, limit=2) == expected[:2]


def _items(case: Case) -> dict[str, list[tuple[object, ...]]]:
    return {
        case_relation(link): [
            (x.id, x.position, x.wording, x.item_id, x.item.slug, x.item.text, x.case_id)
            for x in prefetched(case, case_relation(link))
        ]
        for link in CASE_ITEM_LINKS.values()
    }


def test_the_shared_items_read_in_one_query_are_the_prefetches(seeded_library: None) -> None:
    compared = 0
    for case in case_detail_queryset():
        read = Case.objects.get(id=case.id)
        with pytest.raises(MissingPrefetch):
            prefetched(read, "lesson_links")
        with CaptureQueriesContext(connection) as captured:
            attach_items(read)
            got = _items(read)  # the items and the cases too, from what was read
            assert [x.id for x in read.lesson_links.all()] == [x[0] for x in got["lesson_links"]]
        assert len(captured.captured_queries) == 1
        assert got == _items(case), case.slug
        compared += sum(map(bool, got.values()))
    assert compared > 100  # most cases have remediations, action items and lessons
