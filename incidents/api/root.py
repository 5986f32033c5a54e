"""`/api/`: every endpoint of the API, with a line on what it gives."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from incidents.api.reads import LibraryRead

# (name, route name, its arguments, what it gives), in the order a newcomer reads them.
ENDPOINTS: tuple[tuple[str, str, dict[str, str], str], ...] = (
    (
        "cases",
        "api:case-list",
        {},
        "Cases under the library's filters, paged; POST adds one (token)",
    ),
    ("facets", "api:facets", {}, "Every facet value with its count under the filters"),
    (
        "suggest",
        "api:suggest",
        {},
        "The facet values a text names (?q=...), with the cases each would give",
    ),
    *(
        (
            f"export_{name}",
            "api:case-export",
            {"export_format": name},
            f"Every case under the filters (not one page): its fields, facet slugs and links, "
            f"as {text}",
        )
        for name, text in (("csv", "CSV"), ("json", "one JSON array"), ("ndjson", "NDJSON"))
    ),
    ("breakdowns", "api:breakdown-list", {}, "Failure breakdown tables of the filtered cases"),
    ("checks", "api:check-list", {}, "kubegap's checks with the cases they cite"),
    ("feed", "incidents:case-feed", {}, "An Atom feed of the cases under the filters"),
    ("schema", "api:schema", {}, "The OpenAPI 3 schema"),
    ("docs", "api:docs", {}, "The schema as interactive documentation"),
)


class ApiRootView(LibraryRead, APIView):
    """Every endpoint of the API, with its absolute URL."""

    @extend_schema(
        responses={
            200: inline_serializer(
                "ApiRoot",
                fields={
                    name: inline_serializer(
                        f"ApiRoot{name.title()}",
                        fields={
                            "url": serializers.URLField(),
                            "description": serializers.CharField(),
                        },
                    )
                    for name, _route, _args, _text in ENDPOINTS
                },
            ),
            304: OpenApiResponse(description="Not modified since the ETag or date given"),
        }
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                name: {
                    "url": request.build_absolute_uri(reverse(route, kwargs=args)),
                    "description": text,
                }
                for name, route, args, text in ENDPOINTS
            }
        )
