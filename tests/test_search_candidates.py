"""The fast paths of a search give what the full ranked query gives: the matched ids from the
words' postings (count, facet counts), the first page ranked over the candidates that can reach
it (MaxScore bounds), the postings kept in step by writes, the engine run once per page."""

from __future__ import annotations

import functools
import random

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from pyroaring import BitMap

from incidents.evaluation.bench import queries
from incidents.evaluation.dataset import load_items
from incidents.models import Case
from incidents.models import SearchTerm
from incidents.search import TextSearch
from incidents.search import candidates
from incidents.search import plan
from incidents.search import postings
from incidents.search.bounds import BoundSums
from incidents.selectors.cases import case_list
from incidents.services.search_index import refresh_search_index
from incidents.suggest import suggest_filters

pytestmark = pytest.mark.django_db


def _full(search: TextSearch, k: int) -> list[int]:
    return list(search.apply(Case.objects.all()).values_list("id", flat=True)[:k])


@functools.cache
def _texts() -> tuple[str, ...]:
    """Sentences of the evaluation set, queries of the syntax, and pasted paragraphs (read from
    the evaluation file once per process, not twice per test)."""
    syntax = ['"data loader" nccl', "nccl -meta", "nccl or etcd timeout", 'gpu -"fell off"']
    # Only excluded words; a phrase whose words name values; a product a value lists; no word.
    syntax += ["-nccl", '-"fell off" -gpu', '"nccl timeout" crash', "vllm", "机器 the"]
    return (*[i.text for i in load_items()[::6]], *syntax, *queries(6, 500))


def test_the_matched_ids_are_the_cases_the_ranked_query_selects(seeded_library: None) -> None:
    for text in _texts():
        search = TextSearch(text)
        selected = set(search.apply(Case.objects.all()).values_list("id", flat=True))
        assert set(search.matched()) == selected, text


def test_the_first_page_ranked_over_candidates_is_the_full_rankings(
    seeded_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Prune even on 76 cases: rank 3 cases of highest bound first, then those that can beat them.
    monkeypatch.setattr(candidates, "RANK_WHOLE", 0)
    monkeypatch.setattr(candidates, "RANK_FIRST", 3)
    for text in _texts():
        search = TextSearch(text)  # one plan per text, as a request makes (the engine run once)
        for k in (1, 5, 20):
            assert search.top_ids(k) == _full(search, k), (text, k)


def test_within_a_facet_filter_the_first_page_is_the_filtered_rankings(
    seeded_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(candidates, "RANK_WHOLE", 0)
    monkeypatch.setattr(candidates, "RANK_FIRST", 2)
    within = BitMap(Case.objects.filter(slug__contains="a").values_list("id", flat=True))
    for text in _texts()[:8]:
        search = TextSearch(text)
        full = search.apply(Case.objects.filter(id__in=list(within)))
        assert search.top_ids(10, within) == list(full.values_list("id", flat=True)[:10]), text


def test_bound_sums_find_every_case_reaching_a_value() -> None:
    rng = random.Random(3)
    sets = [(rng.uniform(0.1, 5), BitMap(rng.sample(range(300), 60))) for _ in range(12)]
    sums = BoundSums(sets)
    exact = {c: sum(w for w, cases in sets if c in cases) for c in range(300)}
    for value in (0.5, 3.0, 7.5, 12.0, 20.0):
        found = sums.reaching(value)
        assert {c for c, s in exact.items() if s >= value} <= set(found)
        slack = len(sets) * sums.unit  # the weights were rounded up by less than a unit each
        assert all(exact[c] >= value - slack for c in found)
    top = sums.highest(10)
    assert len(top) >= 10
    assert min(exact[c] for c in top) >= max(exact[c] for c in range(300) if c not in top)


def _postings(term: str) -> tuple[set[int], set[int], set[int]]:
    row = SearchTerm.objects.get(term=term)
    return tuple(  # type: ignore[return-value]
        set(postings.decode(data))
        for data in (row.postings, row.title_postings, row.summary_postings)
    )


def test_postings_follow_a_changed_case(small_library: None) -> None:
    case = Case.objects.get(slug="leaky-loader")
    case.title = "Zeppelin stalled"
    case.summary = "A quokka chewed the cables."
    case.save()
    refresh_search_index([case.id])
    assert _postings("zeppelin") == ({case.id}, {case.id}, set())
    assert _postings("quokka") == ({case.id}, set(), {case.id})
    case.title, case.summary = "Loader leak", "Nothing about animals."
    case.save()
    refresh_search_index([case.id])
    assert not SearchTerm.objects.filter(term="quokka", cases__gt=0).exists()
    assert case.id not in _postings("zeppelin")[0]
    assert set(TextSearch("quokka zeppelin").matched()) == set()


def test_the_page_matches_once_and_asks_the_engine_once(
    seeded_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def counted(text: str, **kwargs: object) -> object:
        calls.append(text)
        return suggest_filters(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plan, "suggest_filters", counted)
    monkeypatch.setattr("incidents.selectors.facet_counts.suggest_filters", counted)
    from incidents.selectors.facet_counts import suggestions_for

    text = "our nccl timeouts came from a leaking data loader"
    with CaptureQueriesContext(connection) as captured:
        result = case_list(params=QueryDict(f"q={text}"))
        [g.values for g in result.facets]
        suggestions_for(result.query.filterset, text)
    assert calls == [text]
    matching = [
        q["sql"] for q in captured.captured_queries if " MATCH " in q["sql"] or "@@" in q["sql"]
    ]
    # The ranked first page only: the count, the facet counts and the words each listed case
    # holds come from the words' postings.
    assert len(matching) == 1, matching
    assert result.total == len(TextSearch(text).matched())
    assert result.page.object_list[0].slug == _full_slug(text)


def _full_slug(text: str) -> str:
    search = TextSearch(text)
    return str(search.apply(Case.objects.all()).values_list("slug", flat=True)[0])


def test_the_api_lists_a_search_as_the_full_ranked_query(
    seeded_library: None, client: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(candidates, "RANK_WHOLE", 0)
    monkeypatch.setattr(candidates, "RANK_FIRST", 3)
    text = "the api server fell over when every node started listing pods at once"
    body = client.get("/api/cases/", {"q": text, "page_size": 10}).json()  # type: ignore[attr-defined]
    search = TextSearch(text)
    full = search.apply(Case.objects.all())
    assert body["count"] == full.count()
    assert [row["slug"] for row in body["results"]] == list(
        full.values_list("slug", flat=True)[:10]
    )


def test_bounding_the_rank_reads_no_postings_again(
    seeded_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan reads the postings of its words and of every value the text names, also those
    that only raise cases, in one query: the bounds of the rank (PostgreSQL) read none again."""
    monkeypatch.setattr(candidates, "RANK_WHOLE", 0)
    monkeypatch.setattr(candidates, "RANK_FIRST", 3)
    search = TextSearch("the training job died after a bad driver rollout on every gpu node")
    assert len(search.tags) > len(search.finding_tags)  # values that only raise cases
    search.matched()
    with CaptureQueriesContext(connection) as captured:
        search.top(20)
    assert not [q["sql"] for q in captured.captured_queries if '"postings"' in q["sql"]]
