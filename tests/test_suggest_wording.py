"""Wordings the suggestion engine reads beyond a phrase as written: an adjective after its noun
("the cable was faulty"), articles and adverbs inside a two-word phrase, British spellings,
"could not", "no" and "limit" read with their synonyms; an ambiguous word that ends a longer
name whose parent the text names ("node" with k8s), an organisation's ambiguous name beside a
partner organisation, and an organisation before a component in a keyword query read as its
operator unless it makes parts. And what it does not read as a phrase: two words a comma
parts, a phrase read without its preposition across another one. The vocabulary's wording
read here: a failed build, and "by hand" alone."""

from __future__ import annotations

import pytest

from incidents.suggest.words import american
from tests.suggesting import found
from tests.suggesting import symptom_value

pytestmark = pytest.mark.django_db


# --- forms of a phrase ------------------------------------------------------------------------


def test_an_adjective_phrase_is_read_after_a_linking_verb(small_library: None) -> None:
    symptom_value("slow-train", phrases=["slower training"])
    assert "symptom:slow-train" in found("end-to-end training is measurably slower on them")
    assert "symptom:slow-train" in found("training had become much slower since Monday")
    # Only a linking verb and adverbs link them; a negation breaks the link.
    assert "symptom:slow-train" not in found("training moved to slower nodes")
    assert "symptom:slow-train" not in found("training was not slower at all")
    # The form read across a linking verb takes the place of no phrase as written.
    symptom_value("stopped-run", phrases=["hung job", "job hung"])
    assert "symptom:stopped-run" in found("the whole job hung until it timed out")


def test_an_article_inside_a_two_word_phrase_is_no_gap(small_library: None) -> None:
    symptom_value("quota-hit", phrases=["hit quota"])
    assert "symptom:quota-hit" in found("the project hit the quota at noon")
    assert "symptom:quota-hit" not in found("the project hit its own quota at noon")


def test_an_adverb_inside_a_two_word_phrase_is_no_gap(small_library: None) -> None:
    symptom_value("run-stalled", phrases=["job stalled"])
    assert "symptom:run-stalled" in found("then the job just stalls")
    assert "symptom:run-stalled" in found("the job eventually stalled at step 900")
    # Only adverbs of time or manner: "only" says what, and stays a gap.
    assert "symptom:run-stalled" not in found("the job only stalled")


def test_a_comma_parts_two_words_of_a_term(small_library: None) -> None:
    symptom_value("cp-pods", phrases=["control-plane pods"])
    assert "symptom:cp-pods" in found("the control-plane pods restarted")
    assert "symptom:cp-pods" not in found(
        "the upgrade broke the networking control plane, pods lost connectivity"
    )
    symptom_value("loader", name="data loader")
    assert "symptom:loader" in found("the data loader leaked")
    assert "symptom:loader" not in found("we wrote the data, loader workers died later")


def test_a_phrase_without_its_preposition_is_not_read_across_another(
    small_library: None,
) -> None:
    symptom_value("long-down", phrases=["down for days"])
    assert "symptom:long-down" in found("the site was down for three days")
    assert "symptom:long-down" in found("the site was down nearly three days")
    assert "symptom:long-down" not in found("throughput goes up and down 1-2% over the day")


def test_british_spellings_are_read_as_american(small_library: None) -> None:
    symptom_value("low-util", phrases=["gpu utilization dropped"])
    assert "symptom:low-util" in found("GPU utilisation dropped overnight")
    assert american("randomised") == "randomized"
    # Only where English writes the American form at least as often: these are no British forms.
    assert [american(w) for w in ("raised", "hour", "noise")] == ["raised", "hour", "noise"]


def test_could_not_holds_unable_to(small_library: None) -> None:
    symptom_value("no-inspect", phrases=["could not inspect the hosts"])
    assert "symptom:no-inspect" in found("we were unable to inspect the hosts")


def test_no_holds_without_and_lack_of(small_library: None) -> None:
    symptom_value("no-room", phrases=["no headroom"])
    assert "symptom:no-room" in found("there was a lack of headroom in the region")


def test_a_limit_is_a_cap(small_library: None) -> None:
    symptom_value("size-hit", phrases=["size limit"])
    assert "symptom:size-hit" in found("the store hit the 2 GB size cap")


def test_neither_nor_ever_is_a_never(small_library: None) -> None:
    symptom_value("no-fail-fast", phrases=["never timed out"])
    assert "symptom:no-fail-fast" in found("neither nccl nor torch distributed ever timed out")


# --- names read in context --------------------------------------------------------------------


def test_an_ambiguous_word_names_the_longer_name_whose_parent_the_text_names(
    seeded_library: None,
) -> None:
    """ "node" alone is any server; beside k8s (Cluster orchestration) it is a Kubernetes node."""
    assert "component:kubernetes-node" in found(
        "the reindex Job on k8s ate every resource on its node"
    )
    assert "component:kubernetes-node" not in found(
        "the reindex job ate every resource on its node"
    )
    # A counted word stays counted: the size of the cluster names no node.
    assert "component:kubernetes-node" not in found("our k8s cluster grew to 2500 nodes")


def test_an_ambiguous_organisation_name_counts_beside_a_partner(seeded_library: None) -> None:
    """ "imbue" is a verb; beside Voltage Park, whose description names Imbue, it is Imbue."""
    assert "organisation:imbue" in found("imbue voltage park h100")
    assert "organisation:imbue" not in found("imbue the h100 cluster with health checks")


def test_in_a_keyword_query_an_organisation_before_a_component_runs_it(
    seeded_library: None,
) -> None:
    """A query lists its words: "monzo linkerd" is Monzo's Linkerd; in prose an organisation
    before a component names a product ("Google Kubernetes Engine"), and a maker of parts is
    their vendor everywhere."""
    assert "organisation:monzo" in found("monzo linkerd payments outage")
    assert "organisation:google" not in found("traffic never reached the Google Kubernetes cluster")
    assert "organisation:nvidia" not in found("nvidia a100 xid errors")


# --- the vocabulary's wording ------------------------------------------------------------------


def test_a_failed_build_is_a_failed_job(seeded_library: None) -> None:
    assert "symptom:job-failure" in found("CD builds failing for about an hour")
    assert "symptom:job-failure" in found("every build failed until noon")


def test_by_hand_alone_is_no_manual_diagnosis(seeded_library: None) -> None:
    """Anyone does things by hand, a cloud provider too; a job restarted by hand is the value."""
    manual = "contributing_factor:manual-diagnosis-and-restart"
    assert manual not in found("failing the region over needs the provider to do it by hand")
    assert manual in found("engineers restarted the job by hand every night")
