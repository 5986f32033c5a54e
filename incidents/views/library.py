"""The library page: cases with facets, live counts, search and suggested filters.

One GET form drives it. Without JavaScript every control is a link or a submit button; with htmx
the same URLs are fetched and only the results region is swapped (the URL is pushed, so Back and
shared links work). The region partial is served only to htmx requests aimed at that region that
are not history restores, and every response varies on HX-Request.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from incidents.presenters import library_page
from incidents.selectors import cases as selectors

REGION_ID = "library-region"
SEARCH_INPUT_ID = "q"
FORM_ID = "library-form"


def case_list(request: HttpRequest) -> HttpResponse:
    """The library: filtered cases, newest first (best match first with words), with live counts."""
    result = selectors.case_list(params=request.GET, page=request.GET.get("page", 1))
    state = library_page.state_from(result, request.GET)
    htmx: Any = getattr(request, "htmx", None)
    partial = bool(htmx) and not htmx.history_restore_request and htmx.target == REGION_ID
    rows = []
    for case in result.page.object_list:
        values = selectors.values_by_facet(case)
        rows.append((case, values, library_page.row_values(values)))
    page = result.page
    context = {
        "result": result,
        "state": state,
        "rows": rows,
        "chips": library_page.chips(state, result),
        "clear_url": library_page.PageState().querystring(),
        # The same filters for the cost view and the graph (they take the same parameters).
        "filters_query": state.replace(sentence="").querystring().rstrip("?"),
        "suggestions": library_page.suggestions(state, result),
        "trees": library_page.facet_trees(state, result),
        "unknown": library_page.unknown_values(result, request.GET),
        "page_links": library_page.page_links(state, result),
        "prev_url": (
            state.replace(page=page.previous_page_number()).querystring()
            if page.has_previous()
            else ""
        ),
        "next_url": (
            state.replace(page=page.next_page_number()).querystring() if page.has_next() else ""
        ),
        # Typing in the search box must not replace the box being typed in.
        "refresh_search_box": partial and htmx.trigger not in (SEARCH_INPUT_ID, FORM_ID),
    }
    template = "incidents/case_list.html#htmx_response" if partial else "incidents/case_list.html"
    response = render(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response
