"""The one facet path: filters, "what if" counts per facet value, and constant query counts."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from incidents.facets import FACETS
from incidents.models import Case
from incidents.selectors import cases as selectors
from incidents.selectors.prefetch import prefetched
from tests.bulk import add_cases
from tests.queries import assert_max_queries

pytestmark = pytest.mark.django_db


def _slugs(query: str) -> list[str]:
    result = selectors.case_list(params=QueryDict(query))
    return sorted(c.slug for c in result.query.queryset)


def _counts(query: str, param: str) -> dict[str, int]:
    result = selectors.case_list(params=QueryDict(query))
    group = next(g for g in result.facets if g.spec.param == param)
    return {item.value.slug: item.count for item in group.values}


def test_no_filter_lists_every_case_newest_first(small_library: None) -> None:
    result = selectors.case_list(params=QueryDict(""))
    assert [c.slug for c in result.page.object_list] == [
        "hbm-failures",  # 2024
        "leaky-loader",  # 2023-03
        "flaky-network",  # 2022-05-02
    ]


def test_or_within_a_facet_and_across_facets(small_library: None) -> None:
    assert _slugs("component=training-data-loader&component=network") == [
        "flaky-network",
        "leaky-loader",
    ]
    assert _slugs("component=training-data-loader&component=network&organisation=meta") == [
        "flaky-network"
    ]


def test_parent_value_matches_descendants(small_library: None) -> None:
    assert _slugs("component=gpu-hardware") == ["hbm-failures"]  # tagged gpu-memory only
    assert _slugs("symptom=job-crash") == ["flaky-network", "hbm-failures"]  # ecc-error is a child


def test_exclude_a_value(small_library: None) -> None:
    assert _slugs("not_organisation=meta") == ["leaky-loader"]
    assert _slugs("symptom=nccl-timeout&not_component=network") == ["leaky-loader"]


def test_text_filter_mixes_with_facets(small_library: None) -> None:
    assert _slugs("q=memory") == ["hbm-failures", "leaky-loader"]
    assert _slugs("q=memory&organisation=meta") == ["hbm-failures"]


def test_each_facet_is_counted_on_the_set_filtered_by_the_other_facets(small_library: None) -> None:
    query = "organisation=meta&symptom=nccl-timeout"
    # A count is what clicking the value gives: another organisation joins Meta (OR), so Meta's
    # NCCL-timeout case and Shanghai's; the applied Meta counts its case among the results.
    assert _counts(query, "organisation") == {"meta": 1, "shanghai-ai-laboratory": 2}
    # Symptoms keep organisation=meta and join NCCL timeout: job-crash and its child ecc-error
    # add hbm-failures to flaky-network.
    assert _counts(query, "symptom") == {"nccl-timeout": 1, "job-crash": 2, "ecc-error": 2}
    # Other facets are counted on the fully filtered set (flaky-network only).
    assert _counts(query, "component") == {
        "network": 1,
        "gpu-hardware": 0,
        "gpu-memory": 0,
        "training-data-loader": 0,
    }


def test_parent_counts_distinct_cases_of_its_subtree(small_library: None) -> None:
    counts = _counts("", "symptom")
    # flaky-network is tagged job-crash; hbm-failures is tagged ecc-error (a child of job-crash).
    assert counts["job-crash"] == 2
    assert counts["ecc-error"] == 1


def test_unknown_slug_is_reported_not_a_crash(small_library: None) -> None:
    result = selectors.case_list(params=QueryDict("component=no-such-thing&organisation=meta"))
    assert "component" in result.errors
    assert "no-such-thing" in result.errors["component"][0]
    # The valid filter still applies.
    assert sorted(c.slug for c in result.query.queryset) == ["flaky-network", "hbm-failures"]


@pytest.mark.parametrize(
    "query", ["", "organisation=meta&symptom=job-crash", "q=case&not_component=network"]
)
def test_case_list_query_count_is_pinned_whatever_the_number_of_cases(
    small_library: None, query: str
) -> None:
    add_cases(60)
    # vocabulary, count, the page of cases, their facet values, one count per facet; with words
    # also the word counts, the aliases (facet boost), the words each listed case holds and,
    # the library having just changed, the suggestion lexicon's signature and one more vocabulary
    # read by the facet index
    with assert_max_queries(4 + len(FACETS) + (5 if "q=" in query else 0)):
        result = selectors.case_list(params=QueryDict(query))
        rows = [selectors.values_by_facet(case) for case in result.page.object_list]
        [g.values for g in result.facets]
    assert rows and all(any(values.values()) for values in rows)


@pytest.mark.parametrize("slug", ["leaky-loader", "bulk-7"])
def test_case_detail_query_count_is_pinned(small_library: None, slug: str) -> None:
    add_cases(60)
    # the case, its 7 prefetched relations and its breakdowns' rows and their values
    with assert_max_queries(11):
        case = selectors.case_detail(slug=slug)
        selectors.values_by_facet(case)
        for relation in ("sources", "key_figures", "costs", "remediation_links", "lesson_links"):
            prefetched(case, relation)
        for table in prefetched(case, "breakdowns"):
            for row in prefetched(table, "rows"):
                prefetched(row, "value_links")


def test_kind_and_setting_filter_like_facets(small_library: None) -> None:
    assert _slugs("kind=study") == ["hbm-failures"]
    assert _slugs("kind=study&kind=incident&organisation=meta") == [
        "flaky-network",
        "hbm-failures",
    ]
    Case.objects.filter(slug="leaky-loader").update(setting="serving")
    assert _slugs("setting=serving") == ["leaky-loader"]


def test_years_filter_on_the_date_the_list_is_sorted_by(small_library: None) -> None:
    # hbm-failures 2024, leaky-loader 2023-03, flaky-network 2022-05-02
    assert _slugs("year=2023") == ["leaky-loader"]
    assert _slugs("year_min=2023") == ["hbm-failures", "leaky-loader"]
    assert _slugs("year_max=2023") == ["flaky-network", "leaky-loader"]
    assert _slugs("year_min=2023&year_max=2023") == ["leaky-loader"]
    # A case with no period is dated by its publication.
    Case.objects.filter(slug="flaky-network").update(period_start=None, published="2019-01-01")
    assert _slugs("year=2019") == ["flaky-network"]


@pytest.mark.parametrize(
    ("ordering", "expected"),
    [
        ("", ["hbm-failures", "leaky-loader", "flaky-network"]),
        ("newest", ["hbm-failures", "leaky-loader", "flaky-network"]),
        ("oldest", ["flaky-network", "leaky-loader", "hbm-failures"]),
        ("title", ["leaky-loader", "flaky-network", "hbm-failures"]),
        ("-title", ["hbm-failures", "flaky-network", "leaky-loader"]),
    ],
)
def test_ordering(small_library: None, ordering: str, expected: list[str]) -> None:
    result = selectors.case_list(params=QueryDict(f"ordering={ordering}" if ordering else ""))
    assert [c.slug for c in result.page.object_list] == expected


def test_title_order_ignores_case_as_a_reader_does(small_library: None) -> None:
    # "A leaking ...", "aardvark ...", "Flapping ...": SQLite's binary collation would put every
    # capital first ("Flapping" before "aardvark"); PostgreSQL's locale would not.
    Case.objects.filter(slug="hbm-failures").update(title="aardvark HBM failures")
    a_to_z = ["leaky-loader", "hbm-failures", "flaky-network"]
    for ordering, expected in (("title", a_to_z), ("-title", a_to_z[::-1])):
        result = selectors.case_list(params=QueryDict(f"ordering={ordering}"))
        assert [c.slug for c in result.page.object_list] == expected, ordering


def test_ordering_overrides_the_text_ranking(small_library: None) -> None:
    result = selectors.case_list(params=QueryDict("q=memory&ordering=oldest"))
    assert [c.slug for c in result.page.object_list] == ["leaky-loader", "hbm-failures"]


def test_bad_field_values_are_reported_and_left_out(small_library: None) -> None:
    query = selectors.case_queryset(params=QueryDict("kind=rumour&year=20x3&organisation=meta"))
    assert set(query.errors) == {"kind", "year"}
    assert sorted(c.slug for c in query.queryset) == ["flaky-network", "hbm-failures"]


def test_filter_forms_share_choices_but_nothing_one_form_sets(small_library: None) -> None:
    """The forms' fields are copied sharing their choice lists: a FilterSet giving a field its
    facet's choices leaves the class's field and every other form's as they were."""
    from incidents.filtersets import CaseFilterSet

    given = CaseFilterSet(QueryDict("symptom=nccl-timeout"), queryset=Case.objects.all())
    base = given.get_form_class().base_fields["symptom"]
    assert list(given.form.fields["symptom"].choices)  # type: ignore[attr-defined]
    assert list(base.choices) == []  # type: ignore[attr-defined]
    other = CaseFilterSet(QueryDict("kind=incident"), queryset=Case.objects.all())
    assert list(other.form.fields["symptom"].choices) == []  # type: ignore[attr-defined]
    assert other.form.fields["symptom"] is not given.form.fields["symptom"]
    assert other.form.fields["kind"].widget is not given.form.fields["kind"].widget
    assert other.errors == {} and given.errors == {}
    assert "symptom" in CaseFilterSet(QueryDict("symptom=nope"), queryset=Case.objects.all()).errors
