"""One text search, planned once per request: what to match, how to rank, what to tell the reader.

`TextSearch(text, values=...)` parses the query, reads how many cases hold each of its words (one
query), keeps the most informative words of a long query, asks the suggestion engine which facet
values the text names, and then:
- `apply(queryset)` narrows and ranks a case queryset (any word; rarer words, more of them, title
  over summary over the rest, plus a boost for the cases tagged with a named facet value or a
  descendant of it: `incidents.search.backend`), best first, then newest;
- `coverage(case_ids)` says how many of the query's words each case holds (one query), for
  "matches 3 of 5 words";
- `did_you_mean()` proposes the query with misspelt words corrected (one query, only when a word
  is in no case).
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    F,
    Q,
    QuerySet,
    Value,
)
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from incidents.models import Case, FacetValue, SearchIndex, SearchTerm
from incidents.models.search import DOCUMENT_COUNT_TERM
from incidents.search import backend
from incidents.search.query import Clause, ParsedQuery, Term, parse_query
from incidents.suggest import suggest_filters

# Words of a query matched and ranked, at most: the rarest are kept (a pasted paragraph).
MAX_MATCH_CLAUSES = 12
# In a query of more words than this, words most cases hold are dropped (like stop words).
COMMON_WORD_QUERY = 4
# Words of a query whose coverage is shown per case, at most.
MAX_COVERAGE_CLAUSES = 24

_NEWEST_FIRST: list[Any] = list(Case._meta.ordering or [])


def bm25_idf(documents: int, holding: int) -> float:
    """FTS5's idf: log((N - n + 0.5) / (n + 0.5)), and a tiny positive value when not above 0."""
    idf = math.log((documents - holding + 0.5) / (holding + 0.5)) if documents else 0.0
    return idf if idf > 0 else 1e-6


@dataclass(frozen=True)
class Correction:
    """A query with its misspelt words replaced by words the library holds."""

    text: str
    words: tuple[tuple[str, str], ...]  # (as typed, corrected)


class TextSearch:
    """A planned search for `text` (see the module docstring)."""

    def __init__(self, text: str, *, values: Iterable[FacetValue] | None = None) -> None:
        self.text = text
        self.parsed: ParsedQuery = parse_query(text)
        self.boosts = self._facet_boosts(values) if self.parsed else {}
        self.tags = tuple(
            Term((backend.facet_token(value_id),), f"facet value {value_id}")
            for value_id in self.boosts
        )
        stems = {
            s for t in (*self.parsed.terms, *self.parsed.excluded, *self.tags) for s in t.stems
        }
        holding = dict(
            SearchTerm.objects.filter(term__in=[*stems, DOCUMENT_COUNT_TERM]).values_list(
                "term", "cases"
            )
        )
        self.documents = holding.pop(DOCUMENT_COUNT_TERM, 0)
        self._holding = holding
        self.kept = self._keep(self.parsed.clauses)

    # --- planning ---------------------------------------------------------------------------

    def holding(self, term: Term) -> int:
        """Cases holding the term (for a phrase, at most the cases holding its rarest word)."""
        return min(self._holding.get(s, 0) for s in term.stems)

    def idf(self, term: Term) -> float:
        return bm25_idf(self.documents, self.holding(term))

    def _known(self, clause: Clause) -> bool:
        return any(self.holding(t) for t in clause.terms)

    def _keep(self, clauses: Sequence[Clause]) -> tuple[Clause, ...]:
        known = [c for c in clauses if self._known(c)]
        if len(known) > COMMON_WORD_QUERY:
            rare = [c for c in known if min(self.holding(t) for t in c.terms) * 2 <= self.documents]
            known = rare or known
        by_rarity = sorted(known, key=lambda c: -max(self.idf(t) for t in c.terms))
        kept = set(map(id, by_rarity[:MAX_MATCH_CLAUSES]))
        return tuple(c for c in known if id(c) in kept)

    def _facet_boosts(self, values: Iterable[FacetValue] | None) -> dict[int, float]:
        """Facet value id -> the engine's score (1 when it gives none) of each value named."""
        boosts: dict[int, float] = {}
        for suggestion in suggest_filters(self.text, values=values):
            score = float(getattr(suggestion, "score", 1.0) or 1.0)
            boosts[suggestion.value.id] = max(boosts.get(suggestion.value.id, 0.0), min(score, 1.0))
        return boosts

    @property
    def terms(self) -> tuple[Term, ...]:
        return tuple(t for c in self.kept for t in c.terms)

    @property
    def total_words(self) -> int:
        """The words of the query as a person counts them (an `or` group is one)."""
        return len(self.parsed.clauses)

    # --- the search ------------------------------------------------------------------------

    def apply(self, queryset: QuerySet[Case]) -> QuerySet[Case]:
        """The cases holding any kept word or tagged with a value the text names (and holding
        no excluded word), best first, then newest."""
        if not self.parsed:
            return queryset
        terms = self.terms
        if not terms and not self.tags:
            return queryset.none()
        terms = (*terms, *self.tags)
        match = backend.match_expression(terms, self.parsed.excluded)
        score = backend.text_rank([(t, self.idf(t)) for t in terms])
        return (
            queryset.filter(**{f"{backend.DOCUMENT}__matches": match})
            .annotate(search_score=score)
            .order_by(F("search_score").desc(), *_NEWEST_FIRST)
        )

    # --- what the page says about it -------------------------------------------------------

    def coverage(self, case_ids: Sequence[int]) -> dict[int, int]:
        """For each case, how many of the query's words it holds (one query); {} when the query
        has too many words to say it usefully."""
        clauses = [c for c in self.parsed.clauses if self._known(c)]
        if not case_ids or not clauses or self.total_words > MAX_COVERAGE_CLAUSES:
            return {}
        parts = [
            SearchIndex.objects.filter(
                case_id__in=list(case_ids),
                **{"document__matches": backend.match_expression(c.terms)},
            )
            .annotate(clause=Value(index))
            .values_list("case_id", "clause")
            for index, c in enumerate(clauses)
        ]
        union = functools.reduce(lambda a, b: a.union(b, all=True), parts[1:], parts[0])
        found: dict[int, int] = dict.fromkeys(case_ids, 0)
        for case_id, _clause in union:
            found[case_id] += 1
        return found

    def unknown_words(self) -> list[str]:
        """Single words of the query that no case holds."""
        return [
            t.text
            for c in self.parsed.clauses
            for t in c.terms
            if not t.is_phrase and not self.holding(t)
        ]

    def did_you_mean(self) -> Correction | None:
        """The query with each word no case holds replaced by the closest word some case holds."""
        typed = [w for w in self.unknown_words() if len(w) >= 4 and w.isalpha()]
        if not typed:
            return None
        first_letters = functools.reduce(operator.or_, [Q(word__istartswith=w[0]) for w in typed])
        known = dict(
            SearchTerm.objects.filter(first_letters, cases__gt=0)
            .exclude(term=DOCUMENT_COUNT_TERM)
            .values_list("word", "cases")
        )
        words = list(known)
        fixes: list[tuple[str, str]] = []
        for word in typed:
            allowed = 1 if len(word) < 7 else 2
            found = process.extract(
                word.lower(),
                words,
                scorer=DamerauLevenshtein.distance,
                score_cutoff=allowed,
                limit=None,
            )
            if found:
                best = min(found, key=lambda f: (f[1], -known[f[0]], f[0]))
                fixes.append((word, best[0]))
        if not fixes:
            return None
        text = self.text
        for typed_word, fixed in fixes:
            text = re.sub(rf"\b{re.escape(typed_word)}\b", fixed, text, flags=re.IGNORECASE)
        return Correction(text, tuple(fixes))
