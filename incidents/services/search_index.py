"""Keeping the text search index in step with the cases: `refresh_search_index(case_ids)`.

Every write path calls it after writing cases: the loader (and so a submission) and the admin.
A case's searchable text is its title; its summary; the names and aliases of its facet values
(implied ancestors included, so "hardware" finds a case tagged "GPU hardware"); and the rest a
reader sees: detection, remediation, action item and lesson wording, key figure labels and cost
scopes; and the tokens of its facet values, for facet-aware ranking. The index holds stems (`incidents.search.terms`), and `SearchTerm` counts the cases
holding each stem. A refresh of some cases costs a constant number of queries per 1,000 cases.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from incidents.models import (
    CASE_ITEM_LINKS,
    Case,
    CaseFacetLink,
    CostFigure,
    FacetAlias,
    FacetValue,
    KeyFigure,
    SearchTerm,
)
from incidents.models.search import DOCUMENT_COUNT_TERM, SEARCH_INDEX_TABLE
from incidents.search.backend import facet_token
from incidents.search.terms import STOP_WORDS, split_words, stem

CHUNK = 1_000


@dataclass(frozen=True)
class SearchDocument:
    """A case's searchable text in the index's four columns (plain text, not yet stemmed)."""

    case_id: int
    title: str
    summary: str
    facets: str
    body: str
    tags: tuple[str, ...] = ()  # the tokens of its facet values (incidents.search.backend)

    def columns(self) -> tuple[str, str, str, str]:
        return (self.title, self.summary, self.facets, self.body)


def _chunks(ids: Sequence[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield list(ids[start : start + CHUNK])


def value_words() -> dict[int, str]:
    """Each facet value's name and aliases, as one text (two queries)."""
    words: dict[int, list[str]] = defaultdict(list)
    for value_id, name in FacetValue.objects.values_list("id", "name"):
        words[value_id].append(name)
    for value_id, text in FacetAlias.objects.values_list("value_id", "text"):
        words[value_id].append(text)
    return {value_id: " ; ".join(texts) for value_id, texts in words.items()}


def search_documents(case_ids: Sequence[int], value_words: dict[int, str]) -> list[SearchDocument]:
    """The searchable text of the given cases (a constant number of queries)."""
    facets: dict[int, list[str]] = defaultdict(list)
    tags: dict[int, list[str]] = defaultdict(list)
    for case_id, value_id in CaseFacetLink.objects.filter(case_id__in=case_ids).values_list(
        "case_id", "value_id"
    ):
        facets[case_id].append(value_words.get(value_id, ""))
        tags[case_id].append(facet_token(value_id))
    body: dict[int, list[str]] = defaultdict(list)
    for model in CASE_ITEM_LINKS.values():
        rows = model.objects.filter(case_id__in=case_ids).order_by("case_id", "position")
        for case_id, wording, item_text in rows.values_list("case_id", "wording", "item__text"):
            body[case_id].append(wording or item_text)
    figures = KeyFigure.objects.filter(case_id__in=case_ids).order_by("case_id", "position")
    for case_id, measures, unit in figures.values_list("case_id", "measures", "unit"):
        body[case_id].append(f"{measures} {unit}")
    costs = CostFigure.objects.filter(case_id__in=case_ids).exclude(scope="")
    for case_id, scope in costs.order_by("case_id", "position").values_list("case_id", "scope"):
        body[case_id].append(scope)
    cases = Case.objects.filter(id__in=case_ids).order_by("id")
    return [
        SearchDocument(
            case_id,
            title,
            summary,
            " ; ".join(facets[case_id]),
            " ; ".join([detection, *body[case_id]]),
            tuple(sorted(tags[case_id])),
        )
        for case_id, title, summary, detection in cases.values_list(
            "id", "title", "summary", "detection"
        )
    ]


def _stemmed(text: str, surface: dict[str, str]) -> list[str]:
    found = []
    for word in split_words(text):
        if word in STOP_WORDS:
            continue
        term = stem(word)
        if term not in surface or len(word) < len(surface[term]):
            surface[term] = word
        found.append(term)
    return found


def refresh_search_index(case_ids: Iterable[int] | None = None) -> int:
    """Rewrite the index rows of the given cases (default: every case); returns rows written."""
    with transaction.atomic():
        if case_ids is None:
            return _rebuild()
        ids = sorted(set(case_ids))
        old = _indexed_terms(ids)
        surface: dict[str, str] = {}
        new = _write(ids, value_words(), surface)
        delta: Counter[str] = Counter()
        for case_id in ids:
            delta.update(new.get(case_id, set()) - old.get(case_id, set()))
            delta.subtract(old.get(case_id, set()) - new.get(case_id, set()))
        _adjust_terms(delta, surface)
        return len(new)


def _rebuild() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {SEARCH_INDEX_TABLE}")
    SearchTerm.objects.all().delete()
    words = value_words()
    surface: dict[str, str] = {}
    counts: Counter[str] = Counter()
    written = 0
    for chunk in _chunks(list(Case.objects.order_by("id").values_list("id", flat=True))):
        new = _write(chunk, words, surface, replace=False)
        for terms in new.values():
            counts.update(terms)
        written += len(new)
    SearchTerm.objects.bulk_create(
        [SearchTerm(term=t, word=surface.get(t, ""), cases=n) for t, n in counts.items()]
        + [SearchTerm(term=DOCUMENT_COUNT_TERM, word="", cases=written)],
        batch_size=1_000,
    )
    if connection.vendor == "sqlite":
        # SQLite keeps no statistics unless asked; without them it counts facets over a search
        # by probing every value for every matching case (PostgreSQL's autovacuum analyzes).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return written


def _write(
    ids: list[int], words: dict[int, str], surface: dict[str, str], *, replace: bool = True
) -> dict[int, set[str]]:
    """Write the index rows of `ids` (chunked); the set of stems of each case written."""
    terms: dict[int, set[str]] = {}
    for chunk in _chunks(ids):
        rows: list[tuple[int | str, ...]] = []
        for document in search_documents(chunk, words):
            columns = [_stemmed(text, surface) for text in document.columns()]
            terms[document.case_id] = {t for column in columns for t in column}
            terms[document.case_id].update(document.tags)
            title, summary, facets, body = (" ".join(column) for column in columns)
            tags = " ".join(document.tags)
            if connection.vendor == "postgresql":
                rows.append((document.case_id, title, summary, f"{facets} {tags}", body))
            else:
                rows.append((document.case_id, title, summary, facets, body, tags))
        with connection.cursor() as cursor:
            if replace:
                placeholders = ", ".join(["%s"] * len(chunk))
                cursor.execute(
                    f"DELETE FROM {SEARCH_INDEX_TABLE} WHERE rowid IN ({placeholders})", chunk
                )
            if rows:
                cursor.executemany(_insert_sql(), rows)
    return terms


def _insert_sql() -> str:
    if connection.vendor == "postgresql":
        weighted = " || ".join(f"setweight(to_tsvector('simple', %s), '{w}')" for w in "ABCD")
        return f"INSERT INTO {SEARCH_INDEX_TABLE} (rowid, {SEARCH_INDEX_TABLE}) VALUES (%s, {weighted})"
    return (
        f"INSERT INTO {SEARCH_INDEX_TABLE} (rowid, title, summary, facets, body, tags) "
        "VALUES (%s, %s, %s, %s, %s, %s)"
    )


def _indexed_terms(ids: list[int]) -> dict[int, set[str]]:
    """The stems the index holds now for each of the given cases."""
    found: dict[int, set[str]] = {}
    if connection.vendor == "postgresql":
        sql = f"SELECT rowid, array_to_string(tsvector_to_array({SEARCH_INDEX_TABLE}), ' ') FROM {SEARCH_INDEX_TABLE} WHERE rowid IN (%s)"
    else:
        sql = f"SELECT rowid, title || ' ' || summary || ' ' || facets || ' ' || body || ' ' || tags FROM {SEARCH_INDEX_TABLE} WHERE rowid IN (%s)"
    with connection.cursor() as cursor:
        for chunk in _chunks(ids):
            cursor.execute(sql % ", ".join(["%s"] * len(chunk)), chunk)
            for case_id, text in cursor.fetchall():
                found[case_id] = set((text or "").split())
    return found


def _adjust_terms(delta: Counter[str], surface: dict[str, str]) -> None:
    changed = {t: n for t, n in delta.items() if n}
    existing = {t.term: t for t in SearchTerm.objects.filter(term__in=list(changed))}
    to_create = []
    for term, change in changed.items():
        if term in existing:
            existing[term].cases = max(0, existing[term].cases + change)
        elif change > 0:
            to_create.append(SearchTerm(term=term, word=surface.get(term, ""), cases=change))
    SearchTerm.objects.bulk_update(existing.values(), ["cases"], batch_size=1_000)
    SearchTerm.objects.bulk_create(to_create, batch_size=1_000)
    SearchTerm.objects.update_or_create(
        term=DOCUMENT_COUNT_TERM,
        defaults={"word": "", "cases": Case.objects.count()},
    )
