"""Admin for editors: facet values with aliases and parents; cases with their figures and sources."""

from __future__ import annotations

from typing import Any
from typing import TypeVar

from django.contrib import admin
from django.db.models import Model
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet
from django.forms import ModelForm
from django.http import HttpRequest

from incidents import models
from incidents.services import refresh_implied_links
from incidents.services.search_index import refresh_search_index

_Row = TypeVar("_Row", bound=Model)


class ReindexingAdmin(admin.ModelAdmin[_Row]):
    """An admin whose inlines hold searchable text: `reindex(obj)` runs once they are saved."""

    def save_related(
        self,
        request: HttpRequest,
        form: ModelForm[Any],
        formsets: list[BaseInlineFormSet[Any, Any, Any]],
        change: bool,
    ) -> None:
        super().save_related(request, form, formsets, change)
        self.reindex(form.instance)

    def reindex(self, obj: _Row) -> None:
        refresh_search_index()


class FacetAliasInline(admin.TabularInline[models.FacetAlias, models.FacetValue]):
    model = models.FacetAlias
    extra = 1


@admin.register(models.FacetValue)
class FacetValueAdmin(ReindexingAdmin[models.FacetValue]):
    list_display = ["name", "facet", "slug", "parent"]
    list_filter = ["facet"]
    search_fields = ["name", "slug", "aliases__text"]
    prepopulated_fields = {"slug": ["name"]}
    autocomplete_fields = ["parent"]
    inlines = [FacetAliasInline]

    def save_model(
        self, request: HttpRequest, obj: models.FacetValue, form: ModelForm[Any], change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        if "parent" in form.changed_data:
            refresh_implied_links()

    def reindex(self, obj: models.FacetValue) -> None:
        refresh_search_index()  # the value's name and aliases are searchable text of its cases


class CaseFacetLinkInline(admin.TabularInline[models.CaseFacetLink, models.Case]):
    model = models.CaseFacetLink
    extra = 1
    autocomplete_fields = ["value"]
    verbose_name = "facet value"

    def get_queryset(self, request: HttpRequest) -> QuerySet[models.CaseFacetLink]:
        # Implied (ancestor) links are derived; editors tag the case with its own values only.
        return super().get_queryset(request).filter(direct=True)


class CaseRowsInline(admin.TabularInline[_Row, models.Case]):
    """A case's own rows, edited on the case: no empty row offered."""

    extra = 0


class SourceInline(CaseRowsInline[models.Source]):
    model = models.Source


class KeyFigureInline(CaseRowsInline[models.KeyFigure]):
    model = models.KeyFigure


class CostFigureInline(admin.StackedInline[models.CostFigure, models.Case]):
    model = models.CostFigure
    extra = 0


class BreakdownInline(admin.TabularInline[models.Breakdown, models.Case]):
    model = models.Breakdown
    extra = 0
    fields = ["position", "slug", "title", "counted", "cost_unit", "status", "locator"]
    show_change_link = True


class BreakdownRowValueInline(admin.TabularInline[models.BreakdownRowValue, models.BreakdownRow]):
    model = models.BreakdownRowValue
    extra = 0
    autocomplete_fields = ["value"]
    verbose_name = "facet value"


class BreakdownRowInline(admin.TabularInline[models.BreakdownRow, models.Breakdown]):
    model = models.BreakdownRow
    extra = 0
    show_change_link = True


@admin.register(models.Breakdown)
class BreakdownAdmin(admin.ModelAdmin[models.Breakdown]):
    """A breakdown table with its rows; a row's facet values are edited on the row."""

    list_display = ["title", "case", "counted", "cost_unit", "status"]
    list_filter = ["counted", "cost_unit", "status"]
    search_fields = ["title", "case__slug"]
    autocomplete_fields = ["case"]
    inlines = [BreakdownRowInline]


@admin.register(models.BreakdownRow)
class BreakdownRowAdmin(admin.ModelAdmin[models.BreakdownRow]):
    list_display = ["label", "breakdown", "count", "count_share", "cost", "cost_share"]
    search_fields = ["label", "breakdown__title"]
    inlines = [BreakdownRowValueInline]


class CaseItemInline(CaseRowsInline[_Row]):
    """A case's links to shared items (remediations, action items, lessons), found by name."""

    autocomplete_fields = ["item"]


class CaseRemediationInline(CaseItemInline[models.CaseRemediation]):
    model = models.CaseRemediation


class CaseActionItemInline(CaseItemInline[models.CaseActionItem]):
    model = models.CaseActionItem


class CaseLessonInline(CaseItemInline[models.CaseLesson]):
    model = models.CaseLesson


@admin.register(models.Case)
class CaseAdmin(ReindexingAdmin[models.Case]):
    list_display = ["title", "kind", "setting", "period_start", "updated_at"]
    list_filter = ["kind", "setting"]
    search_fields = ["title", "summary", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [
        CaseFacetLinkInline,
        KeyFigureInline,
        CostFigureInline,
        BreakdownInline,
        SourceInline,
        CaseRemediationInline,
        CaseActionItemInline,
        CaseLessonInline,
    ]

    def reindex(self, obj: models.Case) -> None:
        refresh_implied_links([obj.pk])
        refresh_search_index([obj.pk])


@admin.register(models.Remediation, models.ActionItem, models.Lesson)
class SharedItemAdmin(admin.ModelAdmin[Any]):
    list_display = ["slug", "text"]
    search_fields = ["slug", "text"]

    def save_model(
        self, request: HttpRequest, obj: Any, form: ModelForm[Any], change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        refresh_search_index()  # the shared wording is searchable text of every case using it
