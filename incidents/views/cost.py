"""The cost view /cost/: per facet value, the number of cases next to the cost they report.

It takes the library's filter parameters (read by the one CaseFilterSet) plus `by` (the facet to
break down by), `metric` (the cost drawn in the chart) and `level` (top-level values or all).
A wrong parameter gets a message naming it and a 400 status; the rest of the page still works.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse

from incidents.models import CostMetric, Facet
from incidents.presenters import cost_chart
from incidents.selectors import cost as selectors_cost
from incidents.selectors.browse import FACET_LABELS
from incidents.selectors.vocabulary import FACETS

# An empty metric means: the one most of the selected cases report.
DEFAULTS = {"by": Facet.ROOT_CAUSE, "metric": "", "level": "top"}
CHOICES: dict[str, list[str]] = {
    "by": [facet for facet, _param, _label in FACETS],
    "metric": selectors_cost.METRICS,
    "level": list(selectors_cost.LEVELS),
}


@dataclass(frozen=True)
class Chip:
    """An active filter, with the URL of this page without it."""

    label: str
    value: str
    excluded: bool
    remove_url: str


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


def _querystring(filters: list[tuple[str, str]], **options: str) -> str:
    params = QueryDict(mutable=True)
    for name, value in filters:
        params.appendlist(name, value)
    for name, value in options.items():
        if value and value != DEFAULTS.get(name):
            params[name] = value
    encoded = params.urlencode()
    return f"?{encoded}" if encoded else ""


def cost(request: HttpRequest) -> HttpResponse:
    """Cases and reported cost per value of one facet, for the library's current filters."""
    problems: list[str] = []
    by = _choice(request, "by", problems)
    metric = _choice(request, "metric", problems)
    level = _choice(request, "level", problems)
    view = selectors_cost.cost_by_facet(
        params=request.GET, facet=by, metric=metric or None, level=level
    )
    for name, messages in view.errors.items():
        problems.extend(f"{name}: {message}" for message in messages)

    vocabulary = view.filterset.vocabulary
    filters: list[tuple[str, str]] = []
    q = view.filterset.cleaned_data.get("q") or ""
    if q:
        filters.append(("q", q))
    chips: list[Chip] = []
    for param, excluded, slugs in view.filterset.active_values():
        for slug in slugs:
            filters.append((f"not_{param}" if excluded else param, slug))
    here = reverse("incidents:cost")
    options = {"by": by, "metric": metric, "level": level}
    for index, (name, slug) in enumerate(filters):
        facet = name.removeprefix("not_")
        value = vocabulary.get(facet, slug) if name != "q" else None
        chips.append(
            Chip(
                label="Words" if name == "q" else Facet(facet).label,
                value=slug if value is None else value.name,
                excluded=name.startswith("not_"),
                remove_url=here + _querystring(filters[:index] + filters[index + 1 :], **options),
            )
        )
    context = {
        "view": view,
        "chart": cost_chart.paired_bars(view.rows, view.metric, CostMetric(view.metric).label),
        "metric_label": CostMetric(view.metric).label,
        "by_label": FACET_LABELS[by],
        "by_singular": Facet(by).label,
        "chips": chips,
        "problems": problems,
        "filters": filters,
        "facet_links": [
            (facet, label, here + _querystring(filters, by=facet, metric=metric, level=level))
            for facet, label in selectors_cost.FACET_CHOICES
        ],
        "metrics": [(m, CostMetric(m).label) for m in selectors_cost.METRICS],
        "library_url": reverse("incidents:case-list") + _querystring(filters),
        "filter_query": _querystring(filters)[1:],
        "clear_url": here + _querystring([], **options),
        "options": options,
    }
    return render(request, "incidents/cost.html", context, status=400 if problems else 200)
