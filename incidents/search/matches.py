"""The ids of the cases holding each word and phrase of a search, as roaring bitmaps.

`CaseSets` reads the words' postings (`SearchTerm.postings`, and the title and summary ones) once
per word, and a phrase's cases from the index (of the cases holding all its words; on PostgreSQL
every phrase of a search in one read): what `TextSearch.matched()` counts and
`incidents.search.candidates` bounds the rank with.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from pyroaring import BitMap

from incidents.models import SearchIndex
from incidents.models import SearchTerm
from incidents.models.search import SEARCH_INDEX_TABLE
from incidents.search import backend
from incidents.search import postings
from incidents.search.query import Term

# No query lists more case ids than this: top() gives up (None: rank the queryset), and phrases
# are then read one by one.
MAX_RANKED_IDS = 20_000

Stems = tuple[str, ...]


class CaseSets:
    """Per term, the ids of the cases holding it (anywhere, in the title, in the summary)."""

    def __init__(self) -> None:
        self._cases: dict[Stems, BitMap] = {}
        self._title: dict[Stems, BitMap] = {}
        self._summary: dict[Stems, BitMap] = {}

    def of(self, term: Term) -> BitMap:
        """The ids of the cases holding a term: its postings; a phrase's from the index."""
        if term.stems not in self._cases:
            if term.is_phrase:
                self._cases[term.stems] = self._phrase_cases(term)
            else:
                self.load_postings([term])
        return self._cases[term.stems]

    def title(self, word: Term) -> BitMap:
        """The cases holding a word (postings loaded) in their title."""
        return self._title[word.stems]

    def summary(self, word: Term) -> BitMap:
        """The cases holding a word (postings loaded) in their summary."""
        return self._summary[word.stems]

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
        self.load_postings(words)
        return BitMap.intersection(*(self.of(w) for w in words))

    def load_phrases(self, terms: Iterable[Term]) -> None:
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

    def ranked(self, term: Term) -> BitMap:
        """The cases whose rank a term may raise: a phrase's are those holding any of its words
        (PostgreSQL ranks how near its words are in any case holding two of them)."""
        if not term.is_phrase:
            return self.of(term)
        words = [Term((s,), s) for s in term.stems]
        self.load_postings(words)
        return BitMap.union(BitMap(), *(self.of(w) for w in words))

    def load_postings(self, terms: Iterable[Term]) -> None:
        """Read the postings of the words (not phrases) not read yet, in one query."""
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

    def two_words(self, term: Term) -> BitMap:
        """The cases holding at least two distinct words of a phrase."""
        seen, twice = BitMap(), BitMap()
        for stem in dict.fromkeys(term.stems):
            cases = self.of(Term((stem,), stem))
            twice |= seen & cases
            seen |= cases
        return twice
