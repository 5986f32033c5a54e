"""Search: facet values found in free text, and ranked text search on both databases."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from incidents.models import Case, FacetValue
from incidents.search import search_cases
from incidents.suggest import suggest_filters

pytestmark = pytest.mark.django_db


def _found(text: str) -> list[tuple[str, str]]:
    return [(s.facet, s.value.slug) for s in suggest_filters(text)]


# --- suggest_filters (sentences that are in no fixture) ----------------------------------------


def test_the_issue_sentence_names_the_symptom_and_the_component(small_library: None) -> None:
    found = suggest_filters("our nccl timeouts came from a leaking data loader")
    by_value = {(s.facet, s.value.slug): s for s in found}
    assert ("symptom", "nccl-timeout") in by_value
    assert ("component", "training-data-loader") in by_value
    assert by_value[("symptom", "nccl-timeout")].matched == "nccl timeouts"
    assert by_value[("component", "training-data-loader")].matched == "data loader"
    assert by_value[("symptom", "nccl-timeout")].facet_label == "Symptom"


def test_aliases_case_and_plurals_count(small_library: None) -> None:
    assert _found("Every rank saw COLLECTIVE TIMEOUTS after the upgrade") == [
        ("symptom", "nccl-timeout")
    ]
    assert _found("the Shanghai AI Lab people replaced two gpus") == [
        ("organisation", "shanghai-ai-laboratory"),
        ("component", "gpu-hardware"),
    ]


def test_small_typos_are_forgiven_but_short_words_must_be_exact(small_library: None) -> None:
    found = suggest_filters("a dataloder worker died, then a colective timeout")
    assert [(s.value.slug, s.exact) for s in found] == [
        ("training-data-loader", False),
        ("nccl-timeout", False),
    ]
    assert _found("we found a bog in the code") == []  # "bog" is not "bug"
    assert _found("we found a bug in the code") == [("root_cause", "software-bug")]


def test_words_written_together_or_apart(small_library: None) -> None:
    assert _found("the data loader leaked") == [("component", "training-data-loader")]
    assert _found("the DataLoader leaked") == [("component", "training-data-loader")]


def test_a_longer_name_wins_over_the_shorter_one_inside_it(small_library: None) -> None:
    FacetValue.objects.create(facet="symptom", slug="timeout", name="Timeout")
    assert _found("an nccl timeout") == [("symptom", "nccl-timeout")]
    assert _found("the job hit a timeout") == [("symptom", "timeout")]


def test_a_component_may_sit_inside_another_facets_words(small_library: None) -> None:
    """ "NCCL timeout" also says where: in NCCL; but "data leak" is no memory leak."""
    FacetValue.objects.create(facet="component", slug="nccl", name="NCCL")
    FacetValue.objects.create(facet="root_cause", slug="leak", name="Leak")
    FacetValue.objects.create(facet="symptom", slug="data-leak", name="Data leak")
    assert _found("an nccl timeout") == [("symptom", "nccl-timeout"), ("component", "nccl")]
    assert _found("nccl was upgraded") == [("component", "nccl")]
    assert _found("a data leak") == [("symptom", "data-leak")]


def test_everyday_words_spelt_as_acronyms_need_their_capitals(small_library: None) -> None:
    assert _found("a fair share of the jobs") == []
    assert _found("FAIR lost a week of training") == [("organisation", "meta")]


def test_counts_are_cases_with_the_value_or_a_descendant(small_library: None) -> None:
    from incidents.filtersets import CaseFilterSet
    from incidents.selectors.facet_counts import suggestions_for

    found = suggestions_for(CaseFilterSet({}), "job crash and ECC errors")
    assert {c.suggestion.value.slug: c.count for c in found} == {"job-crash": 2, "ecc-error": 1}
    # A value already applied is not suggested again; the others count under the filters.
    applied = CaseFilterSet({"symptom": ["job-crash"], "organisation": ["meta"]})
    found = suggestions_for(applied, "job crash and ECC errors")
    assert {c.suggestion.value.slug: c.count for c in found} == {"ecc-error": 1}


def test_no_words_no_suggestions(small_library: None) -> None:
    assert suggest_filters("") == []
    assert suggest_filters("  --- ") == []
    assert suggest_filters("the weather was nice") == []


def test_a_pasted_postmortem_is_read_quickly_enough_to_finish(small_library: None) -> None:
    text = "Our training job hung. The NCCL watchdog fired; ECC error counters rose. " * 400
    found = _found(text)
    assert ("component", "gpu-memory") not in found
    assert ("symptom", "ecc-error") in found


# --- ranked text search ---------------------------------------------------------------------------


def _case(slug: str, title: str, summary: str, year: int, detection: str = "") -> Case:
    return Case.objects.create(
        slug=slug,
        title=title,
        summary=summary,
        detection=detection,
        period_start=dt.date(year, 1, 1),
    )


@pytest.fixture
def ranked_cases(db: None) -> None:
    _case("in-detection", "Quiet night", "Nothing to see.", 2024, detection="Found by a watchdog")
    _case("in-summary", "Training stopped", "A watchdog killed the run twice.", 2023)
    _case("in-title", "Watchdog kills a training run", "The run stopped.", 2020)
    _case("elsewhere", "Disk full", "Logs filled the disk.", 2025)


def _search(text: str) -> list[str]:
    return [c.slug for c in search_cases(Case.objects.all(), text)]


def test_title_ranks_above_summary_above_the_rest(ranked_cases: None) -> None:
    assert _search("watchdog") == ["in-title", "in-summary", "in-detection"]


def test_every_word_must_match(ranked_cases: None) -> None:
    assert _search("watchdog training") == ["in-title", "in-summary"]
    assert _search("watchdog disk") == []


def test_no_words_leaves_the_list_as_it_was(ranked_cases: None) -> None:
    assert _search("  ") == [c.slug for c in Case.objects.all()]


def test_facets_and_words_combine_through_the_filterset(small_library: None) -> None:
    from django.http import QueryDict

    from incidents.selectors.cases import case_queryset

    found = case_queryset(params=QueryDict("q=timeouts&component=training-data-loader"))
    assert [c.slug for c in found.queryset] == ["leaky-loader"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL full-text search")
def test_postgres_websearch_syntax(ranked_cases: None) -> None:
    assert _search("watchdog -training") == ["in-detection"]
    assert _search('"killed the run"') == ["in-summary"]
    assert _search("disk or quiet") == ["elsewhere", "in-detection"] or _search(
        "disk or quiet"
    ) == ["in-detection", "elsewhere"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_trgm typo tolerance")
def test_postgres_forgives_a_typo_but_ranks_true_matches_first(ranked_cases: None) -> None:
    assert _search("wachdog") == ["in-title", "in-summary", "in-detection"]
    assert _search("watchdog")[0] == "in-title"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_trgm typo tolerance")
def test_postgres_takes_a_known_word_as_written(ranked_cases: None) -> None:
    _case("overhead", "Scheduler overhead grew", "Each step waited on the scheduler.", 2019)
    _case("hot", "Racks overheating in summer", "Cooling failed.", 2018)
    # "overheating" is in the library: no typo match on the look-alike "overhead".
    assert _search("overheating") == ["hot"]
    assert _search("overheatting")[0] == "hot"  # a typo: the closest case first


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_trgm typo tolerance")
def test_postgres_short_words_count_and_stop_words_do_not(ranked_cases: None) -> None:
    assert _search("watchdog gpu") == []  # "gpu" is too short to be forgiven as a typo
    assert _search("the watchdogs") == ["in-title", "in-summary", "in-detection"]
    assert _search("wachdog the run") == ["in-title", "in-summary"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL stemming")
def test_postgres_matches_other_forms_of_a_word(ranked_cases: None) -> None:
    assert _search("kill") == ["in-title", "in-summary"]


@pytest.mark.skipif(connection.vendor == "postgresql", reason="the SQLite fallback")
def test_sqlite_fallback_matches_plurals_as_substrings(ranked_cases: None) -> None:
    assert _search("watchdogs") == ["in-title", "in-summary", "in-detection"]
    assert _search("kill") == ["in-title", "in-summary"]
