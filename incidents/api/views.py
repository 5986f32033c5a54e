"""API endpoints: the same filters as the pages, through the same selectors.

The case list is `case_queryset` paginated (no queryset of its own); its parameters and the
facet counts' are documented from the registry.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.utils import inline_serializer
from rest_framework import permissions
from rest_framework import serializers
from rest_framework import viewsets
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from incidents.api.case_rows import summary_rows
from incidents.api.pagination import PAGE_PARAMS
from incidents.api.pagination import PageNumberPagination
from incidents.api.reads import LibraryRead
from incidents.api.renderers import PlainRows
from incidents.api.serializers import SLUG_PLACEHOLDER
from incidents.api.serializers import CaseDetailSerializer
from incidents.api.serializers import CaseSummarySerializer
from incidents.api.serializers import FacetGroupSerializer
from incidents.api.serializers import case_link_templates
from incidents.api.writes import CaseWrites
from incidents.facets import FACETS
from incidents.filtersets import ORDERINGS
from incidents.filtersets import YEARS
from incidents.models import Case
from incidents.models import CaseKind
from incidents.models import Setting
from incidents.selectors.cases import CaseQuery
from incidents.selectors.cases import attach_direct_values
from incidents.selectors.cases import case_detail_queryset
from incidents.selectors.cases import case_queryset
from incidents.selectors.facet_counts import facet_groups
from incidents.selectors.facet_index import current_vocabulary
from incidents.selectors.facet_index import selection
from incidents.selectors.library_version import LibraryVersion
from incidents.selectors.parameters import FILTER_PARAMS
from incidents.selectors.parameters import filter_problems
from incidents.selectors.vocabulary import Vocabulary

ERROR_RESPONSE = inline_serializer("Error", fields={"detail": serializers.CharField()})
BAD_PARAMETERS = OpenApiResponse(
    response={
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    },
    description=(
        "An unknown parameter or value: each bad parameter with messages naming the value and the "
        "closest known ones"
    ),
)
NOT_MODIFIED = OpenApiResponse(description="Not modified since the ETag or date given")


def read_responses(own: dict[Any, Any]) -> dict[Any, Any]:
    """A read's responses: its own (200 and any other), then what every read may answer, a 304
    to a conditional request and a 400 naming an unknown parameter or value."""
    return {**own, 304: NOT_MODIFIED, 400: BAD_PARAMETERS}


def object_read_responses(name: str, **fields: serializers.Field) -> dict[Any, Any]:
    """The responses of a read whose 200 is one JSON object of these fields (`name` in the
    schema), with what every read may answer (`read_responses`)."""
    return read_responses({200: inline_serializer(name, fields=fields)})


YEAR = {"type": "integer", "minimum": YEARS[0], "maximum": YEARS[1]}
FILTER_PARAMETERS = [
    OpenApiParameter(
        "q",
        {"type": "string", "pattern": "^[^\\x00]*$"},  # type: ignore[arg-type]
        description="Text to search for (best match first); no NUL characters",
    ),
    *(
        OpenApiParameter(name, str, many=True, description=f"{label} slug; repeatable")
        for spec in FACETS
        for name, label in ((spec.param, spec.label), (spec.exclude_param, f"Not {spec.label}"))
    ),
    OpenApiParameter("kind", str, many=True, enum=CaseKind.values, description="Kind; repeatable"),
    OpenApiParameter(
        "setting", str, many=True, enum=Setting.values, description="Setting; repeatable"
    ),
    *(
        OpenApiParameter(
            name, YEAR, description=f"{text} (the start of the case's period, or its publication)"
        )  # type: ignore[arg-type]
        for name, text in (
            ("year", "Year of the case"),
            ("year_min", "Cases from this year on (not after year_max: a 400 otherwise)"),
            ("year_max", "Cases up to this year (not before year_min: a 400 otherwise)"),
        )
    ),
    OpenApiParameter(
        "ordering",
        str,
        enum=list(ORDERINGS),
        description="Order: "
        + "; ".join(f"{key}: {label.lower()}" for key, (label, _) in ORDERINGS.items())
        + ". Default: newest first, or best match first with q.",
    ),
]


_FILTER_NAMES = frozenset(FILTER_PARAMS)


# The unbound FilterSet's query of the last vocabulary a list was read with: the same for every
# unfiltered list of that version (nothing in it depends on the request), and made again for a
# new vocabulary (the index of a new version, or one built inside a transaction).
_unfiltered: tuple[Vocabulary, CaseQuery] | None = None


def filtered_cases(
    request: Request, version: LibraryVersion | None = None, *, share: bool = False
) -> CaseQuery:
    """The cases the request's filters select; a 400 naming every bad value (and the closest
    known ones) rather than a partly applied filter. `version`: the library version the view
    already read (LibraryRead), not read again. `share`: an unfiltered request may get the
    query another request made with the same vocabulary (the case list, which only pages it)."""
    global _unfiltered
    params: Any = request.query_params
    if not any(name in _FILTER_NAMES for name in params):
        # No filter given (`page`, `page_size`, `format` aside): the unbound FilterSet, which
        # selects every case like a bound one with no filter value, without validating a form.
        if not share:
            return case_queryset(params=None, version=version)
        vocabulary = current_vocabulary(version=version)
        known = _unfiltered
        if known is None or known[0] is not vocabulary:
            known = _unfiltered = (vocabulary, case_queryset(params=None, vocabulary=vocabulary))
        return known[1]
    found = case_queryset(params=params, version=version)
    if found.errors:
        raise ValidationError(filter_problems(request.query_params, found.errors, found.vocabulary))
    return found


class CaseViewSet(CaseWrites, LibraryRead, viewsets.ReadOnlyModelViewSet[Case]):
    """Cases, newest first; filter by facet (slugs, repeatable; OR within a facet, AND across),
    not_<facet>, q, kind, setting and years, as on the pages. POST adds a case and PUT replaces
    one, with a token and the permission (incidents.api.writes)."""

    lookup_field = "slug"
    http_method_names = ["get", "post", "put", "head", "options"]
    # Anyone reads; writing needs incidents.add_case (POST) or incidents.change_case (PUT).
    permission_classes = [permissions.DjangoModelPermissionsOrAnonReadOnly]

    def get_known_parameters(self) -> tuple[str, ...]:
        return (*FILTER_PARAMS, *PAGE_PARAMS) if self.action == "list" else ()

    def get_queryset(self) -> QuerySet[Case]:
        # A list reads its cases through `filtered_cases`; this queryset is what the detail and
        # the writes read, and what the permission check asks for the model of (on every
        # request: keep it unevaluated and cheap to build there).
        return Case.objects.all() if self.action == "list" else case_detail_queryset()

    def get_serializer_class(self) -> type[CaseSummarySerializer]:
        return CaseDetailSerializer if self.action == "retrieve" else CaseSummarySerializer

    def get_object(self) -> Case:
        """The case of the address; a 404 naming the slug asked for when there is none."""
        try:
            return super().get_object()
        except Http404 as missing:
            raise NotFound(f"No case with slug {self.kwargs.get('slug')!r}.") from missing

    @extend_schema(
        parameters=FILTER_PARAMETERS,
        responses=read_responses(
            {
                200: CaseSummarySerializer(many=True),
                404: OpenApiResponse(
                    response=ERROR_RESPONSE,
                    description="A page past the last, named with the number of pages",
                ),
            }
        ),
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        found = filtered_cases(request, self.library_version, share=True)
        if isinstance(self.paginator, PageNumberPagination):
            self.paginator.use_facet_index(found.filterset, summaries=True)
            # The base queryset: the index's paginator filters (and sorts) the cases itself.
            cases = found.filterset.queryset
        else:
            cases = found.queryset
        page: list[Any] = self.paginate_queryset(cases) or []
        if page and not isinstance(page[0], Case):  # the rows' tuples (SummaryPaginator)
            url, api_url = case_link_templates(request)
            rows = summary_rows(page, found.vocabulary, url, api_url, SLUG_PLACEHOLDER)
            # Written into the rows: let the tuples go now (the view, its paginator and the
            # request refer to one another, and would keep them for the garbage collector).
            page.clear()
            if isinstance(self.paginator, PageNumberPagination):
                self.paginator.release_rows()
            return self.get_paginated_response(PlainRows(rows))
        attach_direct_values(page, found.vocabulary)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        responses=read_responses({200: CaseDetailSerializer, 404: ERROR_RESPONSE}),
    )
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().retrieve(request, *args, **kwargs)


class FacetCountsView(LibraryRead, APIView):
    """Every facet value with the number of cases it would give under the current filters."""

    known_parameters = FILTER_PARAMS

    @extend_schema(
        parameters=FILTER_PARAMETERS,
        responses=object_read_responses(
            "FacetCounts",
            count=serializers.IntegerField(),
            facets=FacetGroupSerializer(many=True),
        ),
    )
    def get(self, request: Request) -> Response:
        found = filtered_cases(request, self.library_version)
        groups = facet_groups(found.filterset)
        return Response(
            {
                "count": len(selection(found.filterset).selected()),
                "facets": FacetGroupSerializer(groups, many=True).data,
            }
        )
