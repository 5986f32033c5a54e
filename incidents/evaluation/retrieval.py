"""The library's own engines scored on the evaluation set, on the database in use.

`search_slugs` is what a person gets from the search box (through the one filter path,
`case_queryset`), `suggested_values` what the suggestion engine offers for a sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from incidents.evaluation.dataset import EvalItem
from incidents.evaluation.search import SearchFigures
from incidents.evaluation.search import evaluate_search
from incidents.evaluation.search import substring_matches
from incidents.evaluation.suggestions import SuggestionFigures
from incidents.evaluation.suggestions import evaluate_suggestions
from incidents.search.terms import stem
from incidents.search.terms import stems
from incidents.selectors.cases import case_queryset
from incidents.services.search_index import search_documents
from incidents.services.search_index import value_words
from incidents.suggest import suggest_filters

# One-word searches that substring matching got wrong (issue 8): "tpu" in "output", "rack" in
# "conntrack", "oom" in "BLOOM", "gpu" against "gpus".
SUBSTRING_PROBES = ("tpu", "rack", "oom", "gpu", "gpus", "nan", "ecc")
# Results a search reads, as a page of the library does.
PAGE = 20


def search_slugs(text: str) -> list[str]:
    """The slugs of the first page of cases the library's search gives for `text`, best first."""
    query = case_queryset(params={"q": text})
    slugs = [c.slug for c in query.queryset[:PAGE]]
    query.queryset.count()  # a page also counts its cases
    return slugs


def suggested_values(text: str) -> list[str]:
    return [f"{s.facet}:{s.value.slug}" for s in suggest_filters(text)]


def _search_ids(text: str) -> list[int]:
    return list(case_queryset(params={"q": text}).queryset.values_list("id", flat=True))


def _substring_matches() -> list[tuple[str, int]]:
    """`substring_matches` of the probes, a case holding a probe when its searchable text holds
    the word as a word (any form of it). The probes' cases are read in one batch (the probes
    find many of the same cases; reading each case apart took nine queries a case)."""
    found = {probe: _search_ids(probe) for probe in SUBSTRING_PROBES}
    ids = sorted({case_id for case_ids in found.values() for case_id in case_ids})
    words = {
        document.case_id: set(stems(" ".join(document.columns())))
        for document in search_documents(ids, value_words())
    }
    return substring_matches(
        SUBSTRING_PROBES,
        found.__getitem__,
        lambda case_id, word: stem(word) in words.get(case_id, set()),
    )


@dataclass(frozen=True)
class RetrievalReport:
    """Everything `manage.py eval_retrieval` prints."""

    half: str
    search: SearchFigures
    suggestions: SuggestionFigures
    substring_matches: list[tuple[str, int]]


def evaluate(items: Sequence[EvalItem], half: str) -> RetrievalReport:
    """Score search and suggestions on `items`; the search is run once untimed first (warm-up)."""
    if items:
        search_slugs(items[0].text)
    return RetrievalReport(
        half,
        evaluate_search(items, search_slugs),
        evaluate_suggestions(items, suggested_values),
        _substring_matches(),
    )
