"""API endpoints: the same filters as the pages, through the same selectors.

The case list is `case_queryset` paginated (no queryset of its own); its parameters and the
facet counts' are documented from the registry.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from incidents.api.serializers import (
    CaseDetailSerializer,
    CaseSummarySerializer,
    FacetGroupSerializer,
)
from incidents.facets import FACETS
from incidents.models import Case
from incidents.selectors.cases import case_detail_queryset, case_queryset, with_facet_values
from incidents.selectors.facet_counts import facet_groups

ERROR_RESPONSE = inline_serializer("Error", fields={"detail": serializers.CharField()})
FILTER_PARAMETERS = [
    OpenApiParameter("q", str, description="Text to search for"),
    *(
        OpenApiParameter(name, str, many=True, description=f"{label} slug; repeatable")
        for spec in FACETS
        for name, label in ((spec.param, spec.label), (spec.exclude_param, f"Not {spec.label}"))
    ),
]


class CaseViewSet(viewsets.ReadOnlyModelViewSet[Case]):
    """Cases, newest first; filter by facet (slugs, repeatable; OR within a facet, AND across),
    not_<facet> and q, as on the pages."""

    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Case]:
        return case_detail_queryset()

    def get_serializer_class(self) -> type[CaseSummarySerializer]:
        return CaseDetailSerializer if self.action == "retrieve" else CaseSummarySerializer

    @extend_schema(
        parameters=FILTER_PARAMETERS,
        responses={
            200: CaseSummarySerializer(many=True),
            400: OpenApiResponse(description="Unknown filter value"),
        },
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        found = case_queryset(params=request.query_params)
        if found.errors:
            raise ValidationError(found.errors)
        page = self.paginate_queryset(with_facet_values(found.queryset))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(responses={200: CaseDetailSerializer, 404: ERROR_RESPONSE})
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().retrieve(request, *args, **kwargs)


class FacetCountsView(APIView):
    """Every facet value with the number of cases it would give under the current filters."""

    @extend_schema(
        parameters=FILTER_PARAMETERS,
        responses={
            200: inline_serializer(
                "FacetCounts",
                fields={
                    "count": serializers.IntegerField(),
                    "facets": FacetGroupSerializer(many=True),
                },
            ),
            400: ERROR_RESPONSE,
        },
    )
    def get(self, request: Request) -> Response:
        found = case_queryset(params=request.query_params)
        if found.errors:
            raise ValidationError(found.errors)
        groups = facet_groups(found.filterset)
        return Response(
            {
                "count": found.queryset.count(),
                "facets": FacetGroupSerializer(groups, many=True).data,
            }
        )
