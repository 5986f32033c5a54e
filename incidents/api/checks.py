"""API: kubegap's checks with the library cases they cite."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from drf_spectacular.utils import inline_serializer
from rest_framework import generics
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from incidents.api.pagination import PAGE_PARAMS
from incidents.api.reads import LibraryRead
from incidents.api.views import read_responses
from incidents.selectors.checks import CatalogCheck
from incidents.selectors.checks import catalog
from incidents.selectors.checks import get_check

# The JSON of a check; `inline_serializer` takes its fields out of the dict it is given, so each
# schema gets a copy.
CHECK_FIELDS: dict[str, serializers.Field[Any, Any, Any, Any]] = {
    "id": serializers.CharField(),
    "title": serializers.CharField(),
    "severity": serializers.CharField(),
    "category": serializers.CharField(),
    "confidence": serializers.CharField(),
    "reads": serializers.ListField(child=serializers.CharField()),
    "why": serializers.CharField(),
    "remediation": serializers.CharField(),
    "references": serializers.ListField(child=serializers.DictField()),
    "cases": serializers.ListField(child=serializers.DictField()),
}


def _check_data(entry: CatalogCheck, request: Request) -> dict[str, Any]:
    """A check as CHECK_FIELDS describes it: its own attributes, its references and cited cases."""
    check = entry.check
    listed = {
        "reads": list(check.reads),
        "references": [{"url": r.url, "title": r.title} for r in check.references],
        "cases": [
            {
                "slug": case.slug,
                "title": case.title,
                "url": request.build_absolute_uri(
                    reverse("incidents:case-detail", args=[case.slug])
                )
                if case.in_library
                else None,
            }
            for case in entry.cases
        ],
    }
    return {name: listed[name] if name in listed else getattr(check, name) for name in CHECK_FIELDS}


class CheckListView(LibraryRead, generics.GenericAPIView[Any]):
    """Every kubegap check with the cases it cites, in the catalogue's order; paged like every
    list."""

    known_parameters = PAGE_PARAMS

    @extend_schema(
        responses=read_responses(
            {
                200: inline_serializer("CheckList", fields=dict(CHECK_FIELDS), many=True),
                404: inline_serializer(
                    "CheckPageNotFound", fields={"detail": serializers.CharField()}
                ),
            }
        ),
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(catalog())  # type: ignore[arg-type]
        assert page is not None
        return self.get_paginated_response([_check_data(entry, request) for entry in page])


class CheckDetailView(LibraryRead, APIView):
    """One kubegap check by id."""

    @extend_schema(
        responses=read_responses(
            {
                200: inline_serializer("Check", fields=dict(CHECK_FIELDS)),
                404: inline_serializer("CheckNotFound", fields={"detail": serializers.CharField()}),
            }
        )
    )
    def get(self, request: Request, check_id: str) -> Response:
        check = get_check(check_id)
        if check is None:
            raise NotFound(f"No check with id {check_id!r}.")
        [entry] = catalog([check])
        return Response(_check_data(entry, request))
