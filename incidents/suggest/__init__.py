"""Facet values named in free text: `suggest_filters(text)`, one engine for every caller.

"our nccl timeouts came from a leaking data loader" gives Symptom = NCCL timeout, Root cause =
Memory leak and Component = Training data loader, each with the words that named it and a
score. The library page, `/submit/`, `GET /api/suggest/` and the loader's "did you mean" all use
it. How it decides: incidents.suggest.engine (its steps: .matching, .selection, .scoring; its
weights: .weights); what it knows: incidents.suggest.lexicon (names, aliases, curated phrases,
ambiguous words, evidence learned from the tagged cases); the cache keyed on the library's
contents: incidents.suggest.library.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from incidents import facets
from incidents.models import FacetValue
from incidents.suggest.engine import Found
from incidents.suggest.engine import suggest
from incidents.suggest.library import library_lexicon
from incidents.suggest.weights import MAX_CHARS
from incidents.suggest.weights import THRESHOLD
from incidents.suggest.words import word_stem

__all__ = [
    "MAX_SUGGEST_CHARS",
    "THRESHOLD",
    "Suggestion",
    "suggest_filters",
    "word_stem",
]

# Characters of text suggest_filters reads, at most (a pasted postmortem can be long).
MAX_SUGGEST_CHARS = MAX_CHARS


@dataclass(frozen=True)
class Suggestion:
    """A facet value found in the text: which words named it, how, and how sure the engine is."""

    value: FacetValue
    matched: str  # the words of its best match as written in the text
    term: str  # the value's name, alias or phrase they match ("" if learned)
    exact: bool  # False when a typo was forgiven
    score: float = 1.0  # 0 to 1; suggested from THRESHOLD up
    words: tuple[str, ...] = ()  # every word of the text that counted for it
    via: str = "name"  # name, alias, phrase, learned, children or like (the like-cases prior)
    like: tuple[str, ...] = ()  # titles of the like cases that raised it (incidents.suggest.prior)

    @property
    def facet(self) -> str:
        return self.value.facet

    @property
    def facet_label(self) -> str:
        return facets.spec(self.value.facet).label


def suggest_filters(
    text: str, *, values: Iterable[FacetValue] | None = None, threshold: float = THRESHOLD
) -> list[Suggestion]:
    """The facet values named in `text`, in the order their words appear.

    `values` lets a caller that already holds the vocabulary get those same objects back; the
    engine itself reads a lexicon cached per library (one query when it is current). What
    following a suggestion gives is counted by incidents.selectors.facet_counts.suggestions_for.
    """
    if not text or not text.strip():
        return []
    given = list(values) if values is not None else None
    lexicon, stored = library_lexicon(given)
    by_id = {v.id: v for v in given} if given is not None else stored
    return [
        _suggestion(found, by_id[found.value_id])
        for found in suggest(lexicon, text, threshold=threshold)
        if found.value_id in by_id
    ]


def _suggestion(found: Found, value: FacetValue) -> Suggestion:
    return Suggestion(
        value=value,
        matched=found.matched,
        term=found.term,
        exact=found.exact,
        score=found.score,
        words=found.words,
        via=found.via,
        like=found.like,
    )
