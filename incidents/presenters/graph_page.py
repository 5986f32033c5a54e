"""What the graph views show: the laid-out drawing with every node linked, the chips of the
filters, and the tables that carry the same content. No queries here.

Every link is a QueryState: the filters (through the one FilterSet) and the graph's own
options, `focus=<kind>:<slug>`, `from=case:<slug>`, `expand=<kind>:<slug>` and `show=<kind>`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from incidents.facets import BY_FACET
from incidents.graph import layout as graph_layout
from incidents.graph.kinds import CASE
from incidents.graph.kinds import NODE_KINDS
from incidents.graph.kinds import NODE_PLURALS
from incidents.graph.kinds import NodeKey
from incidents.graph.kinds import short_label
from incidents.graph.overview import DEFAULT_KINDS
from incidents.graph.overview import SHOWABLE_KINDS
from incidents.presenters.graph_words import heading
from incidents.presenters.graph_words import summary
from incidents.presenters.library_page import facet_trees
from incidents.presenters.query_state import Chip
from incidents.presenters.query_state import QueryState
from incidents.presenters.query_state import value_link
from incidents.selectors.graph import LISTED_CASES
from incidents.selectors.graph import GraphView
from incidents.selectors.parameters import filter_problems
from incidents.selectors.parameters import messages

FOCUS, FROM, EXPAND, SHOW = "focus", "from", "expand", "show"
PANEL_BUDGET = 24


@dataclass(frozen=True)
class NodeLink:
    """A node as the page names it: its id, labels, count and links."""

    id: str  # "symptom:nccl-timeout"
    kind: str
    kind_label: str
    label: str
    cases: int
    focus_url: str  # the graph focused on it
    page_url: str  # its case page, or the library filtered by the value ("" otherwise)
    filter_url: str  # the graph filtered by the value ("" for other kinds)


@dataclass(frozen=True)
class DrawnNode:
    node: NodeLink
    placed: graph_layout.PlacedNode
    href: str  # where clicking it goes
    center: bool
    expand_url: str
    collapse_url: str


@dataclass(frozen=True)
class DrawnEdge:
    source: str
    target: str
    weight: int
    path: str
    width: float
    near: bool


@dataclass(frozen=True)
class Drawing:
    width: int
    height: int
    nodes: list[DrawnNode]
    edges: list[DrawnEdge]
    titles: list[graph_layout.PlacedTitle]
    kinds: list[tuple[str, str]]  # the legend: kinds drawn, with labels


@dataclass(frozen=True)
class RankedNode:
    node: NodeLink
    expand_url: str  # the overview with its narrower values drawn ("" when it has none)
    collapse_url: str


@dataclass(frozen=True)
class RankedColumn:
    """A column of the drawing as a table: its nodes, most shared first."""

    title: str
    nodes: list[RankedNode]
    hidden: int
    center: bool


class Links:
    """Builds every graph link from the page's state (filters and graph options)."""

    def __init__(self, view: GraphView, state: QueryState) -> None:
        self.view = view
        base = state.on("incidents:graph")
        self.filters = dataclasses.replace(base, words="")
        self.options: tuple[tuple[str, str], ...] = state.options
        self.graph_path = reverse("incidents:graph")

    def node_id(self, key: NodeKey) -> str:
        return f"{key[0]}:{self.view.slugs.get(key, key[1])}"

    def with_options(self, options: tuple[tuple[str, str], ...]) -> str:
        return self.filters.replace(options=options).href()

    def _kept(self, *drop: str) -> tuple[tuple[str, str], ...]:
        return tuple(o for o in self.options if o[0] not in drop)

    def focus(self, key: NodeKey, *, from_case: NodeKey | None = None) -> str:
        extra: tuple[tuple[str, str], ...] = ((FOCUS, self.node_id(key)),)
        if from_case is not None:
            extra += ((FROM, self.node_id(from_case)),)
        return self.with_options(self._kept(FOCUS, FROM) + extra)

    def overview(self) -> str:
        return self.with_options(self._kept(FOCUS, FROM))

    def expand(self, key: NodeKey) -> str:
        return self.with_options(self._kept(FOCUS, FROM) + ((EXPAND, self.node_id(key)),))

    def collapse(self, key: NodeKey) -> str:
        gone = (EXPAND, self.node_id(key))
        return self.with_options(tuple(o for o in self._kept(FOCUS, FROM) if o != gone))

    def page(self, key: NodeKey) -> str:
        if key[0] == CASE:
            return reverse("incidents:case-detail", args=[self.view.slugs[key]])
        value = self.view.vocabulary.values.get(key[1]) if key[0] in BY_FACET else None
        return value_link(value) if value else ""

    def filtered_by(self, key: NodeKey) -> str:
        value = self.view.vocabulary.values.get(key[1]) if key[0] in BY_FACET else None
        if value is None:
            return ""
        return self.filters.including(value).replace(options=self.options).href()

    def node(self, key: NodeKey, cases: int) -> NodeLink:
        return NodeLink(
            self.node_id(key),
            key[0],
            NODE_KINDS[key[0]],
            self.view.labels.get(key, self.node_id(key)),
            cases,
            self.focus(key),
            self.page(key),
            self.filtered_by(key),
        )


def options_of(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The graph options of a request, in a fixed order, to carry in every link."""
    getlist = getattr(params, "getlist", lambda name: [params[name]] if name in params else [])
    pairs: list[tuple[str, str]] = []
    for name in (FOCUS, FROM):
        if params.get(name):
            pairs.append((name, str(params.get(name))))
    pairs += [(EXPAND, v) for v in getlist(EXPAND) if v]
    shown = [v for v in getlist(SHOW) if v]
    if shown and tuple(shown) != DEFAULT_KINDS:
        pairs += [(SHOW, v) for v in shown]
    return pairs


def drawing(view: GraphView, links: Links, *, width: int = graph_layout.WIDTH) -> Drawing:
    short = {
        key: short_label(key[0], str(view.slugs.get(key, "")), label)
        for key, label in view.labels.items()
    }
    placed = graph_layout.layout(view.picture, short, width=width)
    nodes = {n.key: n for n in view.picture.nodes()}
    focus = view.picture.focus
    from_case = focus if focus and focus[0] == CASE else None
    drawn = []
    for p in placed.nodes:
        node = nodes[p.key]
        link = links.node(p.key, node.cases)
        center = p.key == focus
        if center:
            href = link.page_url or links.overview()
        else:
            href = links.focus(p.key, from_case=from_case if p.key[0] != CASE else None)
        drawn.append(
            DrawnNode(
                link,
                p,
                href,
                center,
                links.expand(p.key) if node.expandable and not node.expanded else "",
                links.collapse(p.key) if node.expanded else "",
            )
        )
    edges = [
        DrawnEdge(
            links.node_id(e.edge.a),
            links.node_id(e.edge.b),
            e.edge.weight,
            e.path,
            e.width,
            e.edge.near,
        )
        for e in placed.edges
    ]
    kinds = sorted({n.key[0] for n in view.picture.nodes()}, key=list(NODE_KINDS).index)
    return Drawing(
        placed.width,
        placed.height,
        drawn,
        edges,
        placed.titles,
        [(k, NODE_KINDS[k]) for k in kinds],
    )


def ranked_columns(view: GraphView, links: Links) -> list[RankedColumn]:
    return [
        RankedColumn(
            c.title,
            [
                RankedNode(
                    links.node(n.key, n.cases),
                    links.expand(n.key) if n.expandable and not n.expanded else "",
                    links.collapse(n.key) if n.expanded else "",
                )
                for n in c.nodes
            ],
            c.hidden,
            c.center,
        )
        for c in view.picture.columns
    ]


def overview_tables(view: GraphView, links: Links) -> dict[str, Any]:
    tables = view.tables
    if tables is None:
        return {}
    counts = tables.counts
    columns = [links.node(k, counts[k]) for k in tables.matrix_columns]
    rows = [
        (links.node(r, counts[r]), [tables.matrix[(r, c)] for c in tables.matrix_columns])
        for r in tables.matrix_rows
    ]
    return {
        "matrix_columns": columns,
        "matrix_rows": rows,
        "lessons": [links.node(k, n) for k, n in tables.lessons],
        "bridges": [(links.node(k, n), score) for k, n, score in tables.bridges()],
    }


def kind_toggles(view: GraphView) -> list[tuple[str, str, bool]]:
    """(kind, plural label, shown?) for the overview's form of what to draw."""
    shown = set(view.options.kinds)
    return [(k, NODE_PLURALS[k], k in shown) for k in SHOWABLE_KINDS]


def listed_cases(view: GraphView, links: Links) -> list[NodeLink]:
    return [links.node(key, 1) for key in view.listed_cases()]


def list_url(view: GraphView, links: Links) -> str:
    """The library list of the cases the page counts: the filters' (the overview), the filters'
    and the focused value's (a value's focus); "" for a remediation, lesson or case, whose cases
    no filter of the list selects (the page lists them)."""
    focus = view.picture.focus
    listed = links.filters
    if focus is not None:
        value = view.vocabulary.values.get(focus[1]) if focus[0] in BY_FACET else None
        if value is None:
            return ""
        listed = listed.including(value)
    return dataclasses.replace(listed, path=reverse("incidents:case-list")).href()


def problems(view: GraphView, params: Mapping[str, Any]) -> dict[str, list[str]]:
    """What was wrong with the request: unknown filter values named with the closest known ones
    (selectors.parameters, as on every face), then the graph's own options."""
    found = filter_problems(params, view.query.errors, view.vocabulary)
    for name, errors in view.option_errors.items():
        found.setdefault(name, []).extend(f"{name}: {error}" for error in errors)
    return found


def context(view: GraphView, params: Mapping[str, Any], *, panel: bool = False) -> dict[str, Any]:
    """Everything the graph page (or the library page's panel) shows."""
    state = QueryState.of(view.query.filterset, params, options=options_of(params))
    links = Links(view, state)
    focus = view.picture.focus
    focus_link = links.node(focus, view.picture.cases) if focus else None
    chips: list[Chip] = state.chips(view.vocabulary.by_slug)
    clear = dataclasses.replace(state, q="", words="", selected=())
    focus_cases = view.focus_case_ids
    expanded = [links.node(k, 0) for k in view.expanded]
    return {
        "view": view,
        "state": state,
        "panel": panel,
        "chips": chips,
        "clear_url": clear.href(),
        "errors": messages(problems(view, params)),
        "heading": heading(view),
        "summary": summary(view),
        "drawing": drawing(view, links),
        "columns": ranked_columns(view, links),
        "focus": focus_link,
        "overview_url": links.overview(),
        "page_url": links.with_options(state.options),
        "data_url": dataclasses.replace(
            links.filters.replace(options=state.options), path=reverse("incidents:graph-data")
        ).href(),
        "list_url": list_url(view, links),
        "kind_toggles": kind_toggles(view),
        "trees": facet_trees(state, view.facets),
        "applied_count": len(state.selected),
        "listed_cases": listed_cases(view, links),
        "more_cases": max(0, len(focus_cases) - LISTED_CASES),
        "focus_case_count": len(focus_cases),
        "expanded": [(n, links.collapse(k)) for n, k in zip(expanded, view.expanded, strict=True)],
        **overview_tables(view, links),
    }


def data(view: GraphView, params: Mapping[str, Any]) -> dict[str, Any]:
    """The view as JSON: nodes with their positions and links, and the weighted edges."""
    state = QueryState.of(view.query.filterset, params, options=options_of(params))
    links = Links(view, state)
    picture = drawing(view, links)
    focus = view.picture.focus
    return {
        "cases": view.picture.cases,
        "view": "focus" if focus else "overview",
        "focus": links.node_id(focus) if focus else None,
        "width": picture.width,
        "height": picture.height,
        "columns": [{"title": t.text, "hidden": t.hidden} for t in picture.titles],
        "nodes": [
            {
                "id": n.node.id,
                "kind": n.node.kind,
                "kind_label": n.node.kind_label,
                "label": n.node.label,
                "drawn_label": n.placed.label,
                "cases": n.node.cases,
                "column": n.placed.column,
                "x": n.placed.x,
                "y": n.placed.y,
                "r": n.placed.r,
                "url": n.node.page_url,
                "focus_url": n.node.focus_url,
                "expand_url": n.expand_url,  # "" unless it has narrower values with cases
                "collapse_url": n.collapse_url,
            }
            for n in picture.nodes
        ],
        "edges": [
            {"source": e.source, "target": e.target, "weight": e.weight, "near": e.near}
            for e in picture.edges
        ],
    }
