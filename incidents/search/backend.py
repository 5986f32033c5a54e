"""The parsed query written for the database in use: the match condition and the text rank.

Both databases see the same stems and the same boolean query, so they match the same cases:
- SQLite: an FTS5 MATCH expression, ranked by FTS5's `bm25()` with column weights;
- PostgreSQL: a `to_tsquery('simple', ...)` over the stored tsvector (GIN index), ranked by a
  BM25-like sum: for each query term, its rarity (the same idf as FTS5's) times its `ts_rank`
  with the same column weights (terms of similar rarity ranked together, see `text_rank`).
Title weighs 4, summary 2, facet value names 2, the rest 1 on both. A case's facet values (and
their ancestors) are also indexed as tokens (`facet_token`, FTS5 column `tags`, weight C on
PostgreSQL): a value the text names joins the query as its token, weighing TAG_WEIGHT, so it
raises the cases tagged with it or a descendant within the same index lookup (and finds them, when
`TextSearch.finding_tags` holds it).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import F
from django.db.models import FloatField
from django.db.models import Func
from django.db.models import Value
from django.db.models.expressions import Combinable

from incidents.search.query import Term

DOCUMENT = "search_index__document"
# Column weights: title, summary, facet value names, the rest (SQLite's column order).
COLUMN_WEIGHTS = (4.0, 2.0, 2.0, 1.0)
# The weight of a facet value's token (FTS5's fifth column, `tags`).
TAG_WEIGHT = 3.0
TAG_PREFIX = "xfv"
# PostgreSQL's ts_rank weights are {D, C, B, A} in [0, 1]: the same ratios, scaled down.
_TS_WEIGHTS = "{" + ",".join(f"{w / COLUMN_WEIGHTS[0]:g}" for w in reversed(COLUMN_WEIGHTS)) + "}"
# A tag sits in weight C (facets) on PostgreSQL: this makes its rank weigh TAG_WEIGHT.
_TAG_FACTOR = TAG_WEIGHT / COLUMN_WEIGHTS[2]
# Groups of words of similar rarity ranked by one ts_rank call each (PostgreSQL).
RANK_TIERS = 3
# ts_rank of one occurrence in a column of weight 1 is 1/1.6449 (its tf sum divided by pi^2/6),
# and a word usually occurs in more than one column; the scale is calibrated so that both
# databases give about the same scores on the seeded library (a title word about 4 idf).
_TS_SCALE = COLUMN_WEIGHTS[0] * 1.6449 / 2
# ts_rank's divisor (pi^2/6): a word's rank in a case is at most 1, since the index writes the
# heaviest column first (title, summary, facets, the rest); a tag's is exactly its weight over it.
_PI2_6 = 1.64493406685
_TAG_RANK = COLUMN_WEIGHTS[2] / COLUMN_WEIGHTS[0] / _PI2_6
# Bounds are raised a little: PostgreSQL's ranks are 4-byte floats.
_BOUND_MARGIN = 1.001


def is_postgres() -> bool:
    return connection.vendor == "postgresql"


def facet_token(value_id: int) -> str:
    """The index token of a facet value (no word of any text looks like it)."""
    return f"{TAG_PREFIX}{value_id}"


def is_tag(term: Term) -> bool:
    return term.stems[0].startswith(TAG_PREFIX)


def _fts5_term(term: Term) -> str:
    return '"' + " ".join(term.stems) + '"'


def _tsquery_term(term: Term) -> str:
    quoted = [f"'{s}'" for s in term.stems]
    return quoted[0] if len(quoted) == 1 else "(" + " <-> ".join(quoted) + ")"


def match_expression(terms: Sequence[Term], excluded: Sequence[Term] = ()) -> str:
    """The query in the database's syntax: any of `terms`, none of `excluded`."""
    if is_postgres():
        text = "(" + " | ".join(_tsquery_term(t) for t in terms) + ")"
        if excluded:
            text += " & !(" + " | ".join(_tsquery_term(t) for t in excluded) + ")"
        return text
    text = "(" + " OR ".join(_fts5_term(t) for t in terms) + ")"
    if excluded:
        text += " NOT (" + " OR ".join(_fts5_term(t) for t in excluded) + ")"
    return text


def _tiers(weighted: list[tuple[Term, float]], count: int) -> list[list[tuple[Term, float]]]:
    """Terms split into at most `count` groups of similar rarity (rarest first)."""
    ordered = sorted(weighted, key=lambda tw: -tw[1])
    size = -(-len(ordered) // count) if ordered else 1
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


def _ts_rank(query: str, factor: float) -> Any:
    return Value(factor * _TS_SCALE) * Func(
        F(DOCUMENT),
        Value(query),
        template=f"ts_rank('{_TS_WEIGHTS}', %(expressions)s))",
        arg_joiner=", to_tsquery('simple', ",
        output_field=FloatField(),
    )


def _parts(
    weighted_terms: Sequence[tuple[Term, float]],
) -> list[tuple[list[tuple[Term, float]], float]]:
    """PostgreSQL's rank as a sum of ts_rank calls: (terms of the call, its factor)."""
    words = [(t, w) for t, w in weighted_terms if not t.is_phrase and not is_tag(t)]
    tags = [(t, w) for t, w in weighted_terms if is_tag(t)]
    phrases = [(t, w) for t, w in weighted_terms if t.is_phrase]
    parts: list[tuple[list[tuple[Term, float]], float]] = [([(t, w)], w) for t, w in phrases]
    for group, factor in [(g, 1.0) for g in _tiers(words, RANK_TIERS)] + [(tags, _TAG_FACTOR)]:
        if group:
            mean_idf = sum(w for _t, w in group) / len(group)
            parts.append((group, mean_idf * len(group) * factor))
    return parts


def term_bounds(weighted_terms: Sequence[tuple[Term, float]]) -> list[tuple[Term, float]]:
    """For each term, the most a case holding it can get from it in `text_rank` (a case's rank
    is at most the sum over the terms it holds): what lets a search rank only the cases that can
    reach its first page (incidents.search.candidates). PostgreSQL's `text_rank` only: a SQLite
    match is ranked whole, FTS5 reading every match whatever the rowids asked for."""
    bounds = []
    for group, factor in _parts(weighted_terms):
        # ts_rank of an `or` is the mean of its distinct terms' ranks, each at most 1 (a tag's
        # exactly _TAG_RANK); a phrase's rank is at most 1.
        top = _TAG_RANK if is_tag(group[0][0]) else 1.0
        distinct = len({t.stems for t, _w in group})
        per_term = factor * _TS_SCALE * top / distinct * _BOUND_MARGIN
        bounds += [(t, per_term) for t, _w in group]
    return bounds


def text_rank(weighted_terms: Sequence[tuple[Term, float]]) -> Combinable:
    """How well a matching case's text answers the query, higher is better (in idf units).

    On PostgreSQL, `ts_rank` of an `or` query is the mean of its terms' ranks, so one call per
    group of words of similar rarity (RANK_TIERS groups, each weighed by its mean idf times its
    size) stands for a call per word: a vector is read 3 or 4 times per row, not once per word.
    """
    if not is_postgres():
        weights = [Value(w) for w in (*COLUMN_WEIGHTS, TAG_WEIGHT)]
        bm25 = Func(F(DOCUMENT), *weights, function="bm25", output_field=FloatField())
        return bm25 * Value(-1.0)
    parts = [
        _ts_rank(" | ".join(_tsquery_term(t) for t, _w in group), factor)
        for group, factor in _parts(weighted_terms)
    ]
    return functools.reduce(operator.add, parts)
