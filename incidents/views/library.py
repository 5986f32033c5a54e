"""The library page: cases with facets, live counts, search and suggested filters.

One GET form drives it. Without JavaScript every control is a link or a submit button; with htmx
the same URLs are fetched and only the results region is swapped (the URL is pushed, so Back and
shared links work). The region partial is served only to htmx requests aimed at that region that
are not history restores, and every response varies on HX-Request (and on Cookie: an anonymous
reader's page is served from the cache, views.whole_pages).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from incidents.presenters import library_page
from incidents.presenters.query_state import WORDS_PARAM
from incidents.presenters.query_state import QueryState
from incidents.selectors.cases import case_list as select_cases
from incidents.selectors.facet_counts import suggestions_for
from incidents.selectors.library_version import LibraryVersion
from incidents.selectors.parameters import FILTER_PARAMS
from incidents.views.whole_pages import cached_for_anonymous

REGION_ID = "library-region"
SEARCH_INPUT_ID = "q"
FORM_ID = "library-form"
# What the page reads from its query (the FilterSet's filters, the sentence, the page number):
# an anonymous page with any other parameter is not cached (views.whole_pages).
PAGE_PARAMETERS = (*FILTER_PARAMS, WORDS_PARAM, "page")


@cached_for_anonymous(vary=("HX-Request",), parameters=PAGE_PARAMETERS)
def case_list(request: HttpRequest, version: LibraryVersion | None = None) -> HttpResponse:
    """The library: filtered cases, newest first (best match first with words), with live counts;
    an anonymous reader's page is cached whole (views.whole_pages)."""
    result = select_cases(params=request.GET, page=request.GET.getlist("page"), version=version)
    filterset = result.query.filterset
    state = QueryState.of(filterset, request.GET, page=result.page.number)
    suggestions = suggestions_for(filterset, state.q or state.words)
    htmx: Any = getattr(request, "htmx", None)
    partial = bool(htmx) and not htmx.history_restore_request and htmx.target == REGION_ID
    context = library_page.context(result, state, suggestions, request.GET)
    # Typing in the search box must not replace the box being typed in.
    context["refresh_search_box"] = partial and htmx.trigger not in (SEARCH_INPUT_ID, FORM_ID)
    template = "incidents/case_list.html#htmx_response" if partial else "incidents/case_list.html"
    response = render(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response
