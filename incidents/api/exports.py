"""Whole-set exports: `/api/cases/export.csv`, `.json` and `.ndjson`.

Every case the filters select (not one page), in the list's order, streamed: the cases are read
in chunks of CHUNK with their facet values and sources prefetched per chunk, and each row is
written as it is read, so memory stays flat whatever the library's size. The CSV starts with a
UTF-8 byte order mark and uses CRLF line ends, so a spreadsheet opens it with its accents; a cell
that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`) is prefixed with an apostrophe.
Unknown parameters and values are a 400 in JSON, as on every API read.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from collections.abc import Iterator
from typing import Any

from django.http import StreamingHttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import extend_schema
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request

from incidents.api.reads import LibraryRead
from incidents.api.views import FILTER_PARAMETERS
from incidents.api.views import filtered_cases
from incidents.api.views import read_responses
from incidents.facets import FACETS
from incidents.models import Case
from incidents.selectors.cases import values_by_facet
from incidents.selectors.export_rows import case_sources
from incidents.selectors.export_rows import export_cases
from incidents.selectors.parameters import FILTER_PARAMS

CSV_FIELDS = [
    "slug",
    "title",
    "kind",
    "setting",
    "period_start",
    "period_end",
    "published",
    "period",
    *(spec.param for spec in FACETS),
    "primary_source",
    "url",
]
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _nullable(field: type[serializers.Field]) -> serializers.Field:
    return field(allow_null=True)  # type: ignore[call-arg]


# An export row as the schema describes it (`_record` writes it): the case's own fields, its
# facet values as slugs and its links; not the detail's summary, costs or remediations.
EXPORT_RECORD = inline_serializer(
    "CaseExportRecord",
    fields={
        "slug": serializers.CharField(),
        "title": serializers.CharField(),
        "kind": serializers.CharField(),
        "setting": serializers.CharField(),
        "period_start": _nullable(serializers.DateField),
        "period_end": _nullable(serializers.DateField),
        "published": _nullable(serializers.DateField),
        "period": serializers.CharField(),
        **{spec.param: serializers.ListField(child=serializers.CharField()) for spec in FACETS},
        "primary_source": _nullable(serializers.URLField),
        "sources": serializers.ListField(child=serializers.URLField()),
        "url": serializers.URLField(),
    },
)


class _Whatever(BaseContentNegotiation):
    """The format is the path's (.csv, .json, .ndjson), whatever the Accept header says; errors
    are JSON."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        return next(iter(parsers), None)


def _record(case: Case, base: str) -> dict[str, Any]:
    """A case as an export row: its own fields, facet values (slugs) and links."""
    grouped = values_by_facet(case)
    sources = case_sources(case)
    primary = next((s.url for s in sources if s.kind == "primary"), "")
    return {
        "slug": case.slug,
        "title": case.title,
        "kind": case.kind,
        "setting": case.setting,
        "period_start": case.period_start.isoformat() if case.period_start else None,
        "period_end": case.period_end.isoformat() if case.period_end else None,
        "published": case.published.isoformat() if case.published else None,
        "period": case.period_label,
        **{spec.param: [v.slug for v in grouped[spec.facet]] for spec in FACETS},
        "primary_source": primary or None,
        "sources": [s.url for s in sources],
        "url": base.replace("__slug__", case.slug),
    }


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = "; ".join(value) if isinstance(value, list) else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


class _Line:
    """A file-like object whose write() returns the line, for csv.writer to stream through."""

    def write(self, value: str) -> str:
        return value


def csv_lines(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    writer = csv.writer(_Line(), lineterminator="\r\n")
    yield "\ufeff" + writer.writerow(CSV_FIELDS)
    for record in records:
        yield writer.writerow([_cell(record[name]) for name in CSV_FIELDS])


def ndjson_lines(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    for record in records:
        yield json.dumps(record, ensure_ascii=False) + "\n"


def json_array(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    yield "["
    for index, record in enumerate(records):
        yield ("," if index else "") + "\n" + json.dumps(record, ensure_ascii=False)
    yield "\n]\n"


FORMATS = {
    "csv": ("text/csv; charset=utf-8", csv_lines),
    "json": ("application/json", json_array),
    "ndjson": ("application/x-ndjson", ndjson_lines),
}


class CaseExportView(LibraryRead):
    """Every case under the filters (the same parameters as /api/cases/, no pages), streamed."""

    known_parameters = FILTER_PARAMS
    cache_responses = False  # streamed; the ETag still spares a client an unchanged download
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _Whatever

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "export_format",
                str,
                OpenApiParameter.PATH,
                enum=list(FORMATS),
                description="csv (a spreadsheet opens it), json (one array) or ndjson (a case a line)",
            ),
            *FILTER_PARAMETERS,
        ],
        responses=read_responses(
            {
                (200, "text/csv"): OpenApiTypes.STR,
                (200, "application/json"): serializers.ListSerializer(child=EXPORT_RECORD),
                # one CaseExportRecord a line
                (200, "application/x-ndjson"): OpenApiTypes.STR,
            }
        ),
    )
    def get(self, request: Request, export_format: str) -> StreamingHttpResponse:
        # No version passed: an export needs the vocabulary, not the facet index.
        found = filtered_cases(request)
        content_type, lines = FORMATS[export_format]
        base = request.build_absolute_uri(reverse("incidents:case-detail", args=["__slug__"]))
        records = (_record(case, base) for case in export_cases(found.queryset))
        response = StreamingHttpResponse(lines(records), content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="cases.{export_format}"'
        return response
