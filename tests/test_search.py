"""Suggestions: facet values found in free text (the ranked text search: test_text_search.py)."""

from __future__ import annotations

import pytest

from incidents.models import FacetValue
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
    # A value already applied is not suggested again; the others count what their link gives:
    # ECC error joins the applied symptom (OR), so Meta's job-crash case and its ECC-error case.
    applied = CaseFilterSet({"symptom": ["job-crash"], "organisation": ["meta"]})
    found = suggestions_for(applied, "job crash and ECC errors")
    assert {c.suggestion.value.slug: c.count for c in found} == {"ecc-error": 2}


def test_no_words_no_suggestions(small_library: None) -> None:
    assert suggest_filters("") == []
    assert suggest_filters("  --- ") == []
    assert suggest_filters("the weather was nice") == []


def test_a_pasted_postmortem_is_read_quickly_enough_to_finish(small_library: None) -> None:
    text = "Our training job hung. The NCCL watchdog fired; ECC error counters rose. " * 400
    found = _found(text)
    assert ("component", "gpu-memory") not in found
    assert ("symptom", "ecc-error") in found
