"""How the suggestion engine reads a text: weak evidence that needs a second piece (everyday
one-word phrases, counted components, organisations as vendors, bare numbers), and the forms a
phrase may take (function words left out, a verb and particle joined or apart, synonyms of its
predicate, "bad"/"faulty"/"flaky", short forms, a preposition's phrase the other way round)."""

from __future__ import annotations

import pytest

from incidents.models import FacetValue
from incidents.suggest import suggest_filters

pytestmark = pytest.mark.django_db


def _found(text: str) -> set[str]:
    return {f"{s.facet}:{s.value.slug}" for s in suggest_filters(text)}


def _value(slug: str = "job-hang", **fields: object) -> FacetValue:
    value, _created = FacetValue.objects.update_or_create(
        facet="symptom", slug=slug, defaults={"name": slug.replace("-", " "), **fields}
    )
    return value


# --- weak evidence ----------------------------------------------------------------------------


def test_an_everyday_one_word_phrase_needs_a_second_piece_of_evidence(small_library: None) -> None:
    """ "stalled" is common English: alone it names nothing; with the value's alias it counts."""
    _value(phrases=["stalled"], description="")
    assert "symptom:job-hang" not in _found("the negotiations stalled")
    hang = _value(phrases=["stalled", "stuck ranks"])
    [found] = [s for s in suggest_filters("training stalled with stuck ranks") if s.value == hang]
    assert set(found.words) == {"stalled", "stuck", "ranks"}


def test_a_technical_one_word_phrase_is_enough_alone(small_library: None) -> None:
    _value(slug="segv", phrases=["segfault"])
    assert "symptom:segv" in _found("worker 3 hit a segfault")


def test_everyday_words_do_not_confirm_one_another(seeded_library: None) -> None:
    """ "node" and "servers" are both flagged ambiguous for Host server: together still nothing."""
    assert "component:host" not in _found("the node and the servers rebooted")


def test_a_counted_component_is_the_scale_not_the_part_that_failed(seeded_library: None) -> None:
    assert "component:gpu" not in _found("the job ran on 512 GPUs for a week")
    assert "component:gpu" in _found("the GPU in slot 3 keeps overheating")


def test_a_component_before_a_noun_of_measure_is_the_amount(seeded_library: None) -> None:
    assert "component:gpu" not in _found("retrying them only burns GPU hours")
    assert "component:gpu" in _found("one GPU kept throwing errors")


def test_an_organisation_before_a_component_is_its_vendor(seeded_library: None) -> None:
    assert "organisation:nvidia" not in _found("the cluster has NVIDIA A100 GPUs")
    assert "organisation:nvidia" in _found("NVIDIA published the study of its clusters")


def test_a_number_names_an_error_code_only_where_nothing_counts(seeded_library: None) -> None:
    assert "symptom:elevated-error-rate" in _found("users saw 503 and 504 for an hour")
    assert "symptom:elevated-error-rate" not in _found("we skipped 500 batches of data")


# --- forms of a phrase ------------------------------------------------------------------------


def test_a_phrase_goes_without_its_function_words(small_library: None) -> None:
    _value(slug="capacity-loss", phrases=["deleted the cluster"])
    assert "symptom:capacity-loss" in _found("support deleted our whole cluster")
    assert "symptom:capacity-loss" not in _found("support deleted a ticket about the cluster")


def test_a_verb_and_its_particle_are_one_word_or_two(small_library: None) -> None:
    value = _value(slug="watchdog")
    value.aliases.create(text="watchdog timeout")
    assert "symptom:watchdog" in _found("the watchdog timed out on rank 3")
    _value(slug="db-down", phrases=["database shut down"])
    assert "symptom:db-down" in _found("a database shutdown at noon")


def test_a_phrase_holds_the_synonyms_of_its_predicate(small_library: None) -> None:
    value = _value(slug="api-down", phrases=["api server went down"])
    [found] = [s for s in suggest_filters("the api server fell over at 9") if s.value == value]
    assert found.via == "phrase"
    assert found.score < 0.9  # a paraphrase weighs a little less than the phrase as written
    # A phrase that is only the predicate has no paraphrases: any "fell over" is not an outage.
    _value(slug="outage", phrases=["went down"])
    assert "symptom:outage" not in _found("the ladder fell over")


def test_faulty_flaky_and_bad_are_read_alike(small_library: None) -> None:
    value = _value(slug="bad-cable")
    value.aliases.create(text="faulty cable")
    assert "symptom:bad-cable" in _found("one flaky cable among thousands")


def test_a_flaky_thing_is_faulty_but_a_faulty_thing_is_not_flaky(small_library: None) -> None:
    """ "flaky node" (a node that keeps failing) is not read as any "faulty node"."""
    _value(slug="lemon", phrases=["flaky node"])
    assert "symptom:lemon" in _found("that flaky node again")
    assert "symptom:lemon" not in _found("the logs led us to the faulty node")


def test_a_short_form_is_read_as_its_word(small_library: None) -> None:
    _value(slug="slow-save", phrases=["checkpoint saves are slow"])
    assert "symptom:slow-save" in _found("ckpt saves are slow again")
    _value(slug="prod-only", phrases=["only in production"])
    assert "symptom:prod-only" in _found("it only happens in prod")


def test_a_phrase_with_a_preposition_reads_the_other_way_round(small_library: None) -> None:
    _value(slug="hbm", phrases=["memory errors on the gpu"])
    assert "symptom:hbm" in _found("gpu memory errors keep climbing")
    # Negated or quantified phrases keep their order: "testing never reproduced" is not one.
    _value(slug="unrepro", phrases=["never reproduced in testing"])
    assert "symptom:unrepro" not in _found("testing never reproduced anything")


def test_a_negated_phrase_holds_the_other_negations(small_library: None) -> None:
    _value(slug="no-fail-fast", phrases=["collective never timed out"])
    assert "symptom:no-fail-fast" in _found("the collective didn't time out for hours")
    assert "symptom:no-fail-fast" not in _found("the collective timed out after ten minutes")


def test_a_denied_term_names_nothing(small_library: None) -> None:
    _value(slug="restarts", phrases=["job restarts"])
    assert "symptom:restarts" in _found("the job restarts every night")
    assert "symptom:restarts" not in _found("throughput fell mid-job with no restart")
    # A term that holds the negation itself still counts.
    _value(slug="no-timeout", phrases=["no timeout fired"])
    assert "symptom:no-timeout" in _found("it hung and no timeout fired")


def test_numbers_inside_a_phrase_do_not_widen_its_gap(small_library: None) -> None:
    _value(slug="small-tests", phrases=["never seen in tests"])
    assert "symptom:small-tests" in _found("never seen in our 2-4 node tests")
    assert "symptom:small-tests" not in _found("never seen in our small staging cluster tests")


def test_an_agent_noun_and_its_verb_are_both_spellings_of_a_value(small_library: None) -> None:
    """ "load balancer" (alias) and "load balancing" (phrase) share stems, not words."""
    value = _value(slug="lb", phrases=["load balancing"])
    value.aliases.create(text="load balancer")
    assert "symptom:lb" in _found("a routine load-balancing change")
    assert "symptom:lb" in _found("the load balancer dropped traffic")


def test_an_ambiguous_word_counts_where_its_family_is_named(seeded_library: None) -> None:
    """ "control plane" alone is any system's; with Kubernetes or etcd named it is Kubernetes's."""
    assert "component:kubernetes-control-plane" not in _found(
        "the networking control plane had a regression"
    )
    assert "component:kubernetes-control-plane" in _found(
        "etcd was slow and the control plane fell behind"
    )


def test_a_synonym_is_matched_as_its_own_words(small_library: None) -> None:
    """ "no longer responding" for "stopped responding": "longer" is a word, not an agent noun."""
    _value(slug="api-dead", phrases=["api server stopped responding"])
    assert "symptom:api-dead" in _found("the api server was no longer responding")
