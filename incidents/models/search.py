"""The text search index: one row per case, and how many cases hold each word.

`SearchIndex` is the index itself, written by `incidents.services.search_index` and created by
migration 0005 per database: on SQLite an FTS5 table (columns title, summary, facets, body); on
PostgreSQL a table of one weighted `tsvector` per case (A title, B summary, C facet value names,
D the rest) with a GIN index. Both hold the stems of `incidents.search.terms`, so both match
alike. `SearchTerm` counts the cases holding each stem, for the rarity of a word (ranking, which
words of a long query to keep) and for "did you mean", and lists them (`postings`, a compressed
bitmap of case ids): a search reads the cases it matches from there, for its count, the facet
counts and the candidates it ranks, without reading every matching document.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import Lookup

from incidents.models.library import Case

SEARCH_INDEX_TABLE = "incidents_searchindex"
# The SearchTerm row whose `cases` counts the indexed cases.
DOCUMENT_COUNT_TERM = ""


class SearchDocumentField(models.TextField):  # type: ignore[type-arg]
    """A case's whole search document: FTS5's hidden column on SQLite, a tsvector on PostgreSQL."""


@SearchDocumentField.register_lookup
class Matches(Lookup[Any]):
    """`document__matches=<query>`: the document holds the query (FTS5 MATCH or tsquery @@).

    The right-hand side is the query already written for the database in use
    (`incidents.search.backend`).
    """

    lookup_name = "matches"

    def as_sql(self, compiler: Any, connection: Any) -> Any:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        if connection.vendor == "postgresql":
            return f"{lhs} @@ to_tsquery('simple', {rhs})", [*lhs_params, *rhs_params]
        return f"{lhs} MATCH {rhs}", [*lhs_params, *rhs_params]


class SearchIndex(models.Model):
    """A case's searchable text (stems), one row per case; see the module docstring."""

    case = models.OneToOneField(
        Case,
        primary_key=True,
        db_column="rowid",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="search_index",
    )
    document = SearchDocumentField(db_column=SEARCH_INDEX_TABLE)

    class Meta:
        managed = False
        db_table = SEARCH_INDEX_TABLE

    def __str__(self) -> str:
        return f"search index of case {self.pk}"


class SearchTerm(models.Model):
    """A stem of the index, how many cases hold it, and a word it was written as."""

    term = models.CharField(max_length=100, unique=True)
    word = models.CharField(max_length=100)
    cases = models.PositiveIntegerField(default=0)
    # The ids of the cases holding it: a serialized roaring bitmap (incidents.search.postings);
    # of those, the cases holding it in their title, and in their summary or facet value names
    # (how much it can weigh in a case's rank, for ranking only the cases that can come first).
    postings = models.BinaryField(default=b"", editable=False)
    title_postings = models.BinaryField(default=b"", editable=False)
    summary_postings = models.BinaryField(default=b"", editable=False)

    class Meta:
        ordering = ["term"]

    def __str__(self) -> str:
        return f"{self.term} ({self.cases})"
