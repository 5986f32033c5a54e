"""The library as a graph: cases linked to causes, components, symptoms, contributing factors,
and to the remediations and lessons that many cases share.

Pure networkx: it takes plain data and returns plain data; no ORM and no URLs here (the
selector reads the data, the presenter links nodes to pages). Layout happens in the browser, so
nothing here needs numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from incidents.facets import FAILURE_FACETS

# Every kind of node with its label: cases, the failure facets' values, and shared items.
NODE_KINDS: dict[str, str] = {
    "case": "Case",
    **{spec.facet: spec.label for spec in FAILURE_FACETS},
    "remediation": "Remediation",
    "lesson": "Lesson",
}


@dataclass(frozen=True)
class Linked:
    """Something a case links to: a facet value, a remediation or a lesson."""

    kind: str  # a key of NODE_KINDS other than "case"
    slug: str
    label: str


@dataclass
class CaseNode:
    slug: str
    title: str
    links: list[Linked] = field(default_factory=list)


def node_id(kind: str, slug: str) -> str:
    return f"{kind}:{slug}"


def build_graph(cases: Iterable[CaseNode], *, min_cases: int = 1) -> nx.Graph:
    """A bipartite graph: case nodes on one side, everything they link to on the other.

    Nodes linked to fewer than `min_cases` cases are left out (to show only what cases share).
    Every node carries `kind`, `slug`, `label`, `cases` (how many cases link to it; 1 for a
    case) and an empty `url` that `set_urls` fills in.
    """
    graph = nx.Graph()
    for case in cases:
        case_id = node_id("case", case.slug)
        graph.add_node(case_id, kind="case", slug=case.slug, label=case.title, url="", cases=1)
        for item in case.links:
            if item.kind not in NODE_KINDS or item.kind == "case":
                raise ValueError(f"unknown node kind {item.kind!r}")
            item_id = node_id(item.kind, item.slug)
            if item_id not in graph:
                graph.add_node(
                    item_id, kind=item.kind, slug=item.slug, label=item.label, url="", cases=0
                )
            if not graph.has_edge(case_id, item_id):
                graph.add_edge(case_id, item_id)
                graph.nodes[item_id]["cases"] += 1
    if min_cases > 1:
        sparse = [
            n for n, d in graph.nodes(data=True) if d["kind"] != "case" and d["cases"] < min_cases
        ]
        graph.remove_nodes_from(sparse)
    return graph


def set_urls(graph: nx.Graph, url_of: Callable[[str, str], str]) -> None:
    """Give every node the URL `url_of(kind, slug)` returns ("" for a node without a page)."""
    for _node, data in graph.nodes(data=True):
        data["url"] = url_of(data["kind"], data["slug"])


def annotate_centrality(graph: nx.Graph) -> None:
    """Add `centrality` (normalised betweenness) to every node: how much a node bridges cases."""
    scores = nx.betweenness_centrality(graph) if graph.number_of_nodes() > 2 else {}
    for node in graph.nodes:
        graph.nodes[node]["centrality"] = round(scores.get(node, 0.0), 4)


@dataclass(frozen=True)
class Hub:
    """A node many cases share, for the accessible table beside the drawing."""

    kind: str
    slug: str
    label: str
    url: str
    cases: int
    centrality: float

    @property
    def kind_label(self) -> str:
        return NODE_KINDS[self.kind]


def shared_hubs(graph: nx.Graph, *, kinds: Iterable[str], limit: int = 10) -> list[Hub]:
    """The most shared nodes of the given kinds: most cases first, then most bridging."""
    wanted = set(kinds)
    hubs = [
        Hub(d["kind"], d["slug"], d["label"], d["url"], d["cases"], d.get("centrality", 0.0))
        for _n, d in graph.nodes(data=True)
        if d["kind"] in wanted and d["cases"] >= 2
    ]
    hubs.sort(key=lambda h: (-h.cases, -h.centrality, h.label))
    return hubs[:limit]


def to_cytoscape(graph: nx.Graph) -> dict[str, Any]:
    """Cytoscape.js elements ({"nodes": [...], "edges": [...]}) in a stable order."""
    elements = nx.cytoscape_data(graph)["elements"]
    elements["nodes"].sort(key=lambda n: n["data"]["id"])
    elements["edges"].sort(key=lambda e: (e["data"]["source"], e["data"]["target"]))
    return dict(elements)
