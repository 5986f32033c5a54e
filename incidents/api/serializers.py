"""JSON shapes of the API: a case row, the full case card, facet counts (keys from the registry)."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any
from typing import cast

from django.urls import get_script_prefix
from django.urls import get_urlconf
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from incidents.api.cost_serializers import BreakdownSerializer
from incidents.api.cost_serializers import CostFigureSerializer
from incidents.facets import FACETS
from incidents.models import Case
from incidents.selectors.cases import values_by_facet


class PeriodSerializer(serializers.Serializer[Case]):
    start = serializers.DateField(source="period_start", allow_null=True)
    start_precision = serializers.CharField(source="period_start_precision")
    end = serializers.DateField(source="period_end", allow_null=True)
    end_precision = serializers.CharField(source="period_end_precision")
    label = serializers.CharField(source="period_label")  # type: ignore[assignment]
    published = serializers.DateField(allow_null=True)
    published_precision = serializers.CharField()


_FACETS_SCHEMA = {
    "type": "object",
    "properties": {
        spec.param: {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"slug": {"type": "string"}, "name": {"type": "string"}},
            },
        }
        for spec in FACETS
    },
}


@extend_schema_field(_FACETS_SCHEMA)
class FacetsField(serializers.Field):  # type: ignore[type-arg]
    """The case's own facet values, keyed by query parameter (root_cause, component, ...)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["source"] = "*"
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, case: Case) -> dict[str, list[dict[str, str]]]:
        grouped = values_by_facet(case)
        return {
            spec.param: [{"slug": v.slug, "name": v.name} for v in grouped[spec.facet]]
            for spec in FACETS
        }


# Stands for the slug in a reversed route (slugs are lower-case words and hyphens).
SLUG_PLACEHOLDER = _SLUG = "SLUG_PLACEHOLDER"


@functools.lru_cache(maxsize=64)
def _reversed(route: str, urlconf: str | None, prefix: str) -> str:
    """The path of a case's route with _SLUG for the slug: the same for every request under
    one URLconf and script prefix (reversing it cost more than writing a row)."""
    return reverse(route, args=[_SLUG], urlconf=urlconf)


# The routes of a case's two links: its page and its API resource.
_CASE_ROUTES = ("incidents:case-detail", "api:case-detail")
# (scheme and host, URLconf, script prefix) -> the two links' templates; bounded (the host is
# the client's, if an allowed one).
_link_memo: dict[tuple[str, str | None, str], tuple[str, str]] = {}


def case_link_templates(request: Any | None) -> tuple[str, str]:
    """The page's and the API's link to a case with _SLUG for its slug: absolute, as the
    request's `build_absolute_uri` writes them (which depends only on its scheme and host for
    a reversed path), remembered per scheme, host, URLconf and script prefix."""
    urlconf, prefix = get_urlconf(), get_script_prefix()
    if request is None:
        page, api = (_reversed(route, urlconf, prefix) for route in _CASE_ROUTES)
        return page, api
    key = (f"{request.scheme}://{request.get_host()}", urlconf, prefix)
    known = _link_memo.get(key)
    if known is None:
        if len(_link_memo) >= 64:
            _link_memo.clear()
        page, api = (
            request.build_absolute_uri(_reversed(route, urlconf, prefix)) for route in _CASE_ROUTES
        )
        known = _link_memo[key] = (page, api)
    return known


def _date(value: dt.date | None) -> str | None:
    """A date as DRF's DateField writes it (ISO 8601)."""
    return None if value is None else value.isoformat()


class CaseSummaryListSerializer(serializers.ListSerializer[Case]):
    """A list of case rows written directly, field for field what CaseSummarySerializer writes
    for one case (tests/test_api.py compares them): a page of 20 rows through DRF's fields
    cost more than the rest of the request (a field object walk, attribute lookup and copy
    per value), and a row has no field DRF has to convert."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        cases = data.all() if hasattr(data, "all") else data
        child = cast(CaseSummarySerializer, self.child)
        url, api_url = child.link_templates()
        rows = []
        for case in cases:
            grouped = values_by_facet(case)
            rows.append(
                {
                    "slug": case.slug,
                    "title": case.title,
                    "kind": case.kind,
                    "setting": case.setting,
                    "period": {
                        "start": _date(case.period_start),
                        "start_precision": case.period_start_precision,
                        "end": _date(case.period_end),
                        "end_precision": case.period_end_precision,
                        "label": case.period_label,
                        "published": _date(case.published),
                        "published_precision": case.published_precision,
                    },
                    "facets": {
                        spec.param: [{"slug": v.slug, "name": v.name} for v in grouped[spec.facet]]
                        for spec in FACETS
                    },
                    "url": url.replace(_SLUG, case.slug),
                    "api_url": api_url.replace(_SLUG, case.slug),
                }
            )
        return rows


class CaseSummarySerializer(serializers.ModelSerializer[Case]):
    period = PeriodSerializer(source="*", read_only=True)
    facets = FacetsField()
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()

    class Meta:
        model = Case
        fields = ["slug", "title", "kind", "setting", "period", "facets", "url", "api_url"]
        list_serializer_class: type[serializers.ListSerializer[Any]] = CaseSummaryListSerializer

    def link_templates(self) -> tuple[str, str]:
        """The page's and the API's link to a case, with _SLUG for its slug."""
        return case_link_templates(self.context.get("request"))

    def get_url(self, case: Case) -> str:
        return self.link_templates()[0].replace(_SLUG, case.slug)

    def get_api_url(self, case: Case) -> str:
        return self.link_templates()[1].replace(_SLUG, case.slug)


class ItemSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField(source="item.slug")
    text = serializers.CharField()


class KeyFigureSerializer(serializers.Serializer[Any]):
    value = serializers.FloatField()
    unit = serializers.CharField()
    measures = serializers.CharField()
    source_url = serializers.URLField()


class SourceSerializer(serializers.Serializer[Any]):
    url = serializers.URLField()
    kind = serializers.CharField()
    title = serializers.CharField()
    archived_url = serializers.CharField()


class CaseDetailSerializer(CaseSummarySerializer):
    remediations = ItemSerializer(source="remediation_links", many=True, read_only=True)
    action_items = ItemSerializer(source="action_item_links", many=True, read_only=True)
    lessons = ItemSerializer(source="lesson_links", many=True, read_only=True)
    key_figures = KeyFigureSerializer(many=True, read_only=True)
    costs = CostFigureSerializer(many=True, read_only=True)
    breakdowns = BreakdownSerializer(many=True, read_only=True)
    sources = SourceSerializer(many=True, read_only=True)

    class Meta(CaseSummarySerializer.Meta):
        list_serializer_class = serializers.ListSerializer  # every field, through DRF
        fields = [
            *CaseSummarySerializer.Meta.fields,
            "summary",
            "detection",
            "remediations",
            "action_items",
            "lessons",
            "key_figures",
            "costs",
            "breakdowns",
            "sources",
            "created_at",
            "updated_at",
        ]


class FacetCountSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField(source="value.slug")
    name = serializers.CharField(source="value.name")
    parent = serializers.SerializerMethodField()  # type: ignore[assignment]
    count = serializers.IntegerField(
        help_text="Cases the filters give with this value added to its facet (OR within a "
        "facet; an excluded value included instead); for a selected value, its cases among "
        "the results."
    )
    selected = serializers.BooleanField()
    excluded = serializers.BooleanField()

    def get_parent(self, item: Any) -> str | None:
        return item.parent.slug if item.parent else None


class FacetGroupSerializer(serializers.Serializer[Any]):
    facet = serializers.CharField(source="spec.param")
    label = serializers.CharField(source="spec.plural")  # type: ignore[assignment]
    values = FacetCountSerializer(many=True)
