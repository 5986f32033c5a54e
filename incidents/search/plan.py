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
  is in no case);
- `matched(within)` gives the ids of the cases it matches as a bitmap, from the words' postings
  (one query, plus one per phrase), for counts without running the match again;
- `top(k, within)` the first `k` of `apply()`'s order among them, ranking only the cases
  that can be there (MaxScore: a case holding none of the words that carry the most weight
  cannot beat the k-th best found so far): one or two queries over a few hundred cases instead
  of ranking every match.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import (
    F,
    Q,
    QuerySet,
    Value,
)
from django.db.models.expressions import RawSQL
from pyroaring import BitMap
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from incidents.models import Case, FacetValue, SearchIndex, SearchTerm
from incidents.models.search import DOCUMENT_COUNT_TERM, SEARCH_INDEX_TABLE
from incidents.search import backend, postings
from incidents.search.query import Clause, ParsedQuery, Term, parse_query
from incidents.suggest import Suggestion, suggest_filters

# Words of a query matched and ranked, at most: the rarest are kept (a pasted paragraph).
MAX_MATCH_CLAUSES = 12
# In a query of more words than this, words most cases hold are dropped (like stop words).
COMMON_WORD_QUERY = 4
# Words of a query whose coverage is shown per case, at most.
MAX_COVERAGE_CLAUSES = 24
# top_ids: a match of at most this many cases is ranked whole; else the cases of the heaviest
# words are ranked first, about this many, to learn the score to beat.
RANK_WHOLE = 400
# top_ids gives up (None: rank the queryset) rather than list more case ids than this.
MAX_RANKED_IDS = 20_000
# top_ids: the cases of highest bound ranked first, at least (their k-th score is the one to
# beat); BoundSums rounds bounds up to this fraction of their total.
RANK_FIRST = 300
BOUND_STEPS = 4096

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


class BoundSums:
    """Per case, the sum of the weights of the given sets holding it, kept as bit slices (a
    bitmap per binary digit of the sum, weights rounded up to 1/BOUND_STEPS of their total), so
    that "the cases whose sum reaches x" costs a few bitmap operations and no case is visited
    one by one."""

    def __init__(self, weighted: Sequence[tuple[float, BitMap]]) -> None:
        total = sum(w for w, _cases in weighted)
        self.unit = total / BOUND_STEPS if total > 0 else 1.0
        self.cases = BitMap.union(BitMap(), *(cases for _w, cases in weighted))
        self.top_sum = 0
        self.slices: list[BitMap] = []
        for weight, cases in weighted:
            step = math.ceil(weight / self.unit)
            self.top_sum += step
            self._add(step, cases)

    def _add(self, step: int, cases: BitMap) -> None:
        """Add `step` to the sum of each of `cases` (binary addition, ripple carry)."""
        carry, digit = BitMap(), 0
        while step or carry:
            if digit == len(self.slices):
                self.slices.append(BitMap())
            added = cases if step & 1 else BitMap()
            held = self.slices[digit]
            self.slices[digit] = held ^ added ^ carry
            carry = (held & added) | (carry & (held ^ added))
            step, digit = step >> 1, digit + 1

    def _at_least(self, threshold: int) -> BitMap:
        above, equal = BitMap(), BitMap(self.cases)
        for digit in reversed(range(max(len(self.slices), threshold.bit_length()))):
            held = self.slices[digit] if digit < len(self.slices) else BitMap()
            if threshold >> digit & 1:
                equal &= held
            else:
                above |= equal & held
                equal -= held
        return above | equal

    def reaching(self, value: float) -> BitMap:
        """The cases whose sum may reach `value` (every case whose sum does, and a few just
        under it: the weights were rounded up)."""
        return self._at_least(math.floor(value / self.unit))

    def highest(self, count: int) -> BitMap:
        """At least `count` cases (or all) with the highest sums, and few more."""
        low, high = 0, self.top_sum  # _at_least(low) holds >= count cases
        while low < high:
            middle = (low + high + 1) // 2
            if len(self._at_least(middle)) >= count:
                low = middle
            else:
                high = middle - 1
        return self._at_least(low)


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
        self._cases: dict[tuple[str, ...], BitMap] = {}
        self._title: dict[tuple[str, ...], BitMap] = {}
        self._summary: dict[tuple[str, ...], BitMap] = {}
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

    def _facet_boosts(self, values: Iterable[FacetValue] | None) -> dict[int, float]:
        """Facet value id -> the engine's score (1 when it gives none) of each value named."""
        boosts: dict[int, float] = {}
        # What the engine found, kept for the page's suggested filters (run once per request).
        self.suggestions: list[Suggestion] = suggest_filters(self.text, values=values)
        for suggestion in self.suggestions:
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

    # --- the matches as ids, and the first k of them ---------------------------------------

    def _cases_of(self, term: Term) -> BitMap:
        """The ids of the cases holding a term: its postings; a phrase's from the index."""
        if term.stems not in self._cases:
            if term.is_phrase:
                self._cases[term.stems] = self._phrase_cases(term)
            else:
                self._load_postings([term])
        return self._cases[term.stems]

    def _phrase_cases(self, term: Term) -> BitMap:
        """The cases holding a phrase: of those holding all its words (postings), the ones the
        index finds it in."""
        holding = self._all_words(term)
        if not holding:
            return holding
        rows = SearchIndex.objects.filter(**{"document__matches": backend.match_expression([term])})
        return BitMap(rows.values_list("case_id", flat=True)) & holding

    def _all_words(self, term: Term) -> BitMap:
        words = [Term((s,), s) for s in dict.fromkeys(term.stems)]
        self._load_postings(words)
        return BitMap.intersection(*(self._cases_of(w) for w in words))

    def _load_phrases(self, terms: Iterable[Term]) -> None:
        """On PostgreSQL, the cases of every phrase in one read of the vectors of the cases
        holding all the words of one of them (a phrase of common words would otherwise read
        most vectors, once per phrase, to check the words' positions)."""
        wanted = {t.stems: t for t in terms if t.is_phrase and t.stems not in self._cases}
        phrases = list(wanted.values())
        if not phrases or not backend.is_postgres():
            return
        holding = [self._all_words(t) for t in phrases]
        rows = BitMap.union(BitMap(), *holding)
        if len(rows) > MAX_RANKED_IDS:
            return  # read one by one (_phrase_cases)
        found = [BitMap() for _t in phrases]
        if rows:
            tests = ", ".join(f"{SEARCH_INDEX_TABLE} @@ to_tsquery('simple', %s)" for _t in phrases)
            sql = f"SELECT rowid, {tests} FROM {SEARCH_INDEX_TABLE} WHERE rowid = ANY(%s)"
            params = [backend.match_expression([t]) for t in phrases]
            with connection.cursor() as cursor:
                cursor.execute(sql, [*params, list(rows)])
                for case_id, *held in cursor.fetchall():
                    for cases, yes in zip(found, held, strict=True):
                        if yes:
                            cases.add(case_id)
        for term, cases in zip(phrases, found, strict=True):
            self._cases[term.stems] = cases

    def _ranked_cases(self, term: Term) -> BitMap:
        """The cases whose rank a term may raise: a phrase's are those holding any of its words
        (PostgreSQL ranks how near its words are in any case holding two of them)."""
        if not term.is_phrase:
            return self._cases_of(term)
        words = [Term((s,), s) for s in term.stems]
        self._load_postings(words)
        return BitMap.union(BitMap(), *(self._cases_of(w) for w in words))

    def _load_postings(self, terms: Iterable[Term]) -> None:
        wanted = {t.stems[0] for t in terms if not t.is_phrase and t.stems not in self._cases}
        if wanted:
            rows = SearchTerm.objects.filter(term__in=wanted).values_list(
                "term", "postings", "title_postings", "summary_postings"
            )
            found = {row[0]: [postings.decode(data) for data in row[1:]] for row in rows}
            for stem in wanted:
                cases, title, summary = found.get(stem) or [BitMap(), BitMap(), BitMap()]
                self._cases[(stem,)], self._title[(stem,)] = cases, title
                self._summary[(stem,)] = summary

    def matched(self, within: BitMap | None = None) -> BitMap:
        """The ids of the cases `apply()` keeps (of `within` when given), from the postings."""
        if self._matched is None:
            included = (*self.terms, *self.tags)
            self._load_postings((*included, *self.parsed.excluded))
            self._load_phrases((*included, *self.parsed.excluded))
            found = BitMap()
            if self.parsed:
                found = BitMap.union(found, *(self._cases_of(t) for t in included))
            for term in self.parsed.excluded:
                found -= self._cases_of(term)
            self._matched = found
        return self._matched & within if within is not None else BitMap(self._matched)

    def _bounds(self, terms: Sequence[Term]) -> list[tuple[float, BitMap]]:
        """Sets of cases and weights such that a case's rank is at most the sum of the weights
        of the sets holding it (backend.term_bounds; on PostgreSQL a word weighs a quarter of its
        bound in a case holding it only in the rest of the text, half in the summary or facets,
        all in the title: the first column holding a word bounds its rank)."""
        weighted = []
        for term in terms:
            weight = self.idf(term)
            if term.is_phrase and not backend.is_postgres():
                weight = bm25_idf(self.documents, 0)  # FTS5 counts a phrase's own cases
            weighted.append((term, weight))
        found: list[tuple[float, BitMap]] = []
        for term, bound in backend.term_bounds(weighted):
            cases = self._ranked_cases(term)
            if not backend.is_postgres() or backend.is_tag(term):
                found.append((bound, cases))
            elif not term.is_phrase:
                title, summary = self._title[term.stems], self._summary[term.stems]
                found += [(bound / 4, cases), (bound / 4, summary | title), (bound / 2, title)]
            elif len(set(term.stems)) > 1:
                # ts_rank of a phrase is 1e-20 in a case holding one of its words, and at most
                # 1 in a case holding two or more.
                found += [(bound * 1e-19, cases), (bound, self._two_words(term))]
            else:
                found.append((bound, cases))
        return found

    def _two_words(self, term: Term) -> BitMap:
        """The cases holding at least two distinct words of a phrase."""
        seen, twice = BitMap(), BitMap()
        for stem in dict.fromkeys(term.stems):
            cases = self._cases_of(Term((stem,), stem))
            twice |= seen & cases
            seen |= cases
        return twice

    def _rank(self, case_ids: BitMap | None, k: int) -> list[Case]:
        """The first k of the given cases (None: of all) in `apply()`'s order, with their
        `search_score`."""
        cases = Case.objects.all()
        if case_ids is not None and backend.is_postgres():
            # One array parameter, not thousands (each of which the client would quote).
            ids = RawSQL("SELECT unnest(%s::integer[])", (list(case_ids),))
            cases = cases.filter(id__in=ids)
        elif case_ids is not None:
            cases = cases.filter(id__in=list(case_ids))
        return list(self.apply(cases)[:k])

    def top(self, k: int, within: BitMap | None = None) -> list[Case] | None:
        """The first `k` cases of `apply()` (among `within`, ids), exactly, ranking only the
        cases that can be among them; None when that would still be too many."""
        if not self.narrows:
            return None
        found = self.matched(within)
        if not found:
            return []
        if not backend.is_postgres():
            # FTS5 runs the whole match whatever the rowids asked for, and ranks it in C as
            # fast as it matches: rank it once.
            if within is not None and len(within) > MAX_RANKED_IDS:
                return None
            return self._rank(within, k)
        if len(found) <= RANK_WHOLE:
            return self._rank(found, k)
        sums = BoundSums([(w, cases & found) for w, cases in self._bounds(self.terms_and_tags)])
        first = sums.highest(max(RANK_FIRST, k))
        ranked = self._rank(first, k)
        if len(ranked) < k:  # fewer than k cases match at all
            return ranked
        # Any case whose bound does not reach the k-th score found so far ranks below it.
        beat = float(ranked[-1].search_score)  # type: ignore[attr-defined]
        candidates = sums.reaching(beat) - first
        if candidates:
            if len(candidates) > MAX_RANKED_IDS:
                return None
            ranked = self._rank(candidates | first, k)
        return ranked

    def top_ids(self, k: int, within: BitMap | None = None) -> list[int] | None:
        """The ids of `top(k, within)`."""
        found = self.top(k, within)
        return None if found is None else [case.id for case in found]

    @property
    def narrows(self) -> bool:
        """Whether `apply()` selects cases (a query of stop words only leaves them all)."""
        return bool(self.parsed)

    @property
    def terms_and_tags(self) -> tuple[Term, ...]:
        return (*self.terms, *self.tags)

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
