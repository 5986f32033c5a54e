"""Pagination of every API list: `page` and `page_size` (1 to MAX_PAGE_SIZE, default PAGE_SIZE).

A `page_size` out of bounds or not a number, or a `page` that is not a whole number from 1, is a
400 naming it, like any bad parameter (the policy of incidents.selectors.parameters), rather than
silently clamped; a `page` past the last is a 404 naming it and the number of pages.
"""

from __future__ import annotations

from functools import partial
from typing import Any
from typing import cast
from urllib import parse

from django.core.paginator import Page
from django.db import connections
from django.db.models import QuerySet
from rest_framework import pagination
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from incidents.filtersets import CaseFilterSet
from incidents.models import Case
from incidents.query_params import page_number
from incidents.query_params import page_problem
from incidents.query_params import repeated_problem
from incidents.selectors import page_rows
from incidents.selectors.facet_index import Selection
from incidents.selectors.facet_index import selection
from incidents.selectors.indexed_pages import IndexedPaginator

PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
PAGE_PARAMS = ("page", "page_size")


class SummaryPaginator(IndexedPaginator):
    """The index's paginator, whose pages in the default order on PostgreSQL are the rows the
    API's list shows (page_rows.summaries' tuples, in the page's order) rather than cases;
    any other page is the IndexedPaginator's, of cases."""

    def __init__(self, object_list: QuerySet[Case], per_page: int, *, found: Selection) -> None:
        super().__init__(object_list, per_page, found=found)
        self.found = found

    def page(self, number: int | str) -> Page[Case]:
        using = self.object_list.db  # type: ignore[attr-defined]
        if not self.found.in_default_order or connections[using].vendor != "postgresql":
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        ids = self.found.page_ids(bottom, top)
        found = page_rows.summaries(using, ids)
        return Page([found[i] for i in ids if i in found], number, self)  # type: ignore[misc]


class PageNumberPagination(pagination.PageNumberPagination):
    """`?page=2&page_size=50`; `count`, `next`, `previous` and `results` in the body."""

    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    page_size_query_description = (
        f"Results per page, 1 to {MAX_PAGE_SIZE} (default {PAGE_SIZE}); outside that, a 400."
    )

    def use_facet_index(self, filterset: CaseFilterSet, *, summaries: bool = False) -> None:
        """Page the FilterSet's cases with the facet index, as the library page does: the count
        comes from the index (no COUNT(*) over the library) and, in the default order, so does
        the page (its 20 ids, read by id: no sort of every match). `summaries`: a page in the
        default order on PostgreSQL is the list's rows as tuples (SummaryPaginator)."""
        self.django_paginator_class = partial(  # type: ignore[assignment]
            SummaryPaginator if summaries else IndexedPaginator, found=selection(filterset)
        )

    def release_rows(self) -> None:
        """Forget the page's rows (its count and number stay, for the links)."""
        if self.page is not None:
            self.page.object_list = []

    def get_next_link(self) -> str | None:
        page = self.page
        if page is None or not page.has_next():
            return None
        return self._link_to(page.next_page_number())

    def get_previous_link(self) -> str | None:
        page = self.page
        if page is None or not page.has_previous():
            return None
        number = page.previous_page_number()
        return self._link_to(None if number == 1 else number)

    def _link_to(self, number: int | None) -> str:
        """DRF's link to another page (`replace_query_param`, or `remove_query_param` for the
        first page: the request's absolute URL, its query sorted by parameter), to the same
        string, with the URL split and its query parsed once for both links."""
        request = cast(Request, self.request)  # set by paginate_queryset
        split = getattr(self, "_split", None)
        if split is None or split[0] is not request:
            scheme, netloc, path, query, fragment = parse.urlsplit(request.build_absolute_uri())
            params = parse.parse_qs(query, keep_blank_values=True)
            split = self._split = (request, (scheme, netloc, path, fragment), params)
        _, (scheme, netloc, path, fragment), params = split
        params = dict(params)
        if number is None:
            params.pop(self.page_query_param, None)
        else:
            params[self.page_query_param] = [str(number)]
        query = parse.urlencode(sorted(params.items()), doseq=True)
        return parse.urlunsplit((scheme, netloc, path, query, fragment))

    def get_page_number(self, request: Request, paginator: Any) -> int:
        """The `page=` asked for; a 400 or a 404 naming it when it is not one of the pages."""
        values = request.query_params.getlist(self.page_query_param)
        if not values:
            return 1
        problem = page_problem(values, paginator.num_pages)
        number = page_number(values[0])
        if problem and number is not None and len(set(values)) == 1:
            raise NotFound(problem)  # past the last page: {"detail": ...}, as any 404
        if problem:
            raise ValidationError({self.page_query_param: [problem]})
        assert number is not None
        return number

    def get_page_size(self, request: Request) -> int:
        sizes = request.query_params.getlist(self.page_size_query_param)
        if len(set(sizes)) > 1:
            raise ValidationError({"page_size": [repeated_problem("page_size", sizes)]})
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            size = 0
        if not 1 <= size <= MAX_PAGE_SIZE:
            raise ValidationError(
                {
                    "page_size": [
                        f"page_size must be a whole number from 1 to {MAX_PAGE_SIZE}, not {raw!r}."
                    ]
                }
            )
        return size

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_PAGE_SIZE,
                    "default": PAGE_SIZE,
                }
            elif parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
        return parameters
