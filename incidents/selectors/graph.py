"""Reads for the graph view: the filtered cases and what they link to, in a constant number of
queries. Only the registry's failure facets are drawn: the graph shows what failed, why, and what
helped; organisations filter it. Links to pages are the presenter's (incidents.presenters.graph_page).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from incidents import graph as g
from incidents.facets import FAILURE_FACETS
from incidents.models import CaseFacetLink, CaseLesson, CaseRemediation
from incidents.selectors.cases import CaseQuery, Params, case_queryset


@dataclass
class GraphResult:
    query: CaseQuery
    graph: nx.Graph
    case_count: int

    @property
    def errors(self) -> dict[str, list[str]]:
        return self.query.errors


def case_graph(*, params: Params, min_cases: int = 1) -> GraphResult:
    """The graph of the cases the filters select (through `case_queryset`, as every page)."""
    query = case_queryset(params=params)
    rows = list(query.queryset.values_list("id", "slug", "title"))
    nodes: dict[int, g.CaseNode] = {
        case_id: g.CaseNode(slug, title) for case_id, slug, title in rows
    }
    ids = list(nodes)
    for link in CaseFacetLink.objects.filter(
        case_id__in=ids, direct=True, value__facet__in=[spec.facet for spec in FAILURE_FACETS]
    ).select_related("value"):
        value = link.value
        nodes[link.case_id].links.append(g.Linked(value.facet, value.slug, value.name))
    for model, kind in ((CaseRemediation, "remediation"), (CaseLesson, "lesson")):
        for item_link in model.objects.filter(case_id__in=ids).select_related("item"):
            nodes[item_link.case_id].links.append(
                g.Linked(kind, item_link.item.slug, item_link.item.text)
            )
    graph = g.build_graph(nodes.values(), min_cases=min_cases)
    g.annotate_centrality(graph)
    return GraphResult(query, graph, len(rows))
