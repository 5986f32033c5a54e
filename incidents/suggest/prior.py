"""Like cases as a prior: values tagged on the library's cases most like the text.

A sentence about a failure usually reads like the cases it resembles, and those cases are
tagged: the values on the first cases a plain BM25 ranking over the library's tagged text gives
(the lexicon's documents, in memory: no database query and no facet boost, so no cycle with the
search, which itself asks the engine which values the text names; the search's idf and
constants, incidents.bm25, a word counting once per case) are what the text probably names (pseudo-relevance feedback, or kNN tagging). A prior alone names nothing: the engine
raises a value by it only when the text also holds a word of the value's own wording (its name,
aliases, phrases or description, as stems: `support`), or other evidence below the threshold.

`CaseIndex.build(documents)` indexes the documents once per lexicon; `CaseIndex.prior(stems)`
gives each value's share of the weight of the first `PRIOR_CASES` cases tagged with it.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field

from incidents.bm25 import BM25_B
from incidents.bm25 import BM25_K1
from incidents.bm25 import bm25_idf

# The first cases of the ranking whose tags count, and the least share of the best case's
# score a case needs to count at all (a case matching one common word is no neighbour).
PRIOR_CASES = 5
MIN_RELATIVE_SCORE = 0.5
# A case is like the text only if it holds at least this many of its words (a word or two in common
# is a topic: "the job hit a timeout" is like every case that mentions a timeout).
MIN_SHARED_WORDS = 3
# Words more than this share of the cases hold rank nothing (their idf is small) and would cost
# a visit of most cases each.
COMMON_SHARE = 0.25


@dataclass
class CaseIndex:
    """The tagged cases' stems as postings, for a BM25 ranking of a text's stems."""

    postings: dict[str, list[int]] = field(default_factory=dict)
    idf: dict[str, float] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)
    tags: list[frozenset[int]] = field(default_factory=list)
    average_length: float = 1.0

    @classmethod
    def build(cls, documents: Sequence[tuple[frozenset[str], frozenset[int]]]) -> CaseIndex:
        """`documents`: each case's distinct stems (function words left out) and its tags."""
        index = cls()
        postings: dict[str, list[int]] = defaultdict(list)
        for number, (found, tags) in enumerate(documents):
            for s in found:
                postings[s].append(number)
            index.lengths.append(len(found))
            index.tags.append(tags)
        total = len(documents)
        index.postings = dict(postings)
        index.idf = {s: bm25_idf(total, len(cases)) for s, cases in postings.items()}
        index.average_length = (sum(index.lengths) / total) if total else 1.0
        return index

    def ranked(self, query: Iterable[str], count: int | None = None) -> list[tuple[int, float]]:
        """The first `count` cases for the stems, (document number, BM25 score), best first."""
        scores: dict[int, float] = defaultdict(float)
        shared: dict[int, int] = defaultdict(int)
        most = max(2.0, COMMON_SHARE * len(self.lengths))
        for s in set(query):
            cases = self.postings.get(s)
            if not cases or len(cases) > most:
                continue
            idf = self.idf[s]
            for number in cases:
                norm = 1 - BM25_B + BM25_B * self.lengths[number] / self.average_length
                scores[number] += idf * (BM25_K1 + 1) / (1 + BM25_K1 * norm)
                shared[number] += 1
        for number in [n for n, count in shared.items() if count < MIN_SHARED_WORDS]:
            del scores[number]
        return heapq.nlargest(
            count or PRIOR_CASES, scores.items(), key=lambda item: (item[1], -item[0])
        )

    def prior(self, query: Iterable[str]) -> tuple[dict[int, float], dict[int, list[int]]]:
        """Per value, the share of the neighbours' weight its cases hold (0 to 1), and which
        neighbours (document numbers, best first) hold it."""
        ranked = self.ranked(query)
        if not ranked:
            return {}, {}
        best = ranked[0][1]
        near = [(n, s / best) for n, s in ranked if s >= MIN_RELATIVE_SCORE * best]
        total = sum(w for _n, w in near)
        shares: dict[int, float] = defaultdict(float)
        holders: dict[int, list[int]] = defaultdict(list)
        for number, weight in near:
            for value_id in self.tags[number]:
                shares[value_id] += weight / total
                holders[value_id].append(number)
        return dict(shares), dict(holders)
