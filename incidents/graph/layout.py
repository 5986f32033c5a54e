"""A deterministic column layout: the same picture for the same data, drawn as SVG by a template.

Columns are spread evenly across a fixed width; in each column nodes sit one row apart, most
shared first; a node's label is written to its right and cut (at a word, with "…") to the room
left before the next column, so labels never overlap at the default size. Nodes are sized by
their number of cases. Positions are whole pixels: the SVG is drawn at its own size (never
scaled down), so a 12 px label is 12 px on screen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from incidents.graph.kinds import NodeKey
from incidents.graph.picture import Picture
from incidents.graph.picture import PictureEdge

WIDTH = 1160
FONT_PX = 12
TITLE_PX = 13
ROW_PX = 30
TOP_PX = 52  # room for the column titles
BOTTOM_PX = 16
MIN_RADIUS, MAX_RADIUS = 4, 12
INDENT_PX = 14
LABEL_GAP_PX = 6
# A generous advance for one character of a 12 px sans-serif font (DejaVu Sans, the widest of
# the usual defaults, averages about 7 px); labels are cut to the room this allows.
CHAR_PX = 7.0


@dataclass(frozen=True)
class PlacedNode:
    key: NodeKey
    x: int
    y: int
    r: int
    label: str  # as drawn (maybe cut)
    full_label: str
    label_x: int
    column: int

    @property
    def label_end(self) -> int:
        """Where the label (and its count) ends, at most: edges leave a node from there."""
        return round(self.label_x + (len(self.label) + 4) * CHAR_PX)


@dataclass(frozen=True)
class PlacedEdge:
    edge: PictureEdge
    path: str  # an SVG path from one end to the other
    width: float


@dataclass(frozen=True)
class PlacedTitle:
    text: str
    x: int
    hidden: int


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    nodes: list[PlacedNode]
    edges: list[PlacedEdge]
    titles: list[PlacedTitle]


def cut(text: str, chars: int) -> str:
    """The text, cut at a word to at most `chars` characters (with "…") if longer."""
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    room = max(1, chars - 1)
    head = text[:room]
    if " " in head[room // 2 :]:
        head = head[: head.rfind(" ")]
    return head.rstrip(" ,;:.-–") + "…"


def radius(cases: int, most: int) -> int:
    if most <= 0:
        return MIN_RADIUS
    return round(MIN_RADIUS + (MAX_RADIUS - MIN_RADIUS) * math.sqrt(max(cases, 0) / most))


def layout(picture: Picture, labels: Mapping[NodeKey, str], *, width: int = WIDTH) -> Layout:
    """Positions for every node, edge and column title of a picture."""
    count = max(1, len(picture.columns))
    column_width = width // count
    most = max((n.cases for n in picture.nodes() if picture.focus != n.key), default=1)
    rows = max((len(c.nodes) for c in picture.columns), default=1)
    height = TOP_PX + max(rows, 1) * ROW_PX + BOTTOM_PX
    placed: list[PlacedNode] = []
    titles: list[PlacedTitle] = []
    for index, column in enumerate(picture.columns):
        left = index * column_width + MAX_RADIUS + 2
        title_chars = int((column_width - 8) / (CHAR_PX * TITLE_PX / FONT_PX))
        titles.append(PlacedTitle(cut(column.title, title_chars), left - MAX_RADIUS, column.hidden))
        first_row = (rows - 1) / 2 if column.center else 0
        for row, node in enumerate(column.nodes):
            x = left + node.depth * INDENT_PX
            y = round(TOP_PX + (first_row + row) * ROW_PX + ROW_PX / 2)
            r = MAX_RADIUS if column.center else radius(node.cases, most)
            label_x = x + MAX_RADIUS + LABEL_GAP_PX
            end = width if index == count - 1 else (index + 1) * column_width - 2 * MAX_RADIUS
            room = end - label_x - 4
            full = labels.get(node.key, f"{node.key[0]} {node.key[1]}")
            chars = max(4, int(room / CHAR_PX))
            placed.append(PlacedNode(node.key, x, y, r, cut(full, chars), full, label_x, index))
    where = {p.key: p for p in placed}
    heaviest = max((e.weight for e in picture.edges), default=1)
    edges = [
        PlacedEdge(edge, _path(where[edge.a], where[edge.b]), _stroke(edge.weight, heaviest))
        for edge in picture.edges
        if edge.a in where and edge.b in where
    ]
    return Layout(width, height, placed, edges, titles)


def _path(a: PlacedNode, b: PlacedNode) -> str:
    """A curve from the end of the left node's label to the right node."""
    if a.x > b.x:
        a, b = b, a
    start = min(a.label_end, b.x - 2 * MAX_RADIUS)
    middle = (start + b.x) / 2
    return f"M{start},{a.y} C{middle:.0f},{a.y} {middle:.0f},{b.y} {b.x - b.r},{b.y}"


def _stroke(weight: int, heaviest: int) -> float:
    return round(1 + 5 * weight / max(heaviest, 1), 1)
