"""Ranked text search, the same on SQLite and PostgreSQL: words as words (stemmed), any word
matches and rarer words and the title weigh more, the query syntax, facet-aware ranking, the
partial-match count and "did you mean", and the index kept in step by every write path."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml
from django.http import QueryDict
from django.test import Client

from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import FacetValue
from incidents.models import SearchTerm
from incidents.search import TextSearch
from incidents.search import parse_query
from incidents.search import search_cases
from incidents.selectors.cases import case_queryset
from incidents.services.case_submission import submit_case
from incidents.services.search_index import refresh_search_index
from tests.conftest import SMALL_LIBRARY

pytestmark = pytest.mark.django_db


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
    _case("elsewhere", "Disk full", "Logs filled the disk output.", 2025)
    _case("other", "Conntrack table full", "The BLOOM run lost its racks of GPUs.", 2019)
    refresh_search_index()


def _search(text: str) -> list[str]:
    return [c.slug for c in search_cases(Case.objects.all(), text)]


def test_title_ranks_above_summary_above_the_rest(ranked_cases: None) -> None:
    assert _search("watchdog") == ["in-title", "in-summary", "in-detection"]


def test_any_word_matches_and_cases_holding_more_words_come_first(ranked_cases: None) -> None:
    assert _search("watchdog training") == ["in-title", "in-summary", "in-detection"]
    assert set(_search("watchdog disk")) == {"in-title", "in-summary", "in-detection", "elsewhere"}


def test_words_match_as_words_never_as_parts_of_words(ranked_cases: None) -> None:
    assert _search("put") == []  # not in "output"
    assert _search("track") == []  # not in "conntrack"
    assert _search("oom") == []  # not in "BLOOM"
    assert _search("rack") == ["other"]  # "racks" is a form of the word


def test_word_forms_meet_through_stemming(ranked_cases: None) -> None:
    assert _search("gpu") == _search("gpus") == _search("GPUs") == ["other"]
    assert _search("killing") == ["in-summary", "in-title"] or _search("killing") == [
        "in-title",
        "in-summary",
    ]


def test_minus_leaves_out_quotes_keep_a_phrase_and_or_joins(ranked_cases: None) -> None:
    assert _search("watchdog -training") == ["in-detection"]
    assert _search('"killed the run"') == ["in-summary"]
    assert _search('"run killed"') == []
    assert set(_search("disk or quiet")) == {"elsewhere", "in-detection"}
    assert [c.text for c in parse_query("disk or quiet night").clauses] == [
        "disk or quiet",
        "night",
    ]


def test_blank_text_leaves_the_list_as_it_was(ranked_cases: None) -> None:
    assert _search("  ") == [c.slug for c in Case.objects.all()]


@pytest.mark.parametrize("text", ["the of and", "机器", "🔥", "!!!", "\ufffd\ufffd"])
def test_text_with_no_word_to_search_finds_no_case(
    client: Client, ranked_cases: None, text: str
) -> None:
    """Not every case presented as a match (review D16): the page says why none is listed."""
    assert _search(text) == []
    assert client.get("/api/cases/", {"q": text}).json()["count"] == 0
    html = client.get("/", {"q": text}).content.decode()
    assert "There is no word to search for here" in html


def test_only_excluded_words_keep_every_other_case(client: Client, ranked_cases: None) -> None:
    """`-word` alone leaves out the cases holding it, newest first (review D1)."""
    others = [c.slug for c in Case.objects.all() if c.slug not in ("in-summary", "in-title")]
    assert _search("-training") == others
    assert _search('-"training run" -stopped') == others
    response = client.get("/api/cases/", {"q": "-training"}).json()
    assert [c["slug"] for c in response["results"]] == others
    assert response["count"] == len(others)
    html = client.get("/", {"q": "-training"}).content.decode()
    assert f"of {len(others)}, newest first" in html


def test_an_excluded_word_names_no_value_to_look_for(client: Client, small_library: None) -> None:
    """The suggestion engine reads the query without its `-words`: "-nccl" neither suggests the
    NCCL value it excludes nor brings back its cases (review D1)."""
    assert TextSearch("-nccl timeouts").suggestions == []
    assert [s.value.slug for s in TextSearch("nccl timeouts").suggestions] == ["nccl-timeout"]
    found = client.get("/api/suggest/", {"q": "-nccl timeouts"}).json()["suggestions"]
    assert found == []


def test_partial_matches_say_how_many_words_they_hold(ranked_cases: None) -> None:
    search = TextSearch("watchdog training disk")
    ids = {c.slug: c.id for c in Case.objects.all()}
    coverage = search.coverage([ids["in-title"], ids["in-detection"], ids["elsewhere"]])
    assert search.total_words == 3
    assert coverage == {ids["in-title"]: 2, ids["in-detection"]: 1, ids["elsewhere"]: 1}


def test_a_misspelt_word_gets_a_did_you_mean(ranked_cases: None) -> None:
    search = TextSearch("watchdgo killed")
    assert _search("watchdgo") == []
    correction = search.did_you_mean()
    assert correction is not None
    assert correction.text == "watchdog killed"
    assert TextSearch("watchdog").did_you_mean() is None


def test_a_misspelt_form_of_a_library_word_is_corrected_through_its_stem(db: None) -> None:
    """The index keeps one written form per stem ("corruption"): a typo of another form
    ("corupted", as "silent data corupption" was) is too far from it, not from its stem."""
    _case("sdc", "Silent corruption of checkpoints", "Bad bits in the saved state.", 2024)
    refresh_search_index()
    assert _search("corupted") == []
    correction = TextSearch("checkpoints corupted").did_you_mean()
    assert correction is not None
    assert correction.text == "checkpoints corruption"
    assert _search(correction.text) == ["sdc"]
    assert TextSearch("checkpoints zzyzxq").did_you_mean() is None


def test_an_everyday_word_is_not_corrected_to_a_library_word(ranked_cases: None) -> None:
    """ "stepped" is no typo of "stopped", as "space" is none of "spare" (review D15)."""
    assert _search("stepped") == []
    assert TextSearch("watchdog stepped").did_you_mean() is None
    correction = TextSearch("watchdog stoped").did_you_mean()
    assert correction is not None
    assert correction.text == "watchdog stopped"


@pytest.fixture
def tagged_and_prose(db: None) -> FacetValue:
    leak = FacetValue.objects.create(facet="root_cause", slug="memory-leak", name="Memory leak")
    tagged = _case("tagged", "Workers died overnight", "Memory grew until they were killed.", 2020)
    _case("prose", "Memory pressure on the hosts", "Memory use was high; a cache leaked.", 2021)
    CaseFacetLink.objects.create(case=tagged, value=leak)
    refresh_search_index()
    return leak


def test_a_named_facet_value_raises_its_cases(
    tagged_and_prose: FacetValue, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert TextSearch("a memory leak").boosts == {tagged_and_prose.id: 1.0}
    assert _search("a memory leak") == ["tagged", "prose"]
    monkeypatch.setattr("incidents.search.plan.TextSearch._facet_boosts", lambda *a: {})
    assert _search("a memory leak") == ["prose", "tagged"]


def test_a_facet_value_name_is_searchable_text_of_its_cases(tagged_and_prose: FacetValue) -> None:
    assert _search("leak -cache") == ["tagged"]


def test_the_index_follows_a_changed_case(small_library: None) -> None:
    case = Case.objects.get(slug="leaky-loader")
    case.title = "A zeppelin stalls pretraining"
    case.save()
    assert _search("zeppelin") == []
    refresh_search_index([case.id])
    assert _search("zeppelin") == ["leaky-loader"]
    assert SearchTerm.objects.get(term="zeppelin").cases == 1


def test_facets_and_words_combine_through_the_filterset(small_library: None) -> None:
    found = case_queryset(params=QueryDict("q=timeouts&component=training-data-loader"))
    assert [c.slug for c in found.queryset] == ["leaky-loader"]


def test_the_page_labels_partial_matches_and_offers_a_correction(
    client: Client, small_library: None
) -> None:
    html = client.get("/", {"q": "loader leak zeppelinn"}).content.decode()
    assert "No case holds every one of these words; the best partial matches come first." in html
    assert "matches 2 of 3 words" in html
    assert "Did you mean" not in html  # "zeppelinn" is close to no word of the library
    html = client.get("/", {"q": "dataloder"}).content.decode()
    assert 'Did you mean <a href="?q=dataloader">dataloader</a>?' in html
    # The suggestion engine forgives the typo: the value it names still finds its cases.
    assert "/cases/leaky-loader/" in html
    html = client.get("/", {"q": "zeppelinn"}).content.decode()
    assert "No case holds any of these words." in html


def test_words_held_only_outside_the_filters_are_not_called_unknown(
    client: Client, small_library: None
) -> None:
    """A search the other filters empty says that cases hold the words, and links to them: it
    does not tell the reader that no case holds words the library has."""
    html = client.get("/", {"q": "loader", "organisation": "meta"}).content.decode()
    assert "No case holds any of these words." not in html
    assert "1 case holds these words, but none under the other filters." in html
    assert '<a href="?q=loader">Search the whole library for them</a>' in html
    html = client.get("/", {"q": "leak flapping", "not_organisation": "meta"}).content.decode()
    assert "leaky-loader" in html  # holds one of the words, so nothing is empty
    html = client.get("/", {"q": "links leak", "component": "gpu-memory"}).content.decode()
    assert "2 cases hold these words, but none under the other filters." in html
    html = client.get("/", {"q": "zeppelinn", "organisation": "meta"}).content.decode()
    assert "No case holds any of these words." in html
    assert "Search the whole library" not in html


def test_a_submitted_case_is_searchable_at_once(small_library: None) -> None:
    entry = yaml.safe_load((SMALL_LIBRARY / "cases" / "leaky-loader.yaml").read_text())
    entry["title"] = "A quokka chewed the fibre"
    submit_case(slug="quokka", entry=entry)
    assert _search("quokkas") == ["quokka"]
    assert _search("chewing fibre")[0] == "quokka"


def test_a_deleted_case_leaves_the_index(small_library: None) -> None:
    from django.db import connection

    from incidents.models.search import SEARCH_INDEX_TABLE

    case = Case.objects.order_by("slug").first()
    assert case is not None
    refresh_search_index([case.id])
    case_id = case.id
    case.delete()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {SEARCH_INDEX_TABLE} WHERE rowid = %s", [case_id])
        assert cursor.fetchone()[0] == 0


def test_a_quoted_phrase_keeps_its_words_together(
    client: Client, tagged_and_prose: FacetValue
) -> None:
    """A value the phrase's words name does not bring in cases without the phrase, and word
    order counts (review D5)."""
    assert set(_search("grew memory leak")) == {"tagged", "prose"}
    assert _search('"memory leak"') == ["tagged"]  # its value's name is searchable text
    assert _search('"grew memory leak"') == []
    assert _search('"leak memory"') == []
    assert client.get("/api/cases/", {"q": '"grew memory leak"'}).json()["count"] == 0
    html = client.get("/", {"q": '"grew memory leak"'}).content.decode()
    assert "No case holds this phrase." in html


def test_a_product_a_value_lists_as_a_phrase_finds_the_cases_naming_it(db: None) -> None:
    """ "vllm" is a phrase of the serving stack: it names the value (suggested, and its cases
    ranked higher) but finds only the cases that hold it, not every serving case (review D18)."""
    serving = FacetValue.objects.create(
        facet="component", slug="serving-stack", name="Inference serving stack", phrases=["vllm"]
    )
    for slug, title, year in [
        ("names-it", "A vllm upgrade broke batching", 2021),
        ("tagged", "Model servers fell over", 2022),
    ]:
        CaseFacetLink.objects.create(
            case=_case(slug, title, "Requests timed out.", year), value=serving
        )
    _case("untagged", "Edge proxies restarted", "Requests timed out.", 2023)
    refresh_search_index()
    assert [s.value.slug for s in TextSearch("vllm").suggestions] == ["serving-stack"]
    assert _search("vllm") == ["names-it"]
    assert _search("vllm requests timed out")[:2] == ["names-it", "tagged"]
    # Its name still finds (and is held by) every case tagged with it.
    assert set(_search("inference serving")) == {"names-it", "tagged"}


def test_a_long_sentence_gets_its_words_counted_per_case(
    client: Client, ranked_cases: None
) -> None:
    """A pasted sentence of 20 words the library holds: the page still says how many each case
    holds (it answered 503 on SQLite, whose parser overflowed on a union of 17 or more matches)."""
    words = (
        "quiet night nothing found watchdog training stopped killed run twice disk full logs"
        " filled output conntrack table bloom lost racks"
    )
    search = TextSearch(words)
    ids = {c.slug: c.id for c in Case.objects.all()}
    assert search.total_words == 20
    assert search.coverage([ids["in-title"], ids["other"]]) == {ids["in-title"]: 5, ids["other"]: 7}
    response = client.get("/", {"q": words})
    assert response.status_code == 200
    assert "matches 7 of 20 words" in response.content.decode()
