"""Weighted projections of the case graph: two nodes linked by how many cases share both.

The case graph is bipartite (cases on one side, values, remediations and lessons on the other);
projecting it onto the nodes a view draws gives the edges the view weighs. This is what
`networkx.bipartite.weighted_projected_graph(B, nodes)` computes (tests/test_graph.py checks
it against networkx); counting each case's pairs once is linear in the cases, where networkx
intersects the neighbour sets of every pair of nodes, which took seconds at 10,000 cases.

networkx is imported in the functions that build graphs, so that start-up (every `manage.py`
command, every worker) does not pay its 0.1 s; production warms it (incidents.config.warmup).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from collections.abc import Iterable
from itertools import combinations
from typing import TYPE_CHECKING

from incidents.graph.kinds import NodeKey

if TYPE_CHECKING:
    import networkx as nx


def weighted_projection(
    case_items: Iterable[Collection[NodeKey]], nodes: Collection[NodeKey]
) -> nx.Graph:
    """A graph of `nodes` where an edge's `weight` is the number of cases linking to both ends
    (each of `case_items` is what one case links to)."""
    import networkx as nx  # here, not at start-up: only the graph pages need it

    wanted = set(nodes)
    pairs: Counter[tuple[NodeKey, NodeKey]] = Counter()
    for items in case_items:
        kept = sorted(wanted.intersection(items))
        pairs.update(combinations(kept, 2))
    graph = nx.Graph()
    graph.add_nodes_from(sorted(wanted))
    graph.add_weighted_edges_from((a, b, w) for (a, b), w in pairs.items())
    return graph


def backbone(graph: nx.Graph, nodes: Collection[NodeKey], *, per_node: int = 4) -> nx.Graph:
    """The projection among `nodes`, keeping each node's `per_node` heaviest edges (ties broken
    by node order): the links that carry most cases, on which bridging is measured. A plain
    graph (not a subgraph view), so that algorithms on it run at full speed."""
    import networkx as nx

    wanted = set(nodes)
    kept = nx.Graph()
    kept.add_nodes_from(sorted(wanted))
    for node in sorted(wanted):
        heaviest = sorted(
            ((other, data["weight"]) for other, data in graph.adj[node].items() if other in wanted),
            key=lambda item: (-item[1], item[0]),
        )
        for other, weight in heaviest[:per_node]:
            kept.add_edge(node, other, weight=weight)
    return kept


def bridging(graph: nx.Graph, nodes: Collection[NodeKey]) -> dict[NodeKey, float]:
    """Betweenness of each of `nodes` on the projection's backbone among them: how often a node
    lies on the shortest paths, along the links that carry most cases, between two others."""
    if len(nodes) < 3:
        return dict.fromkeys(nodes, 0.0)
    import networkx as nx

    scores = nx.betweenness_centrality(backbone(graph, nodes))
    return {node: round(score, 4) for node, score in scores.items()}
