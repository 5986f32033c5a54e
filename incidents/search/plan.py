"""One text search, planned once per request: what to match, how to rank, what to tell the reader.

`TextSearch(text, values=...)` parses the query, reads how many cases hold each of its words (one
query), keeps the most informative words of a long query, asks the suggestion engine which facet
values the text names, and then:
- `apply(queryset)` narrows and ranks a case queryset (any word; rarer words, more of them, title
  over summary over the rest, plus a boost for the cases tagged with a named facet value or a
  descendant of it: `incidents.search.backend`), best first, then newest; a value named by its
  name or an alias outside a quoted phrase also finds its cases (`finding_tags`, FINDING_VIA);
  only `-words` keep every other case, newest first; no searchable word finds none;
- `coverage(case_ids)` says how many of the query's words each case holds (from the words'
  postings, read for the count already), for "matches 3 of 5 words";
- `did_you_mean()` proposes the query with misspelt words corrected (one query, only when a word
  is in no case: `incidents.search.correct`);
- `matched(within)` gives the ids of the cases it matches as a bitmap, from the words' postings
  (one query, plus one per phrase: `incidents.search.matches`), for counts without running the
  match again;
- `top(k, within)` the first `k` of `apply()`'s order among them, ranking only the cases
  that can be there (MaxScore: a case holding none of the words that carry the most weight
  cannot beat the k-th best found so far; `incidents.search.candidates`, with the bounds of
  `incidents.search.bounds`): one or two queries over a few hundred cases instead of ranking
  every match.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Sequence
from typing import Any

from django.db.models import F
from django.db.models import FloatField
from django.db.models import QuerySet
from django.db.models import Value
from pyroaring import BitMap

from incidents.bm25 import bm25_idf
from incidents.models import Case
from incidents.models import FacetValue
from incidents.models import SearchIndex
from incidents.models import SearchTerm
from incidents.models.search import DOCUMENT_COUNT_TERM
from incidents.search import backend
from incidents.search import candidates
from incidents.search.correct import Correction
from incidents.search.correct import correct
from incidents.search.matches import CaseSets
from incidents.search.query import Clause
from incidents.search.query import ParsedQuery
from incidents.search.query import Term
from incidents.search.query import parse_query
from incidents.search.query import text_without
from incidents.suggest import Suggestion
from incidents.suggest import suggest_filters

# Words of a query matched and ranked, at most: the rarest are kept (a pasted paragraph).
MAX_MATCH_CLAUSES = 12
# In a query of more words than this, words most cases hold are dropped (like stop words).
COMMON_WORD_QUERY = 4
# How the engine must have named a facet value for its cases to match a search without a word of
# it (a synonym of the value, typos forgiven). A value named otherwise (a curated phrase such as a
# product name, "vllm" for the serving stack; learned words; its children; like cases) only raises
# the cases that hold a word of the query: a one-word search for a product finds the cases naming it.
FINDING_VIA = frozenset({"name", "alias"})
# Words of a query whose coverage is shown per case, at most.
MAX_COVERAGE_CLAUSES = 24

_NEWEST_FIRST: list[Any] = list(Case._meta.ordering or [])


class TextSearch:
    """A planned search for `text` (see the module docstring)."""

    def __init__(self, text: str, *, values: Iterable[FacetValue] | None = None) -> None:
        self.text = text
        self.parsed: ParsedQuery = parse_query(text)
        self._values = list(values) if values is not None else None
        self._suggestions: list[Suggestion] | None = None
        self.boosts = self._facet_boosts() if self.parsed.clauses else {}
        self.tags = tuple(
            Term((backend.facet_token(value_id),), f"facet value {value_id}")
            for value_id in self.boosts
        )
        finding = self._finding_values() if self.boosts else set()
        self.finding_tags = tuple(
            tag for tag, value_id in zip(self.tags, self.boosts, strict=True) if value_id in finding
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
        self.case_sets = CaseSets()
        self._matched: BitMap | None = None

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

    @property
    def suggestions(self) -> list[Suggestion]:
        """What the engine finds in the text, kept for the page's suggested filters (run once per
        request: for the boosts of a query with words, else when first asked for). It reads
        the text without its excluded words: a value they name is not one to look for."""
        if self._suggestions is None:
            self._suggestions = suggest_filters(text_without(self.text), values=self._values)
        return self._suggestions

    def _facet_boosts(self) -> dict[int, float]:
        """Facet value id -> the engine's score (1 when it gives none) of each value named."""
        boosts: dict[int, float] = {}
        for suggestion in self.suggestions:
            score = float(getattr(suggestion, "score", 1.0) or 1.0)
            boosts[suggestion.value.id] = max(boosts.get(suggestion.value.id, 0.0), min(score, 1.0))
        return boosts

    def _finding_values(self) -> set[int]:
        """The named values whose cases match even without a word of the query: those named
        by their own name or an alias (FINDING_VIA) outside any quoted phrase."""
        free_text = text_without(self.text, phrases=True)
        named = self.suggestions
        if free_text != text_without(self.text):
            named = suggest_filters(free_text, values=self._values) if free_text.strip() else []
        return {s.value.id for s in named if s.via in FINDING_VIA}

    @property
    def terms(self) -> tuple[Term, ...]:
        return tuple(t for c in self.kept for t in c.terms)

    @property
    def total_words(self) -> int:
        """The words of the query as a person counts them (an `or` group is one)."""
        return len(self.parsed.clauses)

    # --- the search ------------------------------------------------------------------------

    def apply(self, queryset: QuerySet[Case]) -> QuerySet[Case]:
        """The cases holding any kept word or tagged with a value the text names by its name or
        an alias (and holding no excluded word), best first, then newest. Blank text leaves the
        queryset as it is; text with no word the library holds finds no case; text with only
        excluded words keeps every other case, newest first."""
        if not self.text.strip():
            return queryset
        excluded = self.parsed.excluded
        if not self.parsed.clauses and excluded:
            left_out = SearchIndex.objects.filter(
                **{"document__matches": backend.match_expression(excluded)}
            ).values("case_id")
            return (
                queryset.exclude(id__in=left_out)
                .annotate(search_score=Value(0.0, output_field=FloatField()))
                .order_by(*_NEWEST_FIRST)
            )
        finding = (*self.terms, *self.finding_tags)
        if not finding:
            return queryset.none()
        ranked = (*self.terms, *self.tags)
        score = backend.text_rank([(t, self.idf(t)) for t in ranked])
        if backend.is_postgres() or len(ranked) == len(finding):
            found = queryset.filter(
                **{f"{backend.DOCUMENT}__matches": backend.match_expression(finding, excluded)}
            )
        else:
            # FTS5's bm25() ranks the terms its MATCH names: the match names every ranked term,
            # and a second match keeps the cases holding a term that finds cases.
            holding = SearchIndex.objects.filter(
                **{"document__matches": backend.match_expression(finding)}
            ).values("case_id")
            found = queryset.filter(
                **{f"{backend.DOCUMENT}__matches": backend.match_expression(ranked, excluded)},
                id__in=holding,
            )
        return found.annotate(search_score=score).order_by(F("search_score").desc(), *_NEWEST_FIRST)

    # --- the matches as ids, and the first k of them ---------------------------------------

    def matched(self, within: BitMap | None = None) -> BitMap:
        """The ids of the cases `apply()` keeps (of `within` when given), from the postings."""
        if self._matched is None:
            sets = self.case_sets
            included = (*self.terms, *self.finding_tags)
            # Every tag's postings in the same query: the ones that only rank bound the rank.
            sets.load_postings((*self.terms, *self.tags, *self.parsed.excluded))
            sets.load_phrases((*included, *self.parsed.excluded))
            found = BitMap.union(BitMap(), *(sets.of(t) for t in included))
            if not self.parsed.clauses and self.parsed.excluded:  # every case but those
                found = BitMap(Case.objects.values_list("id", flat=True))
            for term in self.parsed.excluded:
                found -= sets.of(term)
            self._matched = found
        return self._matched & within if within is not None else BitMap(self._matched)

    def top(self, k: int, within: BitMap | None = None) -> list[Case] | None:
        """The first `k` cases of `apply()` (among `within`, ids), exactly, ranking only the
        cases that can be among them; None when that would still be too many."""
        return candidates.top(self, k, within)

    def top_ids(self, k: int, within: BitMap | None = None) -> list[int] | None:
        """The ids of `top(k, within)`."""
        found = self.top(k, within)
        return None if found is None else [case.id for case in found]

    @property
    def narrows(self) -> bool:
        """Whether `apply()` selects cases (blank text leaves them all)."""
        return bool(self.text.strip())

    @property
    def asks(self) -> bool:
        """Whether the text holds a word to search for or to leave out (else it finds no case:
        stop words only, or no word of Latin letters or digits)."""
        return self.parsed.asks

    @property
    def terms_and_tags(self) -> tuple[Term, ...]:
        return (*self.terms, *self.tags)

    # --- what the page says about it -------------------------------------------------------

    def coverage(self, case_ids: Sequence[int]) -> dict[int, int]:
        """For each case, how many of the query's words it holds, from the words' postings (read
        for the count already) and a phrase's cases (no query per word, and no union of one
        match per word, which SQLite's parser refused from about 17 words); {} when the query
        has too many words to say it usefully."""
        clauses = [c for c in self.parsed.clauses if self._known(c)]
        if not case_ids or not clauses or self.total_words > MAX_COVERAGE_CLAUSES:
            return {}
        terms = [t for c in clauses for t in c.terms]
        self.case_sets.load_postings(terms)
        self.case_sets.load_phrases(terms)
        listed = BitMap(case_ids)
        found: dict[int, int] = dict.fromkeys(case_ids, 0)
        for clause in clauses:
            holding = BitMap.union(BitMap(), *(self.case_sets.of(t) for t in clause.terms))
            for case_id in holding & listed:
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
        return correct(self.text, self.unknown_words())
