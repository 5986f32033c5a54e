"""What a case page shows: the card's facet rows, numbered sources, figures citing them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from incidents.facets import FACETS
from incidents.facets import FacetSpec
from incidents.models import Case
from incidents.models import FacetValue
from incidents.models import Source
from incidents.presenters.breakdown_tables import table_view
from incidents.presenters.query_state import QueryState
from incidents.selectors.cases import values_by_facet
from incidents.selectors.prefetch import prefetched


@dataclass(frozen=True)
class NumberedSource:
    """A source with its number on the page and where to find an archived copy."""

    number: int
    source: Source
    archive_lookup: str  # the Internet Archive's captures, when the library holds no archived copy


@dataclass(frozen=True)
class FacetRow:
    """One facet of the card and the case's values of it."""

    spec: FacetSpec
    values: list[FacetValue]


def wayback_lookup_url(url: str) -> str:
    """The Internet Archive's list of captures of a URL (it may hold none)."""
    return f"https://web.archive.org/web/*/{url}"


def context(case: Case) -> dict[str, Any]:
    """The card of a case fetched by `case_detail` (every relation it shows prefetched)."""
    sources = [
        NumberedSource(index, source, "" if source.archived_url else wayback_lookup_url(source.url))
        for index, source in enumerate(prefetched(case, "sources"), start=1)
    ]
    number_of = {s.source.url: s.number for s in sources}
    values = values_by_facet(case)
    return {
        "case": case,
        # The graph focused on this case: its values, remediations and lessons, and who shares them.
        "graph_url": QueryState()
        .on("incidents:graph")
        .with_option("focus", f"case:{case.slug}")
        .href(),
        # Who reported it goes in the meta line; the card's rows say what failed and why.
        "meta_values": [v for spec in FACETS if not spec.failure for v in values[spec.facet]],
        "facet_rows": [FacetRow(spec, values[spec.facet]) for spec in FACETS if spec.failure],
        "remediations": prefetched(case, "remediation_links"),
        "action_items": prefetched(case, "action_item_links"),
        "lessons": prefetched(case, "lesson_links"),
        "sources": sources,
        # The library records an archived copy for few sources (README): the card says how many.
        "sources_archived": sum(1 for s in sources if s.source.archived_url),
        "figures": [(f, number_of.get(f.source_url)) for f in prefetched(case, "key_figures")],
        "costs": [(c, number_of.get(c.source_url)) for c in prefetched(case, "costs")],
        "breakdowns": [
            table_view(b, number_of.get(b.source_url)) for b in prefetched(case, "breakdowns")
        ],
    }
