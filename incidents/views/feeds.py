"""`/feeds/cases.atom`: the newest cases under any of the library's filters, as an Atom feed.

The library page links the feed of its own filters with `<link rel="alternate">`. A feed reader
is a program, so an unknown parameter or value is a 400 in JSON (the policy of
incidents.selectors.parameters), not a feed that silently holds every case. `ETag` and
`Last-Modified` come from the library's version: a reader polling an unchanged library gets a
304.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from incidents.models import Case
from incidents.presenters.query_state import QueryState
from incidents.selectors import library_version
from incidents.selectors.cases import CaseQuery, case_queryset
from incidents.selectors.parameters import FILTER_PARAMS, filter_problems, unknown_parameters

# Entries in a feed, newest first (the list's order; `ordering=` is honoured like on the page).
FEED_ITEMS = 50


class CaseFeed(Feed):  # type: ignore[type-arg]
    """The cases of a filter, newest first."""

    feed_type = Atom1Feed
    description_template = None

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        query = case_queryset(params=request.GET)
        problems = {
            **unknown_parameters(request.GET, FILTER_PARAMS),
            **filter_problems(request.GET, query.errors, query.vocabulary),
        }
        if problems:
            return JsonResponse(problems, status=400, json_dumps_params={"ensure_ascii": False})
        version = library_version.current()
        etag = f'"feed-{version.number}"'
        if etag in request.headers.get("If-None-Match", ""):
            response = HttpResponse(status=304)
        else:
            self._query = query
            response = super().__call__(request, *args, **kwargs)
        response["ETag"] = etag
        response["Cache-Control"] = "public, no-cache"
        return response

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> CaseQuery:
        return self._query

    def _state(self, obj: CaseQuery) -> QueryState:
        return QueryState.of(obj.filterset, {}).on("incidents:case-list")

    def title(self, obj: CaseQuery) -> str:
        chips = self._state(obj).chips(obj.vocabulary.by_slug)
        if not chips:
            return "Incident Library: newest cases"
        return "Incident Library: " + ", ".join(
            f"{c.label} {'not ' if c.excluded else ''}{c.text}" for c in chips
        )

    def link(self, obj: CaseQuery) -> str:
        return self._state(obj).href()

    def subtitle(self, obj: CaseQuery) -> str:
        return "Public failure reports of large GPU clusters, newest first."

    def items(self, obj: CaseQuery) -> list[Case]:
        return list(obj.queryset[:FEED_ITEMS])

    def item_title(self, item: Case) -> str:
        return item.title

    def item_description(self, item: Case) -> str:
        return item.summary

    def item_link(self, item: Case) -> str:
        return reverse("incidents:case-detail", args=[item.slug])

    def item_pubdate(self, item: Case) -> dt.datetime:
        return item.created_at

    def item_updateddate(self, item: Case) -> dt.datetime:
        return item.updated_at
