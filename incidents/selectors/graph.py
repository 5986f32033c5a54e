"""Reads for the graph view: the filtered cases and what they link to, in a constant number of queries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx
from django.http import QueryDict
from django.urls import reverse

from incidents import graph as g
from incidents.models import Case, CaseFacetLink, CaseLesson, CaseRemediation, Facet
from incidents.selectors.cases import filter_cases

# Organisations are a filter, not a cause; the graph shows what failed, why, and what helped.
GRAPH_FACETS = [Facet.ROOT_CAUSE, Facet.COMPONENT, Facet.SYMPTOM, Facet.CONTRIBUTING_FACTOR]
PARAM_OF: dict[str, str] = {
    Facet.ROOT_CAUSE: "root_cause",
    Facet.COMPONENT: "component",
    Facet.SYMPTOM: "symptom",
    Facet.CONTRIBUTING_FACTOR: "contributing_factor",
}


@dataclass
class GraphResult:
    graph: nx.Graph
    case_count: int
    errors: dict[str, list[str]]


def _value_url(facet: str, slug: str) -> str:
    return f"{reverse('incidents:case-list')}?{PARAM_OF[facet]}={slug}"


def case_graph(*, params: QueryDict | dict[str, Any] | None, min_cases: int = 1) -> GraphResult:
    """The graph of the cases the filters select (the same CaseFilterSet as every other page)."""
    filterset = filter_cases(params=params)
    filterset.is_valid()
    errors = {name: [str(e) for e in errs] for name, errs in filterset.errors.items()}
    cases = filterset.filter_queryset_without(Case.objects.all(), skip="")
    rows = list(cases.values_list("id", "slug", "title"))
    nodes: dict[int, g.CaseNode] = {
        case_id: g.CaseNode(slug, title, reverse("incidents:case-detail", args=[slug]))
        for case_id, slug, title in rows
    }
    ids = list(nodes)
    for link in CaseFacetLink.objects.filter(
        case_id__in=ids, direct=True, value__facet__in=GRAPH_FACETS
    ).select_related("value"):
        value = link.value
        nodes[link.case_id].links.append(
            g.Linked(value.facet, value.slug, value.name, _value_url(value.facet, value.slug))
        )
    for model, kind in ((CaseRemediation, "remediation"), (CaseLesson, "lesson")):
        for item_link in model.objects.filter(case_id__in=ids).select_related("item"):
            nodes[item_link.case_id].links.append(
                g.Linked(kind, item_link.item.slug, item_link.item.text)
            )
    graph = g.build_graph(nodes.values(), min_cases=min_cases)
    g.annotate_centrality(graph)
    return GraphResult(graph, len(rows), errors)
