"""JSON shapes of typed costs and failure breakdowns (the case card and /api/breakdowns/)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from incidents.amounts import figure_text
from incidents.models import Breakdown
from incidents.models import BreakdownRow
from incidents.models import CostFigure
from incidents.models.breakdowns import BREAKDOWN_FIELDS
from incidents.models.breakdowns import ROW_FIGURE_FIELDS
from incidents.models.breakdowns import ROW_LABEL_FIELDS
from incidents.models.costs import COST_DETAIL_FIELDS
from incidents.selectors.breakdowns import row_values


class CostFigureSerializer(serializers.ModelSerializer[CostFigure]):
    """A typed cost: kind, value in the kind's unit, bound, and the formula when derived."""

    unit = serializers.CharField(read_only=True)
    text = serializers.SerializerMethodField(
        help_text='e.g. "less than 2,120,000 GPU-hours" (a derived figure to 3 significant figures; `value` is exact)',
    )

    class Meta:
        model = CostFigure
        fields = ["kind", "value", "unit", "bound", "text", *COST_DETAIL_FIELDS]

    def get_text(self, figure: CostFigure) -> str:
        return figure_text(figure.value, figure.bound, figure.unit, derived=figure.derived)


class FacetValueRefSerializer(serializers.Serializer[Any]):
    facet = serializers.CharField()
    slug = serializers.CharField()
    name = serializers.CharField()


class BreakdownRowSerializer(serializers.ModelSerializer[BreakdownRow]):
    maps_to = serializers.SerializerMethodField()

    class Meta:
        model = BreakdownRow
        fields = [*ROW_LABEL_FIELDS, "maps_to", *ROW_FIGURE_FIELDS]

    @extend_schema_field(FacetValueRefSerializer(many=True))
    def get_maps_to(self, row: BreakdownRow) -> list[dict[str, str]]:
        return [{"facet": v.facet, "slug": v.slug, "name": v.name} for v in row_values(row)]


class BreakdownSerializer(serializers.ModelSerializer[Breakdown]):
    """One table as its source prints it; shares are percentages (0-100)."""

    rows = BreakdownRowSerializer(many=True, read_only=True)

    class Meta:
        model = Breakdown
        fields = [*BREAKDOWN_FIELDS, "rows"]


class BreakdownListSerializer(BreakdownSerializer):
    """A table with the case it belongs to."""

    case = serializers.SerializerMethodField()

    class Meta(BreakdownSerializer.Meta):
        fields = ["case", *BreakdownSerializer.Meta.fields]

    def get_case(self, table: Breakdown) -> dict[str, str]:
        request = self.context.get("request")
        path = reverse("api:case-detail", args=[table.case.slug])
        return {
            "slug": table.case.slug,
            "title": table.case.title,
            "api_url": request.build_absolute_uri(path) if request else path,
        }
