"""The overview: the most shared values, remediations and lessons, at most `budget` nodes.

Facet values are drawn at the top level of their trees (a node stands for its value and every
narrower one); expanding a value draws its narrower values under it. Columns read from why to
what helped: causes, components, symptoms, then remediations and lessons. Each column keeps its
most shared nodes; whatever does not fit is counted as hidden and reachable by expanding or by
focusing on a node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from incidents.facets import BY_FACET
from incidents.graph.kinds import LESSON
from incidents.graph.kinds import NODE_PLURALS
from incidents.graph.kinds import REMEDIATION
from incidents.graph.kinds import NodeKey
from incidents.graph.links import CaseLinks
from incidents.graph.links import ValueTree
from incidents.graph.picture import Picture
from incidents.graph.picture import PictureColumn
from incidents.graph.picture import PictureEdge
from incidents.graph.picture import PictureNode
from incidents.graph.projection import bridging
from incidents.graph.projection import weighted_projection

if TYPE_CHECKING:  # networkx is imported where a projection is built (incidents.graph.projection)
    import networkx as nx

DEFAULT_BUDGET = 60
# Edges drawn between two neighbouring columns, heaviest first.
EDGES_PER_COLUMN_PAIR = 40
ROOT_CAUSE, CONTRIBUTING, COMPONENT, SYMPTOM = (
    "root_cause",
    "contributing_factor",
    "component",
    "symptom",
)
# Every kind the overview can draw, in column order; contributing factors only when asked for.
COLUMN_KINDS: tuple[tuple[str, ...], ...] = (
    (ROOT_CAUSE, CONTRIBUTING),
    (COMPONENT,),
    (SYMPTOM,),
    (REMEDIATION, LESSON),
)
DEFAULT_KINDS: tuple[str, ...] = (ROOT_CAUSE, COMPONENT, SYMPTOM, REMEDIATION, LESSON)
SHOWABLE_KINDS: tuple[str, ...] = (
    ROOT_CAUSE,
    CONTRIBUTING,
    COMPONENT,
    SYMPTOM,
    REMEDIATION,
    LESSON,
)


def column_title(kinds: Sequence[str]) -> str:
    names = [NODE_PLURALS[k] for k in kinds]
    return names[0] if len(names) == 1 else f"{names[0]} and {names[1].lower()}"


@dataclass
class OverviewTables:
    """The overview's content as tables: remediations by root cause, the most shared lessons
    and the values that bridge the most."""

    matrix_rows: list[NodeKey]  # remediations
    matrix_columns: list[NodeKey]  # root causes (top level, or as expanded)
    matrix: dict[tuple[NodeKey, NodeKey], int]
    lessons: list[tuple[NodeKey, int]]
    counts: Counter[NodeKey]
    projection: nx.Graph
    drawn: list[NodeKey]

    def bridges(self, limit: int = 12) -> list[tuple[NodeKey, int, float]]:
        """The drawn values shared by two cases or more, by how much they bridge (betweenness
        on the backbone of the drawn nodes' projection), then by cases: (value, cases, score).
        Computed when asked for: the page's table needs it, the JSON does not."""
        scores = bridging(self.projection, self.drawn)
        values = [k for k in self.drawn if k[0] in BY_FACET and self.counts[k] >= 2]
        ranked = sorted(
            ((k, self.counts[k], scores.get(k, 0.0)) for k in values),
            key=lambda item: (-item[2], -item[1], item[0]),
        )
        return ranked[:limit]


def visible_values(
    tree: ValueTree, roots: Collection[int], expand: Collection[int]
) -> dict[int, int]:
    """The value ids drawn, each with its depth: the roots, and the children of every expanded
    value that is itself drawn."""
    drawn: dict[int, int] = {}

    def walk(value_id: int, depth: int) -> None:
        drawn[value_id] = depth
        if value_id in expand:
            for child in tree.children(value_id):
                walk(child, depth + 1)

    for root in sorted(roots):
        walk(root, 0)
    return drawn


def _shares(total: int, wanted: Sequence[int]) -> list[int]:
    """Split `total` slots between groups wanting `wanted` each: equal shares, and what a group
    leaves unused goes to the others in order (deterministic)."""
    shares = [0] * len(wanted)
    left = total
    while left > 0:
        hungry = [i for i, w in enumerate(wanted) if shares[i] < w]
        if not hungry:
            break
        each = max(1, left // len(hungry))
        for i in hungry:
            give = min(each, wanted[i] - shares[i], left)
            shares[i] += give
            left -= give
            if left == 0:
                break
    return shares


def _ranked(keys: Collection[NodeKey], counts: Counter[NodeKey]) -> list[NodeKey]:
    return sorted((k for k in keys if counts[k]), key=lambda k: (-counts[k], k))


def _tree_order(nodes: list[PictureNode], tree: ValueTree) -> list[PictureNode]:
    """Kept nodes with each expanded value's children right under it, most shared first."""
    by_id = {n.key[1]: n for n in nodes if n.key[0] in BY_FACET}
    others = [n for n in nodes if n.key[0] not in BY_FACET]
    ordered: list[PictureNode] = []

    def place(node: PictureNode) -> None:
        ordered.append(node)
        children = [by_id[c] for c in tree.children(node.key[1]) if c in by_id]
        for child in sorted(children, key=lambda n: (-n.cases, n.key)):
            place(child)

    tops = [n for n in by_id.values() if tree.parent.get(n.key[1]) not in by_id]
    for node in sorted(tops, key=lambda n: (-n.cases, n.key)):
        place(node)
    return ordered + others


def overview(
    links: CaseLinks,
    tree: ValueTree,
    *,
    roots_by_kind: dict[str, list[int]],
    shared_items: dict[str, list[int]],
    kinds: Sequence[str] = DEFAULT_KINDS,
    expand: Collection[int] = (),
    budget: int = DEFAULT_BUDGET,
) -> tuple[Picture, OverviewTables]:
    """The overview of the cases in `links`: columns of the kinds asked for, at most `budget`
    nodes, and its tables.

    `roots_by_kind` lists each facet's
    top-level value ids, `shared_items` the remediation and lesson ids that any case links to.
    """
    counts = links.counts()
    drawn_values = {
        kind: visible_values(tree, roots_by_kind.get(kind, []), expand) for kind in roots_by_kind
    }
    depth: dict[NodeKey, int] = {
        (kind, v): d for kind, values in drawn_values.items() for v, d in values.items()
    }
    candidates: dict[str, list[NodeKey]] = {
        kind: _ranked([(kind, v) for v in drawn_values.get(kind, {})], counts)
        for kind in roots_by_kind
    }
    for kind, ids in shared_items.items():
        candidates[kind] = _ranked([(kind, i) for i in ids], counts)

    groups = [tuple(k for k in column if k in kinds) for column in COLUMN_KINDS]
    groups = [g for g in groups if g]
    column_wants = [sum(len(candidates.get(k, [])) for k in g) for g in groups]
    column_slots = _shares(budget, column_wants)
    columns: list[PictureColumn] = []
    for group, slots in zip(groups, column_slots, strict=True):
        wants = [len(candidates.get(k, [])) for k in group]
        kept: list[PictureNode] = []
        for kind, share in zip(group, _shares(slots, wants), strict=True):
            chosen = _prioritised(candidates.get(kind, []), expand, tree)[:share]
            kept.extend(
                PictureNode(
                    key,
                    counts[key],
                    depth=depth.get(key, 0),
                    expandable=key[0] in BY_FACET
                    and any(counts[(key[0], c)] for c in tree.children(key[1])),
                    expanded=key[0] in BY_FACET and key[1] in expand,
                )
                for key in chosen
            )
        value_nodes = [n for n in kept if n.key[0] in BY_FACET]
        shared_nodes = [n for n in kept if n.key[0] not in BY_FACET]
        columns.append(
            PictureColumn(
                column_title(group),
                group,
                _tree_order(value_nodes, tree) + shared_nodes,
                hidden=sum(wants) - len(kept),
            )
        )
    picture = Picture(columns, [], cases=len(links.case_ids))
    tables = _tables(links, counts, candidates, picture)
    picture.edges = _edges(picture, tables.projection)
    return picture, tables


def _prioritised(ranked: list[NodeKey], expand: Collection[int], tree: ValueTree) -> list[NodeKey]:
    """Expanded values and their children before the rest, so that expanding always shows."""
    wanted = set(expand)
    opened = [k for k in ranked if k[1] in wanted or (tree.parent.get(k[1]) in wanted)]
    return opened + [k for k in ranked if k not in opened]


def _tables(
    links: CaseLinks,
    counts: Counter[NodeKey],
    candidates: dict[str, list[NodeKey]],
    picture: Picture,
) -> OverviewTables:
    drawn = picture.keys()
    rows = candidates.get(REMEDIATION, [])[:12]
    matrix_columns = candidates.get(ROOT_CAUSE, [])[:10]
    lessons = candidates.get(LESSON, [])[:12]
    projected = set(drawn) | set(rows) | set(matrix_columns)
    projection = weighted_projection((links.of(c) for c in links.case_ids), projected)
    matrix = {
        (r, c): int(projection[r][c]["weight"]) if projection.has_edge(r, c) else 0
        for r in rows
        for c in matrix_columns
    }
    return OverviewTables(
        rows,
        matrix_columns,
        matrix,
        [(k, counts[k]) for k in lessons],
        counts,
        projection,
        drawn,
    )


def _edges(picture: Picture, projection: nx.Graph) -> list[PictureEdge]:
    """Projection edges between drawn nodes of different columns; neighbouring columns' heaviest
    are drawn, the rest wait for a highlighted end."""
    column_of = {n.key: i for i, column in enumerate(picture.columns) for n in column.nodes}
    edges: list[PictureEdge] = []
    by_pair: dict[tuple[int, int], list[PictureEdge]] = {}
    for a, b, data in projection.edges(data=True):
        if a not in column_of or b not in column_of or column_of[a] == column_of[b]:
            continue
        if column_of[a] > column_of[b]:
            a, b = b, a
        pair = (column_of[a], column_of[b])
        edge = PictureEdge(a, b, int(data["weight"]), near=pair[1] - pair[0] == 1)
        by_pair.setdefault(pair, []).append(edge)
    for pair in sorted(by_pair):
        ranked = sorted(by_pair[pair], key=lambda e: (-e.weight, e.a, e.b))
        edges.extend(ranked[:EDGES_PER_COLUMN_PAIR])
    return edges
