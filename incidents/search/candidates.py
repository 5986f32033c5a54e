"""The first k cases of a search, ranked only over the cases that can be among them (MaxScore).

A match of at most `RANK_WHOLE` cases is ranked whole; else the cases of highest bound
(`incidents.search.bounds.BoundSums`) are ranked first, and their k-th score is the one to beat:
a case whose bound does not reach it cannot be on the first page, so only the others are ranked
with them (one or two queries over a few hundred cases instead of ranking every match).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models.expressions import RawSQL
from pyroaring import BitMap

from incidents.models import Case
from incidents.search import backend
from incidents.search.bounds import BoundSums
from incidents.search.matches import MAX_RANKED_IDS
from incidents.search.query import Term

if TYPE_CHECKING:
    from collections.abc import Sequence

    from incidents.search.plan import TextSearch

# A match of at most this many cases is ranked whole; else the cases of the heaviest words are
# ranked first, about this many, to learn the score to beat.
RANK_WHOLE = 400
# The cases of highest bound ranked first, at least (their k-th score is the one to beat).
RANK_FIRST = 300


def top(search: TextSearch, k: int, within: BitMap | None = None) -> list[Case] | None:
    """The first `k` cases of `search.apply()` (among `within`, ids), exactly, ranking only the
    cases that can be among them; None when that would still be too many."""
    if not search.narrows:
        return None
    found = search.matched(within)
    if not found:
        return []
    if not backend.is_postgres():
        # FTS5 runs the whole match whatever the rowids asked for, and ranks it in C as
        # fast as it matches: rank it once.
        if within is not None and len(within) > MAX_RANKED_IDS:
            return None
        return rank(search, within, k)
    if len(found) <= RANK_WHOLE:
        return rank(search, found, k)
    if not search.terms_and_tags:  # only excluded words: nothing ranks, newest first
        return rank(search, within, k)
    weighted = weighted_sets(search, search.terms_and_tags)
    sums = BoundSums([(w, cases & found) for w, cases in weighted])
    first = sums.highest(max(RANK_FIRST, k))
    ranked = rank(search, first, k)
    if len(ranked) < k:  # fewer than k cases match at all
        return ranked
    # Any case whose bound does not reach the k-th score found so far ranks below it.
    beat = float(ranked[-1].search_score)  # type: ignore[attr-defined]
    candidates = sums.reaching(beat) - first
    if candidates:
        if len(candidates) > MAX_RANKED_IDS:
            return None
        ranked = rank(search, candidates | first, k)
    return ranked


def rank(search: TextSearch, case_ids: BitMap | None, k: int) -> list[Case]:
    """The first k of the given cases (None: of all) in `search.apply()`'s order, with their
    `search_score`."""
    cases = Case.objects.all()
    if case_ids is not None and backend.is_postgres():
        # One array parameter, not thousands (each of which the client would quote).
        ids = RawSQL("SELECT unnest(%s::integer[])", (list(case_ids),))
        cases = cases.filter(id__in=ids)
    elif case_ids is not None:
        cases = cases.filter(id__in=list(case_ids))
    return list(search.apply(cases)[:k])


def weighted_sets(search: TextSearch, terms: Sequence[Term]) -> list[tuple[float, BitMap]]:
    """Sets of cases and weights such that a case's rank is at most the sum of the weights
    of the sets holding it (backend.term_bounds; a word weighs a quarter of its bound in a case
    holding it only in the rest of the text, half in the summary or facets, all in the title:
    the first column holding a word bounds its rank). PostgreSQL only: `top` ranks a SQLite
    match whole."""
    sets = search.case_sets
    found: list[tuple[float, BitMap]] = []
    for term, bound in backend.term_bounds([(term, search.idf(term)) for term in terms]):
        cases = sets.ranked(term)
        if backend.is_tag(term):
            found.append((bound, cases))
        elif not term.is_phrase:
            title, summary = sets.title(term), sets.summary(term)
            found += [(bound / 4, cases), (bound / 4, summary | title), (bound / 2, title)]
        elif len(set(term.stems)) > 1:
            # ts_rank of a phrase is 1e-20 in a case holding one of its words, and at most
            # 1 in a case holding two or more.
            found += [(bound * 1e-19, cases), (bound, sets.two_words(term))]
        else:
            found.append((bound, cases))
    return found
