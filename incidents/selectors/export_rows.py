"""Reading a whole filtered set for an export: in chunks, each chunk with its prefetches."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Prefetch
from django.db.models import QuerySet

from incidents.models import Case
from incidents.models import Source
from incidents.selectors.cases import with_facet_values
from incidents.selectors.prefetch import prefetched

# Cases read (and prefetched) at a time: memory stays flat whatever the library's size.
CHUNK = 500


def export_cases(queryset: QuerySet[Case]) -> Iterator[Case]:
    """The cases with their own facet values and their sources (`case_sources`), read CHUNK at a
    time, in the queryset's order."""
    sources = Prefetch(
        "sources", queryset=Source.objects.order_by("position"), to_attr="source_list"
    )
    return with_facet_values(queryset).prefetch_related(sources).iterator(CHUNK)


def case_sources(case: Case) -> list[Any]:
    """A case's sources as `export_cases` prefetched them; raises MissingPrefetch otherwise."""
    return prefetched(case, "source_list")
