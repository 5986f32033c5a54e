"""Text search over cases, and facet values found in free text.

`filter_cases(qs, text)` narrows and ranks a case queryset for the `q` parameter:
- PostgreSQL: full-text search with websearch syntax ("quoted phrase", -word, or), the title
  weighing more than the summary and the summary more than the detection, and pg_trgm word
  similarity so that a typo in a word still finds it;
- SQLite: every word (singular form) must appear in the title, summary or detection; cases where
  words appear in the title rank first.
The best matches come first, then the newest.

`suggest_filters(text)` finds the facet values named in a sentence, through their names and
aliases, whatever the case, plural or a small typo: "our nccl timeouts came from a leaking data
loader" gives Symptom = NCCL timeout and Component = Training data loader. The page, the API and
the case-submission form share it.
"""

from __future__ import annotations

import functools
import operator
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Case as When_
from django.db.models import (
    Count,
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
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from incidents.models import Case, CaseFacetLink, Facet, FacetAlias, FacetValue
from incidents.text import singular, spelling_key, words

# Words the text search looks at, at most (a pasted paragraph is not a query).
MAX_QUERY_WORDS = 12
# Cases a text search can match, at most (far more than the library holds).
MAX_MATCHES = 100_000
# Characters of text suggest_filters reads, at most (a pasted postmortem can be long).
MAX_SUGGEST_CHARS = 20_000
# pg_trgm word similarity above which a typed word counts as a misspelling of a case's word.
TYPO_SIMILARITY = 0.5
# How much a typo match in each field counts, as the full-text weights A, B, C do.
FIELD_WEIGHTS = {"title": 1.0, "summary": 0.6, "detection": 0.3}

_TOKEN = re.compile(r"[^\W_]+")
_PARENTHESIS = re.compile(r"\s*\([^)]*\)")
_WEBSEARCH_SYNTAX = re.compile(r'["\-]|\bor\b', re.IGNORECASE)
# Acronyms and names that are also everyday English words: "a fair amount" is not Meta's FAIR.
# Written like this in the vocabulary, they match only when typed the same way.
_EVERYDAY_WORDS = frozenset({"fair", "vast", "os", "nan", "buffer", "weave", "auth"})


# Ties keep the library's own order (newest first).
_NEWEST_FIRST: list[Any] = list(Case._meta.ordering or [])


# --- ranked text search -------------------------------------------------------------------------


def filter_cases(queryset: QuerySet[Case], text: str) -> QuerySet[Case]:
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
            stem = _stem(singular(word))  # "overheating" also appears as "overheated"
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


# --- facet values named in free text ------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """A facet value found in the text: which words named it, through which name or alias."""

    value: FacetValue
    matched: str  # the words as written in the text
    term: str  # the value's name or alias they match
    exact: bool  # False when a typo was forgiven
    count: int | None = None  # cases tagged with the value (or a descendant), if asked for

    @property
    def facet(self) -> str:
        return self.value.facet

    @property
    def facet_label(self) -> str:
        return Facet(self.value.facet).label


@dataclass(frozen=True)
class _Term:
    tokens: tuple[str, ...]
    value_id: int
    text: str

    @property
    def exact_case(self) -> str | None:
        """The written form a typed word must equal, for everyday words used as names."""
        if (
            len(self.tokens) == 1
            and self.tokens[0] in _EVERYDAY_WORDS
            and self.text != self.text.lower()
        ):
            return self.text
        return None


@dataclass(frozen=True)
class _Match:
    start: int  # index of the first token
    end: int  # index after the last token
    term: _Term
    distance: int


class _Lexicon:
    """Every spelling of every facet value, indexed for matching token runs."""

    def __init__(self, names: Iterable[tuple[int, str]]) -> None:
        self.by_first: dict[str, list[_Term]] = defaultdict(list)
        self.by_joined: dict[str, list[_Term]] = defaultdict(list)
        seen: set[tuple[int, tuple[str, ...]]] = set()
        for value_id, text in names:
            for variant in {text, _PARENTHESIS.sub("", text)}:
                tokens = tuple(spelling_key(variant).split())
                if not tokens or (value_id, tokens) in seen:
                    continue
                seen.add((value_id, tokens))
                term = _Term(tokens, value_id, text)
                self.by_first[tokens[0]].append(term)
                self.by_joined["".join(tokens)].append(term)
        self.vocabulary_tokens = sorted(
            {t for terms in self.by_first.values() for term in terms for t in term.tokens}
        )
        self._known = set(self.vocabulary_tokens)
        self._by_stem: dict[str, list[str]] = defaultdict(list)
        for token in self.vocabulary_tokens:
            self._by_stem[_stem(token)].append(token)
        self.longest = max((len(t.tokens) for ts in self.by_first.values() for t in ts), default=0)

    def spellings(self, token: str) -> dict[str, int]:
        """Vocabulary tokens this typed token may stand for, with their edit distance."""
        if token in self._known:
            return {token: 0}
        if token.endswith("s") and token[:-1] in self._known:
            return {token[:-1]: 0}  # a plural `singular` keeps, like "gpus" (for "status")
        # Another form of the same word ("leaking" for "leak", "overheated" for "overheating").
        forms = {other: 1 for other in self._by_stem.get(_stem(token), [])}
        allowed = _allowed_typos(token)
        if not allowed:
            return forms
        found = process.extract(
            token,
            self.vocabulary_tokens,
            scorer=DamerauLevenshtein.distance,
            score_cutoff=allowed,
            limit=None,
        )
        forms.update(
            (choice, int(distance))
            for choice, distance, _index in found
            if choice[0] == token[0] and distance <= _allowed_typos(choice)
        )
        return forms


def _stem(token: str) -> str:
    """A crude stem: "-ing" and "-ed" removed, a doubled final consonant undoubled."""
    for suffix in ("ing", "ed"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            base = token[: -len(suffix)]
            if base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    return token


def _allowed_typos(token: str) -> int:
    """Edits forgiven in a word: none for short words and anything with digits (H100 is not A100)."""
    if len(token) < 5 or any(ch.isdigit() for ch in token):
        return 0
    return 1 if len(token) < 8 else 2


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(spelling key, start, end) of each word of the text."""
    found = []
    for match in _TOKEN.finditer(text):
        key = spelling_key(match.group())
        if key:
            # A word like "kube-apiserver" is split by the regex already; keys have no spaces.
            found.append((key.replace(" ", ""), match.start(), match.end()))
    return found


def _find_matches(lexicon: _Lexicon, keys: Sequence[str], written: Sequence[str]) -> list[_Match]:
    cache: dict[str, dict[str, int]] = {}
    spellings = [cache.get(key) or cache.setdefault(key, lexicon.spellings(key)) for key in keys]
    matches: list[_Match] = []
    for start, first in enumerate(spellings):
        for spelled, distance in first.items():
            for term in lexicon.by_first.get(spelled, []):
                end = start + len(term.tokens)
                if end > len(keys) or term.exact_case not in (None, written[start]):
                    continue
                total = distance
                for offset, wanted in enumerate(term.tokens[1:], start=1):
                    step = spellings[start + offset].get(wanted)
                    if step is None:
                        break
                    total += step
                else:
                    matches.append(_Match(start, end, term, total))
        # Words written together or apart: "dataloader" for "data loader" and the reverse.
        for width in range(1, min(4, len(keys) - start) + 1):
            for term in lexicon.by_joined.get("".join(keys[start : start + width]), []):
                if len(term.tokens) != width and term.exact_case is None:
                    matches.append(_Match(start, start + width, term, 0))
    return matches


def _select(matches: list[_Match]) -> list[_Match]:
    """Longest, closest matches first; a match inside a longer one is dropped."""
    chosen: list[_Match] = []
    taken: set[int] = set()
    values: set[int] = set()
    spans: set[tuple[int, int]] = set()
    for match in sorted(matches, key=lambda m: (m.start - m.end, m.distance, m.start)):
        span = (match.start, match.end)
        if match.term.value_id in values:
            continue
        if span not in spans and taken.intersection(range(match.start, match.end)):
            continue
        chosen.append(match)
        values.add(match.term.value_id)
        spans.add(span)
        taken.update(range(match.start, match.end))
    return sorted(chosen, key=lambda m: (m.start, m.term.value_id))


def suggest_filters(
    text: str, *, with_counts: bool = True, values: Iterable[FacetValue] | None = None
) -> list[Suggestion]:
    """The facet values named in `text` (names and aliases; case, plurals and small typos forgiven).

    Suggestions come in the order their words appear. With `with_counts`, each carries the number
    of cases tagged with the value or a descendant. `values` lets a caller that already holds the
    vocabulary pass it in; the aliases are read with one query either way.
    """
    text = text[:MAX_SUGGEST_CHARS]
    tokens = _tokens(text)
    if not tokens:
        return []
    by_id = {v.id: v for v in (values if values is not None else FacetValue.objects.all())}
    names = [(v.id, v.name) for v in by_id.values()]
    names += list(FacetAlias.objects.values_list("value_id", "text"))
    lexicon = _Lexicon(names)
    keys = [key for key, _s, _e in tokens]
    chosen = _select(_find_matches(lexicon, keys, [text[s:e] for _k, s, e in tokens]))
    counts: dict[int, int] = {}
    if with_counts and chosen:
        counts = dict(
            CaseFacetLink.objects.filter(value_id__in={m.term.value_id for m in chosen})
            .values_list("value_id")
            .annotate(n=Count("case_id"))
            .values_list("value_id", "n")
        )
    return [
        Suggestion(
            value=by_id[m.term.value_id],
            matched=text[tokens[m.start][1] : tokens[m.end - 1][2]],
            term=m.term.text,
            exact=m.distance == 0,
            count=counts.get(m.term.value_id, 0) if with_counts else None,
        )
        for m in chosen
        if m.term.value_id in by_id
    ]
