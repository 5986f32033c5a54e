"""What a facet value's page shows besides what its selector read: case rows and page links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from incidents.facets import FACETS
from incidents.models import Case
from incidents.presenters.query_state import QueryState
from incidents.selectors.browse import ValuePage
from incidents.selectors.cases import values_by_facet


@dataclass(frozen=True)
class ListedCase:
    """A case of the value, with who reported it (the values of the non-failure facets)."""

    case: Case
    reported_by: list[str]


def value_context(page: ValuePage) -> dict[str, Any]:
    """The page of one facet value: its cases (newest first) with their organisations."""
    cases = page.cases
    rows = []
    for case in cases.object_list:
        values = values_by_facet(case)
        names = [v.name for spec in FACETS if not spec.failure for v in values[spec.facet]]
        rows.append(ListedCase(case, names))
    return {
        "spec": page.spec,
        "page": page,
        "rows": rows,
        "prev_url": (
            QueryState(page=cases.previous_page_number()).href() if cases.has_previous() else ""
        ),
        "next_url": QueryState(page=cases.next_page_number()).href() if cases.has_next() else "",
    }
