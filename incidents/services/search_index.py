"""Keeping the text search index in step with the cases: `refresh_search_index(case_ids)`.

Every write path calls it after writing cases: the loader (and so a submission) and the admin.
A case's searchable text is its title; its summary; the names and aliases of its facet values
(implied ancestors included, so "hardware" finds a case tagged "GPU hardware"); and the rest a
reader sees: detection, remediation, action item and lesson wording, key figure labels and cost
scopes; and the tokens of its facet values, for facet-aware ranking. The index holds stems
(`incidents.search.terms`), and `SearchTerm` counts and lists (postings) the cases holding each
stem. A refresh of some cases costs a constant number of queries per 1,000 cases.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field

from django.db import connection
from django.db import transaction
from pyroaring import BitMap

from incidents.models import CASE_ITEM_LINKS
from incidents.models import Case
from incidents.models import CaseFacetLink
from incidents.models import CostFigure
from incidents.models import FacetAlias
from incidents.models import FacetValue
from incidents.models import KeyFigure
from incidents.models import SearchTerm
from incidents.models.search import DOCUMENT_COUNT_TERM
from incidents.models.search import SEARCH_INDEX_TABLE
from incidents.search import postings
from incidents.search.backend import facet_token
from incidents.search.terms import STOP_WORDS
from incidents.search.terms import split_words
from incidents.search.terms import stem

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


@dataclass
class Holding:
    """The cases holding each term: anywhere, in the title, in the summary or facet names."""

    cases: dict[str, BitMap] = field(default_factory=dict)
    title: dict[str, BitMap] = field(default_factory=dict)
    summary: dict[str, BitMap] = field(default_factory=dict)

    def add(self, case_id: int, terms: CaseTerms) -> None:
        for found, held in ((self.cases, terms.all), (self.title, terms.title)):
            for term in held:
                found.setdefault(term, BitMap()).add(case_id)
        for term in terms.summary:
            self.summary.setdefault(term, BitMap()).add(case_id)


@dataclass(frozen=True)
class CaseTerms:
    """The stems a case's index row holds: all of them, those of its title, of its summary or
    facet value names."""

    all: frozenset[str]
    title: frozenset[str]
    summary: frozenset[str]


def refresh_search_index(case_ids: Iterable[int] | None = None) -> int:
    """Rewrite the index rows of the given cases (default: every case); returns rows written."""
    with transaction.atomic():
        if case_ids is None:
            return _rebuild()
        ids = sorted(set(case_ids))
        old = _indexed_terms(ids)
        surface: dict[str, str] = {}
        new = _write(ids, value_words(), surface)
        holding = Holding()
        for case_id, terms in new.items():
            holding.add(case_id, terms)
        affected = set(holding.cases).union(*old.values())
        _adjust_terms(BitMap(ids), holding, affected, surface)
        return len(new)


def _rebuild() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {SEARCH_INDEX_TABLE}")
    SearchTerm.objects.all().delete()
    words = value_words()
    surface: dict[str, str] = {}
    holding = Holding()
    written = 0
    for chunk in _chunks(list(Case.objects.order_by("id").values_list("id", flat=True))):
        new = _write(chunk, words, surface, replace=False)
        for case_id, terms in new.items():
            holding.add(case_id, terms)
        written += len(new)
    SearchTerm.objects.bulk_create(
        [_term_row(term, surface.get(term, ""), holding) for term in holding.cases]
        + [SearchTerm(term=DOCUMENT_COUNT_TERM, word="", cases=written)],
        batch_size=1_000,
    )
    if connection.vendor == "sqlite":
        # SQLite keeps no statistics unless asked; without them it counts facets over a search
        # by probing every value for every matching case (PostgreSQL's autovacuum analyzes).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return written


def _term_row(term: str, word: str, holding: Holding) -> SearchTerm:
    cases = holding.cases[term]
    return SearchTerm(
        term=term,
        word=word,
        cases=len(cases),
        postings=postings.encode(cases),
        title_postings=postings.encode(holding.title.get(term, BitMap())),
        summary_postings=postings.encode(holding.summary.get(term, BitMap())),
    )


def _write(
    ids: list[int], words: dict[int, str], surface: dict[str, str], *, replace: bool = True
) -> dict[int, CaseTerms]:
    """Write the index rows of `ids` (chunked); the stems of each case written."""
    terms: dict[int, CaseTerms] = {}
    for chunk in _chunks(ids):
        rows: list[tuple[int | str, ...]] = []
        for document in search_documents(chunk, words):
            columns = [_stemmed(text, surface) for text in document.columns()]
            terms[document.case_id] = CaseTerms(
                frozenset({t for column in columns for t in column}.union(document.tags)),
                frozenset(columns[0]),
                frozenset(columns[1] + columns[2]),
            )
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


def _adjust_terms(
    ids: BitMap, holding: Holding, affected: set[str], surface: dict[str, str]
) -> None:
    """Rewrite the postings (and counts) of the terms the cases `ids` held or hold: those cases
    taken out, then put back where `holding` has them."""
    rows = SearchTerm.objects.filter(term__in=sorted(affected))
    if connection.vendor == "postgresql":
        rows = rows.select_for_update()  # two writers must not lose each other's cases
    existing = {t.term: t for t in rows}
    to_create = []
    for term in sorted(affected):
        row = existing.get(term)
        if row is None:
            if term in holding.cases:
                to_create.append(_term_row(term, surface.get(term, ""), holding))
            continue
        updated = []
        for stored, new in (
            (row.postings, holding.cases),
            (row.title_postings, holding.title),
            (row.summary_postings, holding.summary),
        ):
            cases = postings.decode(stored) - ids
            cases |= new.get(term, BitMap())
            updated.append(postings.encode(cases))
        row.postings, row.title_postings, row.summary_postings = updated
        row.cases = len(postings.decode(row.postings))
    SearchTerm.objects.bulk_update(
        existing.values(),
        ["cases", "postings", "title_postings", "summary_postings"],
        batch_size=1_000,
    )
    SearchTerm.objects.bulk_create(to_create, batch_size=1_000)
    SearchTerm.objects.update_or_create(
        term=DOCUMENT_COUNT_TERM,
        defaults={"word": "", "cases": Case.objects.count()},
    )
