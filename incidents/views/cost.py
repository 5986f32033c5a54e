"""The cost view /cost/: per facet value, the number of cases next to the cost they report.

It takes the library's filter parameters (read by the one CaseFilterSet) plus `by` (the facet to
break down by), `metric` (the cost drawn in the chart) and `level` (top-level values or all).
A wrong parameter gets a message naming it and a 400 status; the rest of the page still works.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from incidents import facets
from incidents.presenters import cost_page
from incidents.selectors.cost import LEVELS, METRICS, cost_by_facet

# An empty metric means: the one most of the selected cases report.
DEFAULTS = {"by": facets.FACETS[0].facet, "metric": "", "level": "top"}
CHOICES: dict[str, list[str]] = {
    "by": [spec.facet for spec in facets.FACETS],
    "metric": METRICS,
    "level": list(LEVELS),
}


def _choice(request: HttpRequest, name: str, problems: list[str]) -> str:
    given = request.GET.get(name)
    if given is None or given == "":
        return DEFAULTS[name]
    if given not in CHOICES[name]:
        problems.append(
            f"{name}: {given!r} is not one of {', '.join(CHOICES[name])}; "
            f"showing {DEFAULTS[name] or 'the one most cases report'} instead."
        )
        return DEFAULTS[name]
    return given


def cost(request: HttpRequest) -> HttpResponse:
    """Cases and reported cost per value of one facet, for the library's current filters."""
    problems: list[str] = []
    options = {name: _choice(request, name, problems) for name in DEFAULTS}
    view = cost_by_facet(
        params=request.GET,
        spec=facets.spec(options["by"]),
        metric=options["metric"] or None,
        level=options["level"],
    )
    for name, messages in view.query.errors.items():
        problems.extend(f"{name}: {message}" for message in messages)
    context = cost_page.context(view, request.GET, options, DEFAULTS, problems)
    return render(request, "incidents/cost.html", context, status=400 if problems else 200)
