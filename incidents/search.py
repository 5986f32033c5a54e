"""Text search over cases: `search_cases(qs, text)` narrows and ranks a case queryset for `q`.

- PostgreSQL: full-text search with websearch syntax ("quoted phrase", -word, or), the title
  weighing more than the summary and the summary more than the detection, and pg_trgm word
  similarity so that a typo in a word still finds it;
- SQLite: every word (singular form) must appear in the title, summary or detection; cases where
  words appear in the title rank first.
The best matches come first, then the newest. CaseFilterSet applies it; nothing else should.
The facet values named in a sentence are found by incidents.suggest.
"""

from __future__ import annotations

import functools
import operator
import re
from typing import Any

from django.db import connection
from django.db.models import Case as When_
from django.db.models import (
    Exists,
    F,
    FloatField,
    Func,
    IntegerField,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Greatest

from incidents.models import Case
from incidents.suggest import word_stem
from incidents.text import singular, words

# Words the text search looks at, at most (a pasted paragraph is not a query).
MAX_QUERY_WORDS = 12
# Cases a text search can match, at most (far more than the library holds).
MAX_MATCHES = 100_000
# pg_trgm word similarity above which a typed word counts as a misspelling of a case's word.
TYPO_SIMILARITY = 0.5
# How much a typo match in each field counts, as the full-text weights A, B, C do.
FIELD_WEIGHTS = {"title": 1.0, "summary": 0.6, "detection": 0.3}

_WEBSEARCH_SYNTAX = re.compile(r'["\-]|\bor\b', re.IGNORECASE)


# Ties keep the library's own order (newest first).
_NEWEST_FIRST: list[Any] = list(Case._meta.ordering or [])


# --- ranked text search -------------------------------------------------------------------------


def search_cases(queryset: QuerySet[Case], text: str) -> QuerySet[Case]:
    """Cases matching `text`, best match first, then newest; the queryset unchanged if no words."""
    if not words(text):
        return queryset
    if connection.vendor == "postgresql":
        return _postgres_search(queryset, text)
    return _fallback_search(queryset, text)


def _postgres_search(queryset: QuerySet[Case], text: str) -> QuerySet[Case]:
    # The match is a subquery on cases, and its LIMIT keeps PostgreSQL from flattening it into
    # the outer query: it is then run once (a hashed subplan) instead of once per joined row
    # (facet counts join cases to their links). It is built once per text: a page applies the
    # text filter six times (the list and each facet's counts).
    ranked = queryset.filter(id__in=_postgres_matching(text)).annotate(
        search_score=_postgres_score(text)
    )
    return ranked.order_by(F("search_score").desc(), *_NEWEST_FIRST)


def _document() -> Any:
    from django.contrib.postgres.search import SearchVector

    return (
        SearchVector("title", weight="A", config="english")
        + SearchVector("summary", weight="B", config="english")
        + SearchVector("detection", weight="C", config="english")
    )


def _typo_words(text: str) -> list[str] | None:
    """The words judged for typos (four letters or more), or None when websearch syntax is used."""
    if _WEBSEARCH_SYNTAX.search(text):
        return None
    return [w for w in dict.fromkeys(words(text)[:MAX_QUERY_WORDS]) if len(w) >= 4] or None


def _postgres_score(text: str) -> Any:
    """Full-text rank, plus a little for closeness so that typo matches rank among themselves."""
    from django.contrib.postgres.search import SearchQuery, SearchRank, TrigramWordSimilarity

    query = SearchQuery(text[:1000], search_type="websearch", config="english")
    rank = Coalesce(SearchRank(_document(), query), Value(0.0), output_field=FloatField())
    typo_words = _typo_words(text)
    if not typo_words:
        return rank
    closeness: Any = Value(0.0)
    for word in typo_words:
        # Weighted like the full-text fields: title over summary over detection.
        closeness = closeness + Greatest(
            *[TrigramWordSimilarity(word, column) * Value(w) for column, w in FIELD_WEIGHTS.items()]
        )
    # Full-text matches rank at least ~0.06; this adds at most 0.01.
    return rank + closeness * Value(0.01 / len(typo_words))


@functools.lru_cache(maxsize=256)
def _postgres_matching(text: str) -> QuerySet[Case, Any]:
    """Ids of the cases matching the text (an unevaluated subquery, safe to reuse)."""
    scored, matches = _postgres_match(Case.objects.all(), text)
    return scored.filter(matches).values("id")[:MAX_MATCHES]


def _postgres_match(queryset: QuerySet[Case], text: str) -> tuple[QuerySet[Case], Q]:
    """The cases annotated with what the match needs, and the condition for a match.

    A case matches the full-text query (websearch syntax), or, for plain words, each word
    appears as written or, if no case contains it and it has four letters or more, is close to
    a word of the case (pg_trgm word similarity). A word some case contains is no typo:
    "overheating" must not find "overhead". Stop words ("the") are ignored, as full-text search
    does. Substring tests keep this cheap: the document vector is not recomputed per word.
    """
    from django.contrib.postgres.search import SearchQuery, TrigramWordSimilarity

    query = SearchQuery(text[:1000], search_type="websearch", config="english")
    matches = Q(search_document=query)
    # Annotations go in two calls: each annotate() clones and re-resolves the whole query,
    # which cost more than the database work for an eight-word sentence.
    first: dict[str, Any] = {"search_document": _document()}
    second: dict[str, Any] = {}
    typo_words = _typo_words(text)
    if typo_words:
        word_matches: list[Q] = []
        for index, word in enumerate(dict.fromkeys(words(text)[:MAX_QUERY_WORDS])):
            stem = word_stem(singular(word))  # "overheating" also appears as "overheated"
            appears = (
                Q(title__icontains=stem) | Q(summary__icontains=stem) | Q(detection__icontains=stem)
            )
            first[f"search_stop_{index}"] = Func(
                SearchQuery(word, config="english"), function="numnode", output_field=IntegerField()
            )
            condition = appears | Q(**{f"search_stop_{index}": 0})
            if word in typo_words:
                fields = {
                    f"search_{column}_{index}": TrigramWordSimilarity(word, column)
                    for column in FIELD_WEIGHTS
                }
                first.update(fields)
                first[f"search_known_{index}"] = Exists(Case.objects.filter(appears))
                second[f"search_close_{index}"] = Greatest(*[F(name) for name in fields])
                condition |= Q(
                    **{
                        f"search_known_{index}": False,
                        f"search_close_{index}__gte": TYPO_SIMILARITY,
                    }
                )
            word_matches.append(condition)
        matches |= functools.reduce(operator.and_, word_matches)
    queryset = queryset.annotate(**first)
    if second:
        queryset = queryset.annotate(**second)
    return queryset, matches


def _fallback_search(queryset: QuerySet[Case], text: str) -> QuerySet[Case]:
    """Every word in the title, summary or detection; title matches weigh most (SQLite)."""
    score: list[When_] = []
    for word in dict.fromkeys(singular(w) for w in words(text)[:MAX_QUERY_WORDS]):
        queryset = queryset.filter(
            Q(title__icontains=word) | Q(summary__icontains=word) | Q(detection__icontains=word)
        )
        score.append(
            When_(
                When(title__icontains=word, then=Value(3)),
                When(summary__icontains=word, then=Value(2)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
    total = score[0]
    for part in score[1:]:
        total = total + part  # type: ignore[assignment]
    return queryset.annotate(search_score=total).order_by(F("search_score").desc(), *_NEWEST_FIRST)
