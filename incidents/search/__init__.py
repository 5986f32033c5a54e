"""Text search over cases, the same on SQLite and PostgreSQL.

`TextSearch(text)` (`incidents.search.plan`) plans a search (query syntax in
`incidents.search.query`, stems in `incidents.search.terms`, the database's own syntax in
`incidents.search.backend`, the cases of each word in `incidents.search.matches`, the first page by
MaxScore in `incidents.search.candidates` with the bounds of `incidents.search.bounds`, did you
mean in `incidents.search.correct`) and ranks a case queryset; `CaseFilterSet` applies it for `q`, and nothing else should. The index it reads is
kept in step by `incidents.services.search_index`.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from incidents.models import Case
from incidents.models import FacetValue
from incidents.search.correct import Correction
from incidents.search.plan import TextSearch
from incidents.search.query import ParsedQuery
from incidents.search.query import parse_query

__all__ = ["Correction", "ParsedQuery", "TextSearch", "parse_query", "search_cases"]


def search_cases(
    queryset: QuerySet[Case], text: str, *, values: Iterable[FacetValue] | None = None
) -> QuerySet[Case]:
    """Cases matching `text`, best match first, then newest; the queryset unchanged for blank
    text, and no case for text with no word to search (TextSearch.apply)."""
    return TextSearch(text, values=values).apply(queryset)
