"""Reads of failure breakdowns: a case's tables, or the tables of some cases.

Rows and the facet values they map to are prefetched, so a page reads any number of tables in a
fixed number of queries. (The API's filtered list is `breakdown_list`.)
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.db.models import QuerySet

from incidents.models import Breakdown
from incidents.models import BreakdownRow
from incidents.models import BreakdownRowValue
from incidents.selectors.prefetch import prefetched


def rows_prefetch() -> Prefetch[Any]:
    """A table's rows in order, each with the facet values it maps to."""
    return Prefetch(
        "rows",
        queryset=BreakdownRow.objects.order_by("position").prefetch_related(
            Prefetch(
                "value_links",
                queryset=BreakdownRowValue.objects.select_related("value").order_by(
                    "value__facet", "value__name"
                ),
            )
        ),
    )


def breakdowns_prefetch() -> Prefetch[Any]:
    """A case's breakdown tables in file order, rows and values included (for the case card)."""
    return Prefetch(
        "breakdowns",
        queryset=Breakdown.objects.order_by("position").prefetch_related(rows_prefetch()),
    )


def breakdowns_of(cases: QuerySet[Any]) -> QuerySet[Breakdown]:
    """The tables of the given cases, each with its case, its rows and their facet values."""
    return (
        Breakdown.objects.filter(case__in=cases.order_by().values("id"))
        .select_related("case")
        .prefetch_related(rows_prefetch())
        .order_by("case__slug", "position")
    )


def row_values(row: BreakdownRow) -> list[Any]:
    """The facet values a row maps to; raises MissingPrefetch if they were not prefetched."""
    return [link.value for link in prefetched(row, "value_links")]
