"""The graph view: cases linked to causes, components, symptoms, and shared remedies and lessons."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from incidents import graph as g
from incidents.presenters import graph_page as presenter
from incidents.selectors.graph import case_graph
from incidents.selectors.parameters import filter_problems


def _min_cases(request: HttpRequest) -> tuple[int, str | None]:
    raw = request.GET.get("min_cases", str(presenter.DEFAULT_MIN_CASES))
    try:
        value = int(raw)
    except ValueError:
        return presenter.DEFAULT_MIN_CASES, f"min_cases must be a whole number, not {raw!r}"
    if not 1 <= value <= 50:
        return presenter.DEFAULT_MIN_CASES, f"min_cases must be between 1 and 50, not {value}"
    return value, None


def graph_page(request: HttpRequest) -> HttpResponse:
    """The drawing (when JavaScript runs) and, always, tables of what the cases share most."""
    min_cases, error = _min_cases(request)
    result = case_graph(params=request.GET, min_cases=min_cases)
    context = presenter.context(result, request.GET, min_cases, error)
    return render(request, "incidents/graph.html", context)


def graph_data(request: HttpRequest) -> JsonResponse:
    """Cytoscape.js elements for the current filters."""
    min_cases, error = _min_cases(request)
    result = case_graph(params=request.GET, min_cases=min_cases)
    errors = filter_problems(request.GET, result.errors, result.query.vocabulary)
    if error:
        errors["min_cases"] = [error]
    if errors:
        return JsonResponse({"errors": errors}, status=400)
    presenter.link_nodes(result)
    return JsonResponse({"cases": result.case_count, "elements": g.to_cytoscape(result.graph)})
