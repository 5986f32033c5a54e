"""The library page: cases with facets, live counts and search."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from incidents import selectors
from incidents.vocabulary import FACETS


def case_list(request: HttpRequest) -> HttpResponse:
    """The library: filtered cases, newest first, with live counts per facet value."""
    result = selectors.case_list(params=request.GET, page=request.GET.get("page", 1))
    rows = [(case, selectors.values_by_facet(case)) for case in result.page.object_list]
    return render(
        request,
        "incidents/case_list.html",
        {"result": result, "rows": rows, "facets": FACETS},
    )
