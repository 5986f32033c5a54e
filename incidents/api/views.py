"""API endpoints: the same filters as the pages, through the same FilterSet and selectors."""

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
from incidents.filtersets import CaseFilterSet
from incidents.models import Case
from incidents.selectors import cases as selectors
from incidents.selectors.vocabulary import FACETS

ERROR_RESPONSE = inline_serializer("Error", fields={"detail": serializers.CharField()})
FILTER_PARAMETERS = [
    OpenApiParameter("q", str, description="Text to search for"),
    *(
        OpenApiParameter(name, str, many=True, description=f"{label} slug; repeatable")
        for _facet, param, label in FACETS
        for name in (param, f"not_{param}")
    ),
]


@extend_schema(
    responses={200: CaseSummarySerializer, 400: OpenApiResponse(description="Unknown filter value")}
)
class CaseViewSet(viewsets.ReadOnlyModelViewSet[Case]):
    """Cases, newest first; filter with root_cause, component, symptom, contributing_factor,
    organisation (slugs, repeatable; OR within a facet, AND across), not_<facet> and q."""

    filterset_class = CaseFilterSet
    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Case]:
        if self.action == "retrieve":
            return selectors.case_detail_queryset()
        return Case.objects.prefetch_related(selectors.direct_links_prefetch())

    def get_serializer_class(self) -> type[CaseSummarySerializer]:
        return CaseDetailSerializer if self.action == "retrieve" else CaseSummarySerializer

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
        result = selectors.case_list(params=request.query_params, per_page=1)
        if result.errors:
            raise ValidationError(result.errors)
        return Response(
            {
                "count": result.total,
                "facets": FacetGroupSerializer(result.facets, many=True).data,
            }
        )
