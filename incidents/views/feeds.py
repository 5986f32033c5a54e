"""`/feeds/cases.atom`: the newest cases under any of the library's filters, as an Atom feed.

The library page links the feed of its own filters with `<link rel="alternate">`. A feed reader
is a program, so an unknown parameter or value is a 400 in JSON (the policy of
incidents.selectors.parameters), not a feed that silently holds every case.

Dates: an entry's `published` and `updated` are the case's own date (its main source's
publication, or else the start of its period), never when a database row was written, so a
reload, a rebuilt database or a new deploy shows a reader no case as new or changed. The feed's
own `updated` and `Last-Modified` are when the library last changed. The `ETag` names the
library's version (its number and when it changed, so a rebuilt database's version 5 is not the
old one's), the code that renders the feed and the address: a reader polling an unchanged
library gets a 304, and a reader of the previous release's feed gets the new one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import JsonResponse
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.timezone import make_aware

from incidents.models import Case
from incidents.presenters.query_state import QueryState
from incidents.selectors import library_version
from incidents.selectors.cases import CaseQuery
from incidents.selectors.cases import case_queryset
from incidents.selectors.parameters import FILTER_PARAMS
from incidents.selectors.parameters import filter_problems
from incidents.selectors.parameters import unknown_parameters
from incidents.views.whole_pages import page_digest

# Entries in a feed, newest first (the list's order; `ordering=` is honoured like on the page).
FEED_ITEMS = 50


class LibraryAtomFeed(Atom1Feed):
    """Atom whose feed-level date is when the library changed (`library_changed`), not the
    newest entry's own date."""

    def latest_post_date(self) -> dt.datetime:
        changed: dt.datetime = self.feed["library_changed"]
        return changed


def case_date(case: Case) -> dt.datetime:
    """The case's own date, as the feed dates its entry: its main source's publication, or the
    start of its period (a case file gives one or the other); when it was added, for a case
    that somehow has neither."""
    day = case.published or case.period_start
    if day is None:
        return case.created_at
    return make_aware(dt.datetime.combine(day, dt.time()), dt.UTC)


class CaseFeed(Feed):  # type: ignore[type-arg]
    """The cases of a filter, newest first."""

    feed_type = LibraryAtomFeed
    description_template = None

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        query = case_queryset(params=request.GET)
        problems = {
            **unknown_parameters(request.GET, FILTER_PARAMS),
            **filter_problems(request.GET, query.errors, query.vocabulary),
        }
        if problems:
            return JsonResponse(problems, status=400, json_dumps_params={"ensure_ascii": False})
        version = self._version = library_version.current()
        changed = int(version.changed_at.timestamp())
        etag = f'"feed-{version.number}-{changed}-{page_digest(request)}"'
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

    def feed_extra_kwargs(self, obj: CaseQuery) -> dict[str, Any]:
        return {"library_changed": self._version.changed_at}

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

    def feed_url(self, obj: CaseQuery) -> str:
        """The feed's own address (rel="self") with its filters: Django's default, the path
        alone, names the feed of every case."""
        return QueryState.of(obj.filterset, {}).on("incidents:case-feed").href()

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
        return case_date(item)

    def item_updateddate(self, item: Case) -> dt.datetime:
        return case_date(item)
