"""The graph views: the overview or a focus, as a page, as JSON, and as the library's panel."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.http import HttpResponse
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from incidents.graph.kinds import BadNodeRef
from incidents.graph.kinds import NodeRef
from incidents.graph.kinds import parse_node_ref
from incidents.graph.overview import DEFAULT_KINDS
from incidents.graph.overview import SHOWABLE_KINDS
from incidents.presenters import graph_page as presenter
from incidents.selectors.graph import GraphOptions
from incidents.selectors.graph import GraphView
from incidents.selectors.graph import graph_view


def parse_options(
    request: HttpRequest, *, budget: int | None = None
) -> tuple[GraphOptions, dict[str, list[str]]]:
    """The graph's own parameters; each bad one is named in the errors and left out."""
    errors: dict[str, list[str]] = {}

    def ref(name: str, text: str) -> NodeRef | None:
        try:
            return parse_node_ref(text)
        except BadNodeRef as problem:
            errors.setdefault(name, []).append(f"{problem}.")
            return None

    focus = ref("focus", request.GET["focus"]) if request.GET.get("focus") else None
    leave_out = ref("from", request.GET["from"]) if request.GET.get("from") else None
    expand = tuple(r for text in request.GET.getlist("expand") if (r := ref("expand", text)))
    shown = [k for k in request.GET.getlist("show") if k]
    unknown = [k for k in shown if k not in SHOWABLE_KINDS]
    if unknown:
        errors["show"] = [
            f"{', '.join(map(repr, unknown))}: not a kind the graph draws"
            f" (one of {', '.join(SHOWABLE_KINDS)})."
        ]
    kinds = tuple(k for k in SHOWABLE_KINDS if k in shown) or DEFAULT_KINDS
    options = GraphOptions(focus, leave_out, expand, kinds)
    if budget is not None:
        options = GraphOptions(focus, leave_out, expand, kinds, budget)
    return options, errors


def _view(
    request: HttpRequest, *, budget: int | None = None, with_facets: bool = False
) -> GraphView:
    options, errors = parse_options(request, budget=budget)
    view = graph_view(params=request.GET, options=options, with_facets=with_facets)
    for name, problems in errors.items():
        view.option_errors.setdefault(name, []).extend(problems)
    return view


def graph_page(request: HttpRequest) -> HttpResponse:
    """The drawing (SVG, no JavaScript needed) and the tables that carry the same content."""
    view = _view(request, with_facets=True)
    # As on the library page, what could not be used is named on the page, the rest applies.
    return render(request, "incidents/graph.html", presenter.context(view, request.GET))


def graph_panel(request: HttpRequest) -> HttpResponse:
    """The library page's panel: a smaller overview of the same filters, fetched by htmx."""
    view = _view(request, budget=presenter.PANEL_BUDGET)
    context: dict[str, Any] = presenter.context(view, request.GET, panel=True)
    response = render(request, "incidents/graph.html#panel", context)
    patch_vary_headers(response, ["HX-Request"])
    return response


def graph_data(request: HttpRequest) -> JsonResponse:
    """The same view as JSON: nodes with positions and links, weighted edges."""
    view = _view(request)
    if view.errors:
        return JsonResponse({"errors": presenter.problems(view, request.GET)}, status=400)
    return JsonResponse(presenter.data(view, request.GET))
