"""API: failure breakdowns, `/api/breakdowns/` (their own module; the case card embeds them too).

The list holds the breakdown tables of the cases the library's filters select (the filters apply
to the owning case, through `case_queryset`), narrowed by `counted` and `cost_unit`; it is
paginated like the other lists.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from incidents.api.cost_serializers import BreakdownListSerializer
from incidents.api.views import FILTER_PARAMETERS
from incidents.models import Breakdown
from incidents.selectors.breakdown_list import UNIT_FILTERS, breakdown_queryset

UNIT_PARAMETERS = [
    OpenApiParameter(name, str, many=True, enum=values, description=f"Table's {name}; repeatable")
    for name, values in UNIT_FILTERS.items()
]


class BreakdownListView(generics.GenericAPIView[Breakdown]):
    """Breakdown tables of the cases the library's filters select (the same parameters as
    /api/cases/), narrowed by `counted` and `cost_unit`; by case, then in file order."""

    serializer_class = BreakdownListSerializer

    @extend_schema(
        parameters=[
            *FILTER_PARAMETERS,
            *UNIT_PARAMETERS,
        ],
        responses={
            200: BreakdownListSerializer(many=True),
            400: OpenApiResponse(description="Unknown filter value"),
        },
    )
    def get(self, request: Request) -> Response:
        found = breakdown_queryset(params=request.query_params)
        if found.errors:
            raise ValidationError(found.errors)
        page = self.paginate_queryset(found.queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
