"""What a graph view draws, before layout: ranked columns of nodes and weighted edges."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

from incidents.graph.kinds import NodeKey


@dataclass
class PictureNode:
    """A node drawn in a column: `cases` is how many cases it stands for in this view (for a
    focus, how many of the focus's cases share it)."""

    key: NodeKey
    cases: int
    depth: int = 0  # indentation under an expanded parent
    expandable: bool = False  # a value with narrower values that have cases
    expanded: bool = False


@dataclass
class PictureColumn:
    """One column of the drawing, most shared first; `hidden` nodes did not fit."""

    title: str
    kinds: tuple[str, ...]
    nodes: list[PictureNode] = field(default_factory=list)
    hidden: int = 0
    center: bool = False  # the focused node's column


@dataclass(frozen=True)
class PictureEdge:
    """Two drawn nodes and the number of cases that share both (for a focus: that share the
    node with the focus). Edges between columns that are not neighbours are drawn only when one
    of their ends is highlighted (`near` is False)."""

    a: NodeKey
    b: NodeKey
    weight: int
    near: bool = True


@dataclass
class Picture:
    """A view of the graph: its columns, edges, the focused node (if any) and the number of
    cases it is drawn from."""

    columns: list[PictureColumn]
    edges: list[PictureEdge]
    cases: int
    focus: NodeKey | None = None

    def nodes(self) -> list[PictureNode]:
        return [node for column in self.columns for node in column.nodes]

    def keys(self) -> list[NodeKey]:
        return [node.key for node in self.nodes()]
