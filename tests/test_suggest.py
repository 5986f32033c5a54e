"""The suggestion engine: public examples, words and scores, vocabulary data (phrases, ambiguous
words), parents, evidence learned from tagged cases, the cache, and the evaluation-set floor."""

from __future__ import annotations

import datetime as dt
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.evaluation.suggestions import EvalItem
from incidents.evaluation.suggestions import evaluate_suggestions
from incidents.evaluation.suggestions import load_items
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.suggest import suggest_filters
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db

EVAL_SET = REPO_ROOT / "tests" / "data" / "retrieval_eval.yaml"
# A little under the figures `manage.py eval_suggestions` reports on the report half (README).
PRECISION_FLOOR = 0.83
RECALL_FLOOR = 0.78
# ... and on the tune half (224 sentences): P 0.920, R 0.924 when set (0.913 and 0.880 before the
# wording mechanisms and phrase families of branch suggest3); 264 sentences since t225-t264: P
# 0.931, R 0.912 (branch suggest4).
TUNE_PRECISION_FLOOR = 0.90
TUNE_RECALL_FLOOR = 0.90


def _found(text: str) -> set[str]:
    return {f"{s.facet}:{s.value.slug}" for s in suggest_filters(text)}


# --- the public examples, on the real library ----------------------------------------


def test_the_search_box_example_names_the_symptom_the_cause_and_the_component(
    seeded_library: None,
) -> None:
    found = _found("our nccl timeouts came from a leaking data loader")
    assert {
        "symptom:nccl-timeout",
        "root_cause:memory-leak",
        "component:training-data-loader",
    } <= found


def test_a_gpu_that_fell_off_the_bus_is_the_gpu_lost_symptom(seeded_library: None) -> None:
    assert "symptom:gpu-fell-off-bus" in _found(
        "a gpu fell off the bus in the middle of a training run"
    )


def test_every_node_listing_pods_is_api_server_overload(seeded_library: None) -> None:
    found = _found("the api server fell over when every node started listing pods at once")
    assert "root_cause:control-plane-overload" in found
    assert "component:kubernetes-api-server" in found


def test_a_scheduled_job_is_no_job_scheduler(seeded_library: None) -> None:
    """The stemmer gives "schedul" for both; only forms of the same word count."""
    assert "component:job-scheduler" not in _found("a scheduled cleanup job removed resources")
    assert "component:job-scheduler" in _found("the scheduler lost track of the jobs")


# --- what a suggestion carries ----------------------------------------------------------------


def test_a_suggestion_carries_its_words_its_score_and_how_it_was_found(
    small_library: None,
) -> None:
    [loader] = [
        s
        for s in suggest_filters("the dataloader was leaking")
        if s.value.slug == "training-data-loader"
    ]
    assert loader.words == ("dataloader",)
    assert loader.matched == "dataloader"
    assert loader.via == "alias"
    assert loader.score == 1.0


def test_a_phrase_in_the_vocabulary_names_its_value(small_library: None) -> None:
    value = FacetValue.objects.get(facet="symptom", slug="job-crash")
    assert "symptom:job-crash" not in _found("the run segfaulted overnight")
    value.phrases = ["run segfaulted"]
    value.save()
    [crash] = [s for s in suggest_filters("the run segfaulted overnight") if s.value == value]
    assert (crash.via, crash.words) == ("phrase", ("run", "segfaulted"))
    assert crash.score < 1.0  # a phrase weighs less than a name


def test_an_everyday_word_is_flagged_in_the_data_not_in_the_code(small_library: None) -> None:
    value = FacetValue.objects.create(facet="component", slug="host", name="Host server")
    value.aliases.create(text="node")
    assert "component:host" in _found("the node rebooted")
    value.ambiguous = ["node"]
    value.save()
    assert "component:host" not in _found("the node rebooted")
    assert "component:host" in _found("the host server rebooted")


def test_the_parent_when_no_specific_value_is_sure(small_library: None) -> None:
    """Two weak hints at two children are enough for their parent, not for either child."""
    parent = FacetValue.objects.create(facet="component", slug="power-and-cooling", name="Facility")
    for slug, word in (("power", "power"), ("cooling", "fans")):
        child = FacetValue.objects.create(
            facet="component", slug=slug, name=slug.title(), parent=parent, ambiguous=[word]
        )
        child.aliases.create(text=word)
    assert _found("the power went off") == set()
    found = suggest_filters("the power went off and the fans stopped")
    assert [(s.value.slug, s.via, s.words) for s in found] == [
        ("power-and-cooling", "children", ("power", "fans"))
    ]


def test_evidence_learned_from_tagged_cases_improves_as_cases_are_added(
    small_library: None,
) -> None:
    """A word no name or phrase holds, used by the cases tagged with a value, comes to name it
    once cases of two organisations use it; the cached lexicon follows the library."""
    value = FacetValue.objects.get(facet="root_cause", slug="hardware-fault")
    organisations = list(FacetValue.objects.filter(facet="organisation").order_by("slug")[:2])
    text = "the flux capacitor glowed again"
    assert "root_cause:hardware-fault" not in _found(text)
    for index in range(3):
        case = Case.objects.create(
            slug=f"capacitor-{index}",
            title=f"Capacitor failure {index}",
            summary="The flux capacitor glowed and the rack went dark.",
            period_start=dt.date(2024, 1, 1),
        )
        CaseFacetLink.objects.create(case=case, value=value)
        last = CaseFacetLink.objects.create(case=case, value=organisations[0])
    # One organisation's cases only: a word of its own systems, not of the failure.
    assert "root_cause:hardware-fault" not in _found(text)
    last.delete()
    CaseFacetLink.objects.create(case=last.case, value=organisations[1])
    [learned] = [s for s in suggest_filters(text) if s.value == value]
    assert learned.via == "learned"
    assert set(learned.words) >= {"capacitor"}
    assert learned.score < 1.0  # below an explicit name


def test_the_lexicon_is_built_once_per_library(small_library: None) -> None:
    suggest_filters("nccl timeout")
    with CaptureQueriesContext(connection) as captured:
        assert suggest_filters("another nccl timeout")
    assert len(captured.captured_queries) == 1  # the library's signature, nothing rebuilt


# --- the evaluation set -------------------------------------------------------------------------


def test_evaluate_suggestions_counts_hits_wrong_and_misses() -> None:
    items = [
        EvalItem("a", "tune", "x", frozenset({"symptom:a", "symptom:b"}), frozenset({"symptom:p"})),
        EvalItem("b", "tune", "y", frozenset()),
    ]
    answers = {"x": ["symptom:a", "symptom:p", "symptom:z"], "y": []}
    scores = evaluate_suggestions(items, lambda text: answers[text])
    assert (scores.hits, scores.wrong, scores.gold) == (1, 1, 2)
    assert (scores.precision, scores.recall) == (0.5, 0.5)
    assert [(m.id, m.missed, m.wrong) for m in scores.misses] == [
        ("a", ("symptom:b",), ("symptom:z",))
    ]


def _figures(split: str) -> tuple[float, float, str]:
    """Precision and recall of the engine on one half, and how to show them; the figures only:
    the report half's misses are not for reading (tests/data/README.md)."""
    scores = evaluate_suggestions(
        load_items(Path(EVAL_SET), split=split),
        lambda text: [f"{s.facet}:{s.value.slug}" for s in suggest_filters(text)],
    )
    shown = f"precision {scores.precision:.3f}, recall {scores.recall:.3f}"
    return scores.precision, scores.recall, shown


def test_suggestions_keep_their_figures_on_the_report_half(seeded_library: None) -> None:
    precision, recall, figures = _figures("report")
    assert precision >= PRECISION_FLOOR, figures
    assert recall >= RECALL_FLOOR, figures


def test_suggestions_keep_their_figures_on_the_tune_half(seeded_library: None) -> None:
    precision, recall, figures = _figures("tune")
    assert precision >= TUNE_PRECISION_FLOOR, figures
    assert recall >= TUNE_RECALL_FLOOR, figures


def test_the_command_prints_the_figures(seeded_library: None) -> None:
    out = StringIO()
    # One timing run per text: the test reads the figures' lines, not how steady the timing is.
    call_command("eval_suggestions", "--split", "tune", "--misses", "--repeats", "1", stdout=out)
    lines = out.getvalue().splitlines()
    tune = len(load_items(Path(EVAL_SET), split="tune"))
    assert lines[0].startswith(f"suggestions (tune, {tune} sentences, threshold 0.5): precision 0.")
    assert lines[-1].startswith("suggestion time per 500-character text: median ")
    assert lines[-1].endswith("(best of 1 per text)")


def test_the_command_refuses_an_empty_library(db: None) -> None:
    with pytest.raises(CommandError, match="the library is empty"):
        call_command("eval_suggestions", stdout=StringIO())


def test_the_command_refuses_fewer_than_one_timing_run() -> None:
    with pytest.raises(CommandError, match="--repeats must be at least 1"):
        call_command("eval_suggestions", "--repeats", "0", stdout=StringIO())
