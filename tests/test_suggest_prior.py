"""The like-cases prior: values tagged on the cases most like the text, raised only when the
text also holds some of their own words (incidents.suggest.prior, incidents.suggest.like.like_cases)."""

from __future__ import annotations

from incidents.suggest import engine
from incidents.suggest.lexicon import Document
from incidents.suggest.lexicon import Lexicon
from incidents.suggest.lexicon import ValueRecord
from incidents.suggest.prior import CaseIndex

CORRUPTION = ValueRecord(
    1,
    "symptom",
    "silent-data-corruption",
    "Silent data corruption",
    description="Results are quietly wrong: gradients or checkpoints garbled without an error.",
)
SCHEDULER = ValueRecord(2, "component", "job-scheduler", "Job scheduler", description="Slurm.")
ACME = ValueRecord(3, "organisation", "acme", "Acme", description="An operator of clusters.")
VALUES = [CORRUPTION, SCHEDULER, ACME]
# Two cases: the first reads like the texts below and is tagged with all three values.
CASES = [
    Document(
        "Bitflips in a marginal accelerator garbled gradients for weeks; the run kept going on "
        "garbage until the evaluation loss diverged",
        frozenset({1, 2, 3}),
        "Marginal accelerator garbles gradients",
    ),
    Document("A kernel upgrade broke the container runtime on every host", frozenset(), "Runtime"),
]
# Reads like the first case; "gradients" is a word of Silent data corruption's description.
LIKE_TEXT = "bitflips on a marginal accelerator quietly mangled the gradients for weeks"


def _suggested(text: str, documents: list[Document] = CASES) -> dict[str, engine.Found]:
    lexicon = Lexicon.build(VALUES, documents)
    return {lexicon.values[f.value_id].slug: f for f in engine.suggest(lexicon, text)}


def test_a_value_of_the_like_cases_that_the_text_supports_is_suggested_with_why() -> None:
    found = _suggested(LIKE_TEXT)["silent-data-corruption"]
    assert found.via == "like"
    assert found.like == ("Marginal accelerator garbles gradients",)
    assert "gradients" in found.words
    assert found.score >= engine.THRESHOLD


def test_without_like_cases_the_same_text_names_nothing() -> None:
    assert _suggested(LIKE_TEXT, documents=[CASES[1]]) == {}


def test_the_prior_alone_names_nothing() -> None:
    # Like the first case, but none of the scheduler's own words: it is not suggested.
    assert "job-scheduler" not in _suggested(LIKE_TEXT)


def test_an_organisation_is_never_implied_by_like_cases() -> None:
    # "operator" and "clusters" are words of Acme's description, but an organisation is named.
    text = LIKE_TEXT + " on the operator's clusters"
    assert "acme" not in _suggested(text)


def test_a_common_english_word_supports_nothing() -> None:
    # "quietly" and "wrong" in its description: "wrong" is too common to support it.
    text = "bitflips on a marginal accelerator and everything went wrong for weeks"
    assert "silent-data-corruption" not in _suggested(text)


def test_case_index_ranks_the_case_sharing_the_rarer_words_first() -> None:
    index = CaseIndex.build(
        [
            (frozenset({"bitflip", "gradient", "marginal", "run"}), frozenset({1})),
            (frozenset({"gradient", "marginal", "run", "kernel"}), frozenset({2})),
            (frozenset({"kernel", "upgrad", "host"}), frozenset({3})),
            (frozenset({"kernel", "runtime", "host"}), frozenset({3})),
            # FTS5's idf (incidents.bm25): a word held by half the cases weighs nothing.
            (frozenset({"dns", "resolver"}), frozenset({4})),
            (frozenset({"etcd", "disk"}), frozenset({4})),
        ]
    )
    query = ["bitflip", "gradient", "marginal", "run"]
    assert [number for number, _score in index.ranked(query)] == [0, 1]
    shares, holders = index.prior(query)
    assert shares[1] > shares[2] > 0
    assert holders[1] == [0]


def test_a_case_sharing_a_word_or_two_is_not_like_the_text() -> None:
    index = CaseIndex.build(
        [(frozenset({"timeout", "hit", "etcd"}), frozenset({1}))]
        + [(frozenset({"kernel", "upgrad", f"host{n}"}), frozenset({2})) for n in range(5)]
    )
    assert index.ranked(["hit", "timeout"]) == []
    assert index.prior(["hit", "timeout"]) == ({}, {})
    assert index.ranked(["hit", "timeout", "etcd"]) != []


def test_a_word_naming_a_value_outright_supports_no_narrower_value_of_its_facet() -> None:
    timeout = ValueRecord(10, "symptom", "timeout", "Timeout")
    nccl_timeout = ValueRecord(11, "symptom", "nccl-timeout", "NCCL timeout", parent_id=10)
    fillers = [
        Document(f"a kernel upgrade broke host {n} and its container runtime", frozenset())
        for n in range(4)
    ]
    cases = [
        Document(
            "allreduce stalled on rank seven, an NCCL timeout killed the pretraining",
            frozenset({10, 11}),
            "Allreduce stall",
        ),
        *fillers,
    ]
    lexicon = Lexicon.build([timeout, nccl_timeout], cases)
    text = "the pretraining hit a timeout after the allreduce stalled on rank seven"
    found = {lexicon.values[f.value_id].slug for f in engine.suggest(lexicon, text)}
    # "timeout" names Timeout; the like case alone does not make it an NCCL timeout.
    assert found == {"timeout"}


def test_a_commoner_word_of_the_value_s_wording_supports_it() -> None:
    """ "quietly" (Zipf 4.15, below like.WORDING_MAX_ZIPF) is a word of the value's phrase: with
    the like case tagged with it, it is enough; "going" (Zipf 5.9) is too common."""
    quiet = ValueRecord(4, "symptom", "quiet-failure", "Quiet failure", phrases=("quietly",))
    going = ValueRecord(5, "symptom", "going-failure", "Going failure", phrases=("going wrong",))
    documents = [
        Document(CASES[0].text, frozenset({4, 5}), "Marginal accelerator garbles gradients"),
        CASES[1],
    ]
    lexicon = Lexicon.build([quiet, going], documents)
    text = LIKE_TEXT + ", going on and on"
    found = {lexicon.values[f.value_id].slug for f in engine.suggest(lexicon, text)}
    assert "quiet-failure" in found
    assert "going-failure" not in found
