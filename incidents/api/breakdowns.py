"""API: failure breakdowns, `/api/breakdowns/` (their own module; the case card embeds them too).

The list holds the breakdown tables of the cases the library's filters select (the filters apply
to the owning case, through `case_queryset`), narrowed by `counted` and `cost_unit`; it is
paginated like the other lists.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from incidents.api.cost_serializers import BreakdownListSerializer
from incidents.api.pagination import PAGE_PARAMS
from incidents.api.reads import LibraryRead
from incidents.api.views import FILTER_PARAMETERS
from incidents.api.views import read_responses
from incidents.models import Breakdown
from incidents.selectors.breakdown_list import UNIT_FILTERS
from incidents.selectors.breakdown_list import breakdown_queryset
from incidents.selectors.parameters import FILTER_PARAMS
from incidents.selectors.parameters import filter_problems

UNIT_PARAMETERS = [
    OpenApiParameter(name, str, many=True, enum=values, description=f"Table's {name}; repeatable")
    for name, values in UNIT_FILTERS.items()
]


class BreakdownListView(LibraryRead, generics.GenericAPIView[Breakdown]):
    """Breakdown tables of the cases the library's filters select (the same parameters as
    /api/cases/), narrowed by `counted` and `cost_unit`; by case, then in file order."""

    serializer_class = BreakdownListSerializer
    known_parameters = (*FILTER_PARAMS, *UNIT_FILTERS, *PAGE_PARAMS)

    @extend_schema(
        parameters=[
            *FILTER_PARAMETERS,
            *UNIT_PARAMETERS,
        ],
        responses=read_responses(
            {
                200: BreakdownListSerializer(many=True),
            }
        ),
    )
    def get(self, request: Request) -> Response:
        found = breakdown_queryset(params=request.query_params)
        if found.errors:
            problems = filter_problems(
                request.query_params, found.cases.errors, found.cases.vocabulary
            )
            unit_problems = {k: v for k, v in found.errors.items() if k in UNIT_FILTERS}
            raise ValidationError({**problems, **unit_problems})
        page = self.paginate_queryset(found.queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
