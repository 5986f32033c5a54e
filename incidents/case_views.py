"""The case page: the whole case card."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from incidents import selectors
from incidents.checks_catalog import checks_citing
from incidents.models import Case
from incidents.vocabulary import FACETS


def case_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The case card: symptoms, causes, components, factors, detection, remedies, lessons, sources."""
    try:
        case = selectors.case_detail(slug=slug)
    except Case.DoesNotExist as exc:
        raise Http404(f"No case with slug {slug!r}") from exc
    return render(
        request,
        "incidents/case_detail.html",
        {
            "case": case,
            "values": selectors.values_by_facet(case),
            "facets": FACETS,
            "checks": checks_citing(case.slug),
        },
    )
