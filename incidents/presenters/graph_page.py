"""What the graph view shows: nodes linked to their pages, the hub tables, the data URL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import reverse

from incidents import facets
from incidents import graph as g
from incidents.facets import FAILURE_FACETS
from incidents.presenters.query_state import QueryState, value_link
from incidents.selectors.graph import GraphResult
from incidents.selectors.parameters import filter_problems, messages

DEFAULT_MIN_CASES = 1


def link_nodes(result: GraphResult) -> None:
    """A case node links to its card, a facet value to the library filtered by it."""

    def url_of(kind: str, slug: str) -> str:
        if kind == "case":
            return reverse("incidents:case-detail", args=[slug])
        if kind in facets.BY_FACET:
            value = result.query.vocabulary.get(kind, slug)
            return value_link(value) if value else ""
        return ""  # remediations and lessons have no page of their own

    g.set_urls(result.graph, url_of)


def data_url(state: QueryState, min_cases: int) -> str:
    """The Cytoscape elements of the same cases and options."""
    return (
        state.on("incidents:graph-data")
        .with_option("min_cases", str(min_cases), default=str(DEFAULT_MIN_CASES))
        .href()
    )


def context(
    result: GraphResult, params: Mapping[str, Any], min_cases: int, min_cases_error: str | None
) -> dict[str, Any]:
    """Everything the graph page's template shows."""
    link_nodes(result)
    state = QueryState.of(result.query.filterset, params)
    return {
        "result": result,
        "state": state,
        "errors": messages(filter_problems(params, result.errors, result.query.vocabulary)),
        "min_cases_error": min_cases_error,
        "min_cases": min_cases,
        "data_url": data_url(state, min_cases),
        "node_kinds": g.NODE_KINDS,
        "remedies": g.shared_hubs(result.graph, kinds=["remediation", "lesson"], limit=12),
        "bridges": g.shared_hubs(
            result.graph, kinds=[spec.facet for spec in FAILURE_FACETS], limit=12
        ),
        "node_count": result.graph.number_of_nodes(),
        "edge_count": result.graph.number_of_edges(),
    }
